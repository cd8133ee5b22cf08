"""mini-swe-agent's own user message: its answer to a reply it could not run.

mini-swe-agent (2.4.6) runs a task as one conversation, a bash command a step. When a reply
holds no command it can run (no tool call, an unknown tool, arguments that are not JSON; in
its text-based configs, not exactly one fenced action), it sends its `format_error_template`
as a user message (`minisweagent/models/utils/actions_toolcall.py`, `actions_text.py`) and
asks again: `TOOL_CALL_ERROR` or `FORMAT_ERROR`, the error, its guidance under a heading
(`GUIDANCE`) and one of the last sentences its configs end it with (`ENDINGS`: `mini.yaml`,
`mini_textbased.yaml` and the benchmark configs, `default.yaml`); or, when the reply was cut
by the output limit, the template's other branch (`CUT`). Read as the ask, the step was
tool_calling by the rule for an ask that names a tool ("call the bash tool"), or instruction
0.65-0.83, where the run's task is coding (found running mini-swe-agent).

So each is passed over (`passed_over`), as Cline's nag for a tool use is
(`classifier.harness`): the task before it is read, and the request reads as a coding
agent's session (`classifier.rules.agent_session`), which mini-swe-agent is. Told by its
whole template, its opening through its last sentence, in any request: a user who pastes
one and asks something after it is read as written. And only after the request's first user
message, none of its templates: mini-swe-agent sends its task first, always. A template with
no task before it, alone or a chat's opening, was passed over to nothing (the default route)
or to a later ask, and the request read as a coding session: a math question after one went
the coding route (found in review). It is read as written, as any user's paste is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import after_first_user, one_text

# The template's openings, each before `{{error}}`, and the heading of its guidance after it
TOOL_CALL_ERROR = "Tool call error:\n\n<error>\n"
FORMAT_ERROR = "Format error:\n\n<error>\n"
_GUIDANCE = "\n</error>\n\nHere is general guidance on how to "
GUIDANCE = {
    TOOL_CALL_ERROR: _GUIDANCE + "submit correct toolcalls:\n\n",
    FORMAT_ERROR: _GUIDANCE + "format your response:\n\n",
}
# The guidance's last sentence: `mini.yaml`'s; `mini_textbased.yaml`'s and the benchmark
# configs'; `default.yaml`'s
ENDINGS = (
    "If you want to end the task, please issue the following command:"
    " `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`\nwithout any other command.",
    "If you have completed your assignment, please consult the first message about how to\n"
    "submit your solution (you will not be able to continue working on this task after that).",
    "\nto proceed in two steps, first writing TRIPLEBACKTICKSBASH, then replacing them with"
    " ```mswea_bash_command.",
)
# The template's branch for a reply the output limit cut (its `finish_reason`, a word, inside)
CUT = re.compile(
    re.escape("Your previous response reached the output token limit (finish_reason=")
    + r"\w{1,32}\) before you produced (?:"
    + re.escape(
        "a tool call, so it was cut off. Respond more concisely and finish with exactly one"
        " bash tool call."
    )
    + "|"
    + re.escape(
        "a complete action, so it was cut off. Respond more concisely and provide exactly one"
        " action in the required format."
    )
    + r") If you need to think more, do so briefly\.\Z"
)
# How far past the opening the guidance's heading is looked for: the error (an exception's
# message, a tool's name the reply gave) is short
WITHIN = 4096


def passed_over(messages: Sequence[Any], index: int) -> bool:
    """Whether the user message `messages[index]` is mini-swe-agent's answer to a reply it
    could not run (`answers_format`), after the request's first user message (its task),
    which is not (`classifier.message.after_first_user`)."""
    return _answers(messages[index]) and after_first_user(messages, index, _answers)


def _answers(message: object) -> bool:
    """Whether `message` is one text that `answers_format`."""
    text = one_text(message)
    return text is not None and answers_format(text)


def answers_format(text: str) -> bool:
    """Whether `text` is a rendering of mini-swe-agent's `format_error_template`: an opening,
    the error, its guidance's heading, and one of its last sentences at the end; or the
    branch for a reply cut by the output limit."""
    if text.startswith(TOOL_CALL_ERROR):
        opening = TOOL_CALL_ERROR
    elif text.startswith(FORMAT_ERROR):
        opening = FORMAT_ERROR
    else:
        return CUT.match(text) is not None
    if not text.endswith(ENDINGS):
        return False
    return text.find(GUIDANCE[opening], len(opening), len(opening) + WITHIN) >= 0
