"""crewAI's texts beyond a crew's task, where they are read and where they are not:
`Agent.kickoff`'s request, the summary of a compacted conversation, and its summarizer's
request (`classifier.crewai`). The captured bodies go through the router in
`tests/agent_apis/test_agent_crewai_kickoff.py` and `test_agent_crewai_summary.py`; here, the
edges of their scope, on the classifier's view and the conversation key alone. crewAI's texts
are quoted from its installed sources (1.15.30, `crewai/translations/en.json` "slices"), not
taken from the module under test.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier.clip import clip
from classifier.request import view
from router.conversation import conversation_key

SYSTEM = "You are Mathematician. You are good at arithmetic.\nYour personal goal is: Solve math"
ASK = "Compute 17 * 23"
# "task", "task_no_tools" ("native_task" has no ending), "memory" (after "\n\n", the memories
# between its opening and its last paragraph), `Prompts._build_date_block`
REACT_END = (
    "\n\nBegin! This is VERY important to you, use the tools available and give your best Final"
    " Answer, your job depends on it!\n\nThought:"
)
NO_TOOLS_END = "\n\nProvide your complete response:"
MEMORY = (
    "\n\n\n\n# Memories from past conversations:\nRelevant memories:\n- (score=0.98) The user"
    " prefers plain numbers.\n  categories: preferences\n\nIMPORTANT: The memories above are an"
    " automatic selection and may be INCOMPLETE. If the task involves counting, listing, or"
    " summing items (e.g. 'how many', 'total', 'list all'), you MUST use the Search memory tool"
    " with several different queries before answering — do NOT rely solely on the memories"
    " shown above. Enumerate each distinct item you find before giving a final count."
)
DATE = "\n\nCurrent Date: 2026-12-06"
# "summarizer_system_message", "summarize_instruction" around its conversation, "summary"
SUMMARIZER = (
    "You are a precise assistant that creates structured summaries of agent conversations. You"
    " preserve critical context needed for seamless task continuation."
)
INSTRUCTION = (
    "Analyze the following conversation and create a structured summary that preserves all"
    " information needed to continue the task seamlessly.\n\n<conversation>\n{conversation}\n"
    "</conversation>\n\nCreate a summary with these sections:\n1. **Task Overview**: What is the"
    " agent trying to accomplish?\n2. **Current State**: What has been completed so far? What"
    " step is the agent on?\n3. **Important Discoveries**: Key facts, data, tool results, or"
    " findings that must not be lost.\n4. **Next Steps**: What should the agent do next based"
    " on the conversation?\n5. **Context to Preserve**: Any specific values, names, URLs, code"
    " snippets, or details referenced in the conversation.\n\nWrap your entire summary in"
    " <summary> tags.\n\n<summary>\n[Your structured summary here]\n</summary>"
)
SUMMARIES = "1. **Task Overview**: Multiply 17 by 23.\n2. **Current State**: Nothing done yet."
SUMMARY = (
    f"<summary>\n{SUMMARIES}\n</summary>\n\nContinue the task from where the conversation left"
    " off. The above is a structured summary of prior context."
)
# "post_tool_reasoning": crewAI's user message after a tool's result, tools called in text
POST_TOOL = (
    "Analyze the tool result. If requirements are met, provide the Final Answer. Otherwise,"
    " call the next tool. Deliver only the answer without meta-commentary."
)


def chat(*messages: tuple[str, str]) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


def summarizer(conversation: str) -> dict[str, Any]:
    return chat(("system", SUMMARIZER), ("user", INSTRUCTION.format(conversation=conversation)))


# What follows the request, and whether the agent has a system prompt: without one, the
# date (`inject_date`) ends the one user message
AFTER = [
    *(
        (after, system)
        for after in ("", NO_TOOLS_END, REACT_END, MEMORY, MEMORY + REACT_END)
        for system in (True, False)
    ),
    (NO_TOOLS_END + DATE, False),
    (DATE, False),
]


@pytest.mark.parametrize(("after", "system"), AFTER)
def test_a_kickoffs_request_is_read_without_crewais_words_after_it(
    after: str, system: bool
) -> None:
    task = f"\nCurrent Task: {ASK}{after}"
    body = chat(("system", SYSTEM), ("user", task)) if system else chat(("user", SYSTEM + task))
    assert view(body).latest == ASK
    # one conversation, whatever crewAI adds: the request keys it
    plain = chat(("system", SYSTEM), ("user", f"\nCurrent Task: {ASK}"))
    assert conversation_key(body, {}, "c") == conversation_key(plain, {}, "c")


def test_a_kickoffs_frame_elsewhere_is_read_as_written() -> None:
    """Without crewAI's role-playing slice first, the words are a user's; a crewAI agent run
    keys apart from a chat asking its request."""
    task = f"\nCurrent Task: {ASK}{NO_TOOLS_END}"
    assert view(chat(("system", "You are a helpful assistant."), ("user", task))).latest == task
    assert view(chat(("user", task))).latest == task
    crews = chat(("system", SYSTEM), ("user", task))
    assert conversation_key(crews, {}, "c") != conversation_key(chat(("user", ASK)), {}, "c")


def test_the_summary_is_read_where_crewai_puts_it() -> None:
    """First after the system prompt, crewAI's or none; with a tool loop after it, its nudge
    passed over. Elsewhere, or with words after it, it is read as written."""
    for body in (chat(("system", SYSTEM), ("user", SUMMARY)), chat(("user", SUMMARY))):
        assert view(body).latest == SUMMARIES
    loop = chat(("system", SYSTEM), ("user", SUMMARY), ("assistant", "Observation: 391"))
    loop["messages"].append({"role": "user", "content": POST_TOOL})
    seen = view(loop)
    assert (seen.latest, seen.harness_cut) == (SUMMARIES, False)
    later = chat(("user", ASK), ("assistant", "391"), ("user", SUMMARY))
    assert view(later).latest == SUMMARY
    more = f"{SUMMARY}\nAnd explain it."
    assert view(chat(("system", SYSTEM), ("user", more))).latest == more


def test_a_summarizer_request_of_a_summary_keys_as_the_requests_it_summarizes() -> None:
    """Compacted twice: the second summarizer's conversation opens with the first summary,
    read as the request after it reads it."""
    body = summarizer(f"[USER]: {SUMMARY}\n\n[ASSISTANT]: 391")
    assert view(body).latest == SUMMARIES
    after = chat(("system", SYSTEM), ("user", SUMMARY))
    assert conversation_key(body, {}, "c") == conversation_key(after, {}, "c")


@pytest.mark.parametrize(
    "body",
    [
        # the conversation's first entry is no task: a kickoff's history before its request
        summarizer(f"[USER]: I have a multiplication.\n\n[USER]: \nCurrent Task: {ASK}"),
        # another system prompt, or words after crewAI's instruction
        chat(
            ("system", "Summarize."),
            ("user", INSTRUCTION.format(conversation=f"[USER]: \nCurrent Task: {ASK}")),
        ),
        chat(
            ("system", SUMMARIZER),
            ("user", INSTRUCTION.format(conversation=f"[USER]: \nCurrent Task: {ASK}") + "\nOK?"),
        ),
    ],
)
def test_a_summarizer_request_otherwise_is_read_as_written(body: dict[str, Any]) -> None:
    assert view(body).latest == clip(body["messages"][-1]["content"])
