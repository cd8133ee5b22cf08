"""crewAI's summary of a task's conversation: its summarizer's request is read by the task
inside and keyed as the run's requests are, and the request after it by the summary, not
crewAI's words around it (`classifier.crewai`).

crewAI 1.15.30 (`respect_context_window`, on by default) summarizes a task's conversation
when a request would pass its context window (for `openai/auto`, a model it does not know:
8,192 tokens, 85% of it usable, four characters a token) or the backend refuses one as too
long: a request of its own a chunk of the conversation, under its summarizer's system prompt
("You are a precise assistant that creates structured summaries of agent conversations.
..."), the chunk's messages as "[USER]: ...", "[ASSISTANT]: ..." entries inside its
instruction; then the task goes on with the summaries in place of the conversation
("<summary>...</summary>" and "Continue the task from where the conversation left off. ...").
Read whole, the summarizer's request of "What is the weather in Paris?" was writing 0.49 and
the one of "Compute 17 * 23" writing 0.54 (cloud), each a conversation of its own, and the
request after the summary writing 0.45 (cloud) where its summary alone is tool_calling 0.78
(local) (found running crewAI). The bodies are the ones it sent
(`tests/fixtures/crewai-1.15.30.md`); real sockets, the official SDK, the simulators as
backends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from classifier.clip import clip
from router.conversation import conversation_key
from tests.agent_apis.agent_stack import explained, streamed_headers
from tests.agent_apis.served import served, served_as_read
from tests.harness import Collect, RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "crewai-1.15.30"
# crewAI 1.15.30, `crewai/translations/en.json` "slices": "summarizer_system_message", the
# opening of "summarize_instruction" (before its conversation), and "summary" around the
# summaries
SUMMARIZER = (
    "You are a precise assistant that creates structured summaries of agent conversations. You"
    " preserve critical context needed for seamless task continuation."
)
INSTRUCTION_OPENING = (
    "Analyze the following conversation and create a structured summary that preserves all"
    " information needed to continue the task seamlessly.\n\n<conversation>\n"
)
SUMMARY_OPENING = "<summary>\n"
SUMMARY_END = (
    "\n</summary>\n\nContinue the task from where the conversation left off. The above is a"
    " structured summary of prior context."
)
# Each summarizer's request, the run's first request it summarizes, the task's words, and
# where they go by the default routes
SUMMARIZED = {
    "summarize.json": (
        "native-tools.json",
        "What is the weather in Paris?\nA one-sentence weather report",
        ("tool_calling", "local"),
    ),
    "summarize-no-system-prompt.json": (
        "no-system-prompt.json",
        "Compute 17 * 23\nThe number",
        ("math", "cloud"),
    ),
    "summarize-kickoff.json": (
        "kickoff-native-tools.json",
        "What is the weather in Paris?",
        ("tool_calling", "local"),
    ),
}
AFTER = ("summarized.json", "summarized-no-system-prompt.json")


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def asked(body: dict[str, Any]) -> str:
    """The text of the request's one user message."""
    (text,) = (m["content"] for m in body["messages"] if m["role"] == "user")
    return str(text)


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def test_the_bodies_are_crewais_summarizer_and_summary() -> None:
    for name, (run, _, _) in SUMMARIZED.items():
        body = captured(name)
        assert body["messages"][0] == {"role": "system", "content": SUMMARIZER}
        assert asked(body).startswith(f"{INSTRUCTION_OPENING}[USER]: ")
        assert body["messages"][0] not in captured(run)["messages"]
    # a later chunk of the conversation: a tool's result, no task in it
    assert asked(captured("summarize-tool-result.json")).startswith(
        f"{INSTRUCTION_OPENING}[TOOL_RESULT (get_weather)]: "
    )
    for name in AFTER:
        text = captured(name)["messages"][-1]["content"]
        assert text.startswith(SUMMARY_OPENING) and text.endswith(SUMMARY_END)


@pytest.mark.parametrize("name", SUMMARIZED)
def test_the_summarizers_request_is_read_by_the_task(proxy: RunningRouter, name: str) -> None:
    _, words, where = SUMMARIZED[name]
    plan = served_as_read(proxy, captured(name), words, where)
    assert plan["classifier"]["rule"] is None


@pytest.mark.parametrize("name", SUMMARIZED)
def test_the_summarizers_request_is_in_the_runs_conversation(
    proxy: RunningRouter, name: str
) -> None:
    """The run's first request and its summarizer's, each served: one conversation in the
    router's records, though the summarizer's system prompt is not the run's."""
    records = Collect()
    proxy.components.gateway.sinks.append(records)
    try:
        keys = []
        for body in (captured(SUMMARIZED[name][0]), captured(name)):
            streamed_headers(proxy, records, body)
            keys.append(records.records[-1].conversation)
    finally:
        proxy.components.gateway.sinks.remove(records)
    assert keys[0] == keys[1] and keys[0] is not None


def test_a_chunk_without_the_task_is_read_as_written(proxy: RunningRouter) -> None:
    """A later chunk of a long conversation (a tool's result) holds no task: read as
    written, keyed as any request is."""
    body = captured("summarize-tool-result.json")
    read = explained(proxy, body)["classifier"]["read"]
    assert read["latest_chars"] == len(clip(asked(body)))
    run = captured("native-tools.json")
    assert conversation_key(body, {}, "c") != conversation_key(run, {}, "c")


@pytest.mark.parametrize("name", AFTER)
def test_the_summary_is_read_without_crewais_words(proxy: RunningRouter, name: str) -> None:
    """After the summary, the summaries (the summarizer's words: the task's only trace left)
    are read, not crewAI's tags and its "Continue the task ..." around them."""
    body = captured(name)
    text = body["messages"][-1]["content"]
    summaries = text[len(SUMMARY_OPENING) : -len(SUMMARY_END)].strip()
    plan = explained(proxy, body)
    read = plan["classifier"]["read"]
    assert (read["latest_chars"], read["latest_cut"]) == (len(summaries), False)
    assert (plan["intent"]["label"], plan["backends"][0]["backend"]) == ("tool_calling", "local")
    assert plan["classifier"]["rule"] is None
    assert served(proxy, body) == ("tool_calling", "local")
