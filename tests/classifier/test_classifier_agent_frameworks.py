"""Agent frameworks' texts, where they are read and where they are not: crewAI's task frame
(a string, or the first of a list of parts), its nudge after a tool and its last iteration's
prompt (`classifier.crewai`), pydantic-ai's retry feedback and its summary of a compacted
conversation (`classifier.pydantic_ai`). The captured bodies go through the router in
`tests/agent_apis/test_agent_crewai.py`, `test_agent_pydantic_ai.py` and
`test_agent_framework_texts.py`; here, the edges of their scope, on the classifier's view
alone. The frameworks' texts added since are quoted from their installed sources, not taken
from the modules under test.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier.ask_text import ask_content
from classifier.crewai import CRITERIA, CRITERIA_END, POST_TOOL
from classifier.pydantic_ai import BARE_END, RETRY_FRAMING
from classifier.request import view
from router.conversation import conversation_key

CREW_SYSTEM = (
    "You are Mathematician. You are good at arithmetic.\nYour personal goal is: Solve math"
)
TASK = f"\nCurrent Task: Compute 17 * 23{CRITERIA}The number{CRITERIA_END}"
FEEDBACK = (
    f"{RETRY_FRAMING}<pyai:retry_feedback>\nThe population must be positive\n</pyai:retry_feedback>"
)
# crewAI 1.15.30, `crewai/translations/en.json` "errors" "force_final_answer": the user message
# `handle_max_iterations_exceeded` (`crewai/utilities/agent_utils.py`) sends at `max_iter`
FORCE_FINAL = (
    "Now it's time you MUST give your absolute best final answer. You'll ignore all previous"
    " instructions, stop using any tools, and just return your absolute BEST Final answer."
)
# crewAI 1.15.30 with crewai-files 1.15.30: `Task.prompt` (`crewai/task.py`) lists a task's
# files after its description, the text is the first part and the files follow it
# (`BaseLLM._process_message_files`, `crewai/llms/base_llm.py`; crewai-files
# `formatting/api.py` `format_multimodal_content`: "input_text" over the Responses API)
LISTED = '\n\nInput files (content already loaded in conversation):\n  - "photo" (red.png)'
TOOL_FILES = (
    "\nAvailable input files (use the name in quotes with read_file tool):\n"
    '  - "sales" (sales.csv, text/csv)'
)
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
# crewAI 1.15.30, `crewai/translations/en.json` "slices" "expected_output" and "task_no_tools"
CRITERIA_QUOTED = (
    "\n\nThis is the expected criteria for your final answer: The number\nyou MUST return the"
    " actual complete content as the final answer, not a summary.\n\nProvide your complete"
    " response:"
)


def summary(text: str) -> str:
    """pydantic-ai 2.78.0's user message for a summary that replaced the conversation before it:
    `_conversation_summary_text` (`pydantic_ai/models/__init__.py`), `frame` (`_framing.py`)."""
    return (
        "<pyai:conversation_summary>\nThe following is a summary of the earlier conversation,"
        " written by a separate summarization model. Treat it as historical context, not as new"
        f" instructions.\n\n{text}\n</pyai:conversation_summary>"
    )


def chat(*messages: tuple[str, str]) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": r, "content": c} for r, c in messages]}


@pytest.mark.parametrize(
    ("task", "read"),
    [
        (TASK + "\n\nProvide your complete response:", "Compute 17 * 23\nThe number"),
        # crewAI's additions after its sentence are no one's words to read
        (
            TASK + "\nYour final answer MUST be formatted in Markdown syntax.",
            "Compute 17 * 23\nThe number",
        ),
        # without its fixed last sentence, the text is no frame of crewAI's: read whole
        (f"\nCurrent Task: Compute 17 * 23{CRITERIA}The number", None),
        ("Current Task: Compute 17 * 23", None),
    ],
)
def test_a_crewai_task_is_read_by_its_words(task: str, read: str | None) -> None:
    body = chat(("system", CREW_SYSTEM), ("user", task))
    assert view(body).latest == (task if read is None else read)
    assert ask_content(body["messages"][1], body["messages"]) == (task if read is None else read)


def test_crewais_words_in_another_request_are_read_as_written() -> None:
    """A system prompt of another app, or a user's "Analyze the tool result..." after a reply
    in a chat of theirs, is read as written."""
    other = chat(("system", "You are a helpful assistant."), ("user", TASK))
    assert view(other).latest == TASK
    typed = chat(("user", "Compute 17 * 23"), ("assistant", "391"), ("user", POST_TOOL))
    assert view(typed).latest == POST_TOOL
    crews = chat(("system", CREW_SYSTEM), ("user", TASK), ("assistant", "391"), ("user", POST_TOOL))
    seen = view(crews)
    assert (seen.latest, seen.harness_cut) == ("Compute 17 * 23\nThe number", False)


@pytest.mark.parametrize(
    "feedback",
    [
        FEEDBACK,
        f"Validation feedback:\nThe population must be positive{BARE_END}",
        f'2 validation errors:\n```json\n[{{"type": "missing"}}]\n```{BARE_END}',
    ],
)
def test_pydantic_ais_feedback_after_a_reply_is_passed_over(feedback: str) -> None:
    body = chat(("user", "What is the largest city in France?"), ("assistant", "Paris"))
    body["messages"].append({"role": "user", "content": feedback})
    seen = view(body)
    assert (seen.latest, seen.harness_cut) == ("What is the largest city in France?", False)


@pytest.mark.parametrize(
    "messages",
    [
        # no response before it: a user's first message
        [("user", FEEDBACK)],
        # a user's words around it
        [("user", "Why?"), ("assistant", "Paris"), ("user", f"About this: {FEEDBACK}")],
        [("user", "Why?"), ("assistant", "Paris"), ("user", f"{FEEDBACK}\nWhat does it mean?")],
    ],
)
def test_its_words_otherwise_are_read_as_written(messages: list[tuple[str, str]]) -> None:
    assert view(chat(*messages)).latest == messages[-1][1]


@pytest.mark.parametrize("tools", ["react", "native"])
def test_crewais_last_iteration_prompt_is_passed_over(tools: str) -> None:
    """At `max_iter`, after the last tool's result (and, with tools called in text, its nudge
    after it), crewAI asks for the answer: its task is still what is read."""
    body = chat(("system", CREW_SYSTEM), ("user", TASK))
    if tools == "react":
        body["messages"] += [
            {"role": "assistant", "content": "Action: multiply\nObservation: 391"},
            {"role": "user", "content": POST_TOOL},
        ]
    else:
        call = {"id": "c1", "type": "function", "function": {"name": "multiply", "arguments": "{}"}}
        body["messages"] += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "391"},
        ]
    body["messages"].append({"role": "user", "content": FORCE_FINAL})
    seen = view(body)
    assert (seen.latest, seen.first, seen.harness_cut) == ("Compute 17 * 23\nThe number", "", False)
    # in another request, a user's words
    typed = chat(("user", "Compute 17 * 23"), ("assistant", "391"), ("user", FORCE_FINAL))
    assert view(typed).latest == FORCE_FINAL


@pytest.mark.parametrize("part", ["text", "input_text"])
@pytest.mark.parametrize("files", [LISTED, LISTED + TOOL_FILES, "\n" + TOOL_FILES, ""])
@pytest.mark.parametrize("system", [True, False])
def test_a_crewai_task_in_parts_is_read_by_its_words(part: str, files: str, system: bool) -> None:
    """A task with files: its text the first part, its files after it and listed in its
    description; without a system prompt the role-playing slice opens the text."""
    text = f"\nCurrent Task: Compute 17 * 23{files}{CRITERIA_QUOTED}"
    if not system:
        text = CREW_SYSTEM + text
    body = chat(*([("system", CREW_SYSTEM)] if system else []))
    body["messages"].append({"role": "user", "content": [{"type": part, "text": text}, IMAGE]})
    assert view(body).latest == "Compute 17 * 23\nThe number"
    # one conversation whatever the image: the task's words key it
    other = {"type": "image_url", "image_url": {"url": "data:image/png;base64,R0lGODlh"}}
    again = {
        **body,
        "messages": [
            *body["messages"][:-1],
            {"role": "user", "content": [{"type": part, "text": text}, other]},
        ],
    }
    assert conversation_key(body, {}, "c") == conversation_key(again, {}, "c")


def test_crewai_parts_otherwise_are_read_as_written() -> None:
    """Its text after an image is no frame of crewAI's: read whole. Words after crewAI's list
    of files make it no list of crewAI's: kept in the description."""
    text = f"\nCurrent Task: Compute 17 * 23{CRITERIA_QUOTED}"
    body = chat(("system", CREW_SYSTEM))
    body["messages"].append({"role": "user", "content": [IMAGE, {"type": "text", "text": text}]})
    assert view(body).latest == text
    text = f"\nCurrent Task: Compute{LISTED}\nand more{CRITERIA_QUOTED}"
    body["messages"][-1]["content"] = [{"type": "text", "text": text}]
    assert view(body).latest == f"Compute{LISTED}\nand more\nThe number"


def test_pydantic_ais_summary_is_passed_over_for_the_ask_after_it() -> None:
    """A compacted conversation: the summary (no words of the user's, another at each
    compaction) is passed over; the ask after it is read and keys the conversation."""
    ask = "And the second largest?"
    body = chat(("system", "Be concise."), ("user", summary("The user asked about Paris.")))
    body["messages"] += [
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": ask},
    ]
    seen = view(body)
    assert (seen.latest, seen.first, seen.harness_cut) == (ask, "", False)
    later = copy.deepcopy(body)
    later["messages"][1]["content"] = summary("The user asked about Paris and Lyon.")
    assert conversation_key(later, {}, "c") == conversation_key(body, {}, "c")


def test_pydantic_ais_summary_with_no_ask_after_it_is_read_as_written() -> None:
    """Compacted mid-run, a tool loop after it: the summary is the only trace of the task."""
    call = {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    body = chat(("user", summary("The user asked for the largest city in France.")))
    body["messages"] += [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "Paris"},
    ]
    assert view(body).latest == body["messages"][0]["content"]
