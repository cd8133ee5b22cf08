"""mini-swe-agent's answer to a reply it could not run, on the classifier's view alone
(`classifier.mini_swe_agent`): each of its configs' renderings passed over, a user's paste
read as written. The captured bodies go through the router in
`tests/agent_apis/test_agent_mini_swe_agent.py`; the texts here are quoted from its configs
(2.4.6, `minisweagent/config/*.yaml`, `benchmarks/*.yaml`, rendered as its models render
them), not taken from the module under test.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.asks import first_ask
from classifier.message import SCAN_MESSAGES
from classifier.request import view

TASK = "Please solve this issue: The add function in calc.py subtracts instead of adding."
SUBMIT = (
    "If you have completed your assignment, please consult the first message about how to\n"
    "submit your solution (you will not be able to continue working on this task after that)."
)
# `swebench.yaml` and `programbench.yaml`: the tool-call template, another last paragraph than
# `mini.yaml`'s
TOOL_CALL = (
    "Tool call error:\n\n<error>\nUnknown tool 'python'.\n</error>\n\nHere is general guidance"
    " on how to submit correct toolcalls:\n\nEvery response needs to use the 'bash' tool at"
    " least once to execute commands.\n\nCall the bash tool with your command as the"
    ' argument:\n- Tool: bash\n- Arguments: {"command": "your_command_here"}\n\n' + SUBMIT
)
# `swebench_xml.yaml`: the text-based template for actions in a `<mswea_bash_command>` block
XML = (
    "Format error:\n\n<error>\nExpected exactly 1 action, found 2.\n</error>\n\nHere is general"
    " guidance on how to format your response:\n\nPlease always provide EXACTLY ONE action in"
    " the `<mswea_bash_command>` block, found 2 actions.\n\nPlease format your action in a"
    " `<mswea_bash_command>` block as shown in <response_example>.\n\n<response_example>\nHere"
    " are some thoughts about why you want to perform the action.\n\n<mswea_bash_command>ls"
    " -la</mswea_bash_command>\n</response_example>\n\n" + SUBMIT
)
# Each config's branch for a reply its output limit cut: `mini.yaml`'s (tool calls) and
# `mini_textbased.yaml`'s
CUT_TOOL_CALL = (
    "Your previous response reached the output token limit (finish_reason=length) before you"
    " produced a tool call, so it was cut off. Respond more concisely and finish with exactly"
    " one bash tool call. If you need to think more, do so briefly."
)
CUT_TEXT = (
    "Your previous response reached the output token limit (finish_reason=tool_calls) before"
    " you produced a complete action, so it was cut off. Respond more concisely and provide"
    " exactly one action in the required format. If you need to think more, do so briefly."
)
SYSTEM = {
    "role": "system",
    "content": "You are a helpful assistant that can interact with a computer.",
}


def step(*texts: str) -> dict[str, Any]:
    """A step of a run: the task, a reply, and each of `texts` as a user message after it."""
    messages = [SYSTEM, {"role": "user", "content": TASK}]
    for text in texts:
        messages += [
            {"role": "assistant", "content": "I will look."},
            {"role": "user", "content": text},
        ]
    return {"model": "auto", "messages": messages}


@pytest.mark.parametrize("text", [TOOL_CALL, XML, CUT_TOOL_CALL, CUT_TEXT])
def test_an_answer_to_a_reply_it_could_not_run_is_passed_over(text: str) -> None:
    read = view(step(text, text))
    assert (read.latest, read.first) == (TASK, "")
    assert read.harness_cut  # a coding agent's session
    assert classify(step(text)) == classify(step())


@pytest.mark.parametrize(
    "text",
    [
        TOOL_CALL + "\n\nWhy does it say this?",  # a user's paste, and a question after it
        "Why does mini-swe-agent say: " + XML,
        CUT_TEXT.replace("finish_reason=tool_calls", "finish_reason=a b"),
        TOOL_CALL.replace("Here is general guidance", "Here is some guidance"),
    ],
)
def test_a_text_that_is_not_its_template_whole_is_read_as_written(text: str) -> None:
    read = view(step(text))
    assert read.latest != TASK and not read.harness_cut


# `mini.yaml`'s template for a reply with no tool call
FORMAT = (
    "Format error:\n\n<error>\nNo tool calls found in the response.\n</error>\n\nHere is general"
    " guidance on how to format your response:\n\nUse exactly one bash tool call.\nIf you want"
    " to end the task, please issue the following command: `echo"
    " COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`\nwithout any other command."
)


def test_a_template_with_no_task_before_it_is_read_as_written() -> None:
    """mini-swe-agent sends its task first: a template that opens a request, alone or before
    a user's question, is the user's paste, read as before its reader (instruction 0.99 and
    0.72) and no coding session. Passed over, the first was read as nothing (the default
    route) and the second's math question went the coding route by the agent's session."""
    alone = {"model": "auto", "messages": [{"role": "user", "content": FORMAT}]}
    read = view(alone)
    assert (read.latest, read.harness_cut) == (FORMAT, False)
    assert classify(alone).label == "instruction"
    question = "What is 17*23? Show the steps."
    opened = {"model": "auto", "messages": [{"role": "user", "content": FORMAT}]}
    opened["messages"] += [
        {"role": "assistant", "content": "Sure, here it is."},
        {"role": "user", "content": question},
    ]
    read = view(opened)
    assert (read.latest, read.first, read.harness_cut) == (question, FORMAT, False)
    assert classify(opened).label == "instruction"
    assert first_ask(opened["messages"]) is opened["messages"][0]


def test_templates_after_its_task_are_passed_over() -> None:
    """After the task, its templates one after another are each passed over."""
    read = view(step(FORMAT, TOOL_CALL, FORMAT))
    assert (read.latest, read.harness_cut) == (TASK, True)


@pytest.mark.parametrize(("before", "latest"), [(SCAN_MESSAGES - 1, TASK), (SCAN_MESSAGES, FORMAT)])
def test_its_task_is_looked_for_as_far_as_a_first_ask_is(before: int, latest: str) -> None:
    """The task before a template is looked for among the first `SCAN_MESSAGES` messages, as
    the first ask is (`classifier.message.after_first_user`, ADK's relays' bound too): the
    last of them is found and the template passed over; past them, the template is read as
    written, the search bounded however many messages open the request."""
    opening = [SYSTEM] * before
    body = {"model": "auto", "messages": [*opening, *step(FORMAT)["messages"][1:]]}
    assert view(body).latest == latest
