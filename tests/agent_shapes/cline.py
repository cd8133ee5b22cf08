"""What Cline and Roo Code send: the editor's state after every user turn, the tag around
the first ask, their nag for a tool, the user's replies in their tags after a tool's header,
and their texts on reopening an interrupted task.

The texts are shortened but keep their wrappers, as the agents send them.
"""

from __future__ import annotations

# Cline's (and Roo Code's) editor state, after the texts of every user turn it sends, and
# the tag around the first ask of a task
CLINE_ENVIRONMENT = (
    "<environment_details>\n# VSCode Visible Files\nsrc/config.py\n\n# VSCode Open Tabs\n"
    "src/config.py\ntests/test_config.py\n\n# Current Time\n12/4/2026, 9:12:03 PM "
    "(UTC, UTC+0:00)\n\n# Current Working Directory (/repo) Files\nREADME.md\nsrc/\n"
    "src/config.py\ntests/\ntests/test_config.py\n\n# Current Mode\nACT MODE\n"
    "</environment_details>"
)


def cline_task(ask: str) -> str:
    """Cline's first ask of a task."""
    return f"<task>\n{ask}\n</task>"


# Without native tool calls: Cline's nag when a reply used no tool (the middle shortened), and
# the user's replies in its tags after a tool's header ("[x] Result:"), as a turn's texts
CLINE_NO_TOOL = (
    "[ERROR] You did not use a tool in your previous response! Please retry with a tool use."
    "\n\n# Reminder: Instructions for Tool Use\n\nTool uses are formatted using XML-style tags."
    "\n\n# Next Steps\n\nIf you have completed the user's task, use the attempt_completion "
    "tool.\nIf you require additional information from the user, use the ask_followup_question "
    "tool.\n(This is an automated message, so do not respond to it conversationally.)"
)


def cline_feedback(text: str) -> list[str]:
    """Cline's turn when the user answers a completion with a follow-up."""
    lead = (
        "The user has provided feedback on the results. Consider their input to continue the "
        "task, and then attempt completion again."
    )
    return ["[attempt_completion] Result:", f"{lead}\n<feedback>\n{text}\n</feedback>"]


def cline_answer(question: str, text: str) -> list[str]:
    """Cline's turn when the user answers its question."""
    return [f"[ask_followup_question for '{question}'] Result:", f"<answer>\n{text}\n</answer>"]


# Cline's (and Roo Code's) texts on reopening an interrupted task (`formatResponse.
# taskResumption`, act and plan mode; verbatim but for the path), the user's new message, if
# any, after them in `<user_message>` (Cline's next part, Roo Code's same text); and Roo
# Code's feedback on approving a file's read, before the file it read
RESUMPTION = (
    "[TASK RESUMPTION] This task was interrupted 4 minutes ago. It may or may not be complete, "
    "so please reassess the task context. Be aware that the project state may have changed "
    "since then. The current working directory is now '/repo'. If the task has not been "
    "completed, retry the last step before interruption and proceed with completing the task."
    "\n\nNote: If you previously attempted a tool use that the user did not provide a result "
    "for, you should assume the tool use was not successful and assess whether you should "
    "retry. If the last tool was a browser_action, the browser has been closed and you must "
    "launch a new browser if needed."
)
PLAN_RESUMPTION = (
    "[TASK RESUMPTION] This task was interrupted just now. The conversation may have been "
    "incomplete. Be aware that the project state may have changed since then. The current "
    "working directory is now '/repo'.\n\nNote: If you previously attempted a tool use that "
    "the user did not provide a result for, you should assume the tool use was not "
    "successful. However you are in PLAN MODE, so rather than continuing the task, you must "
    "respond to the user's message."
)
PLAN_NO_MESSAGE = (
    "(The user did not provide a new message. Consider asking them how they'd like you to "
    "proceed, or suggest to them to switch to Act mode to continue with the task.)"
)


def resumed_with(text: str, plan: bool = False) -> str:
    """Cline's part with the user's message on resuming: a file it names follows it."""
    lead = (
        "New message to respond to with plan_mode_respond tool (be sure to provide your "
        "response in the <response> parameter):"
        if plan
        else "New instructions for task continuation:"
    )
    return (
        f"{lead}\n<user_message>\n'notes/ride.md' (see below for file content) {text}\n"
        '</user_message>\n\n<file_content path="notes/ride.md">\nclimbs: 3\n</file_content>'
    )


def roo_approved(text: str) -> list[str]:
    """Roo Code's turn when the user approves a file's read with feedback."""
    lead = "The user approved this operation and provided the following context:"
    read = '<file><path>src/config.py</path>\n<content lines="1-2">\n1 | def parse_config(d):'
    return [
        "[read_file for 'src/config.py'] Result:",
        f"{lead}\n<feedback>\n{text}\n</feedback>\n{read}\n2 |     return d\n</content>\n</file>",
    ]
