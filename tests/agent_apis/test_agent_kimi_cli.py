"""Kimi CLI's requests: its subagents' tools make them a coding agent's session, its
follow-up to a reply too brief is no ask, and its compaction's `tools: []` is served.

Kimi CLI 1.51.0's subagents offer a few of its built-in tools (a `coder` Shell, ReadFile,
Glob, Grep, WriteFile, StrReplaceFile, FetchURL): only Glob and Grep were known, and "explain
what sync_dir does in utils.py" from one was reasoning 0.79, on the cloud. When a
subagent's reply is under 200 characters Kimi CLI asks again with "Your previous response
was too brief. ..." (`classifier.kimi`): read as the ask, that step was writing 0.76-0.89.
Its compaction request sends `"tools": []`, which vLLM refuses (found in a live review).
Its main agent's "add a main guard to haiku.py" was prose 0.989, by "haiku", on the cloud.
The bodies are the ones Kimi CLI sent (`tests/fixtures/kimi-cli-1.51.0.md`); real sockets,
the official SDK, the simulators as backends (a vLLM `local`, the default routes).
"""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path
from typing import Any

import openai
import pytest

from classifier.harness_tools import HARNESS_SEEN, HARNESS_TOOLS
from classifier.kimi import SUMMARY_CONTINUATION
from tests.agent_apis.agent_stack import explained, openai_client
from tests.agent_apis.served import served
from tests.agent_docs import agent_section
from tests.harness import Running, RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "kimi-cli-1.51.0"
TASK = "explain what sync_dir does in utils.py"
FILE_ASK = "add a main guard to haiku.py"
# Its subagents' toolsets, as `kimi_cli/agents/default/*.yaml` give them (a model that reads
# no images gets no ReadMediaFile; SearchWeb needs a search service)
SUBAGENT_TOOLS = {
    "coder": ["Shell", "ReadFile", "Glob", "Grep", "WriteFile", "StrReplaceFile", "FetchURL"],
    "explore": ["Shell", "ReadFile", "Glob", "Grep", "FetchURL"],
    "plan": ["ReadFile", "Glob", "Grep", "FetchURL"],
}


def captured(name: str) -> dict[str, Any]:
    body = dict(json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8")))
    body["stream"] = False  # served whole: the route is the same, and the test reads it whole
    body.pop("stream_options", None)
    return body


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def offering(body: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """`body` offering only the tools it holds of `names` (a subagent of another type)."""
    body = copy.deepcopy(body)
    body["tools"] = [t for t in body["tools"] if t["function"]["name"] in names]
    assert [t["function"]["name"] for t in body["tools"]] == names
    return body


@pytest.mark.parametrize("kind", SUBAGENT_TOOLS)
def test_a_subagents_tools_make_it_a_coding_agents_session(proxy: RunningRouter, kind: str) -> None:
    """The task, unclear to the model, is coding by the agent's session, served locally."""
    body = offering(captured("subagent-first-turn"), SUBAGENT_TOOLS[kind])
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][1]["content"] == TASK
    plan = explained(proxy, body)
    assert plan["intent"]["label"] == "coding"
    assert plan["classifier"]["rule"].startswith("agent_session: an agent's built-in tools")
    assert served(proxy, body) == ("coding", "local")


def test_an_ask_naming_a_source_file_in_its_session_is_coding(proxy: RunningRouter) -> None:
    """Its main agent's third ask, as recorded: the model reads "haiku" (prose), the file
    it names says the agent will edit it (`classifier.source_files`), so it is served
    locally. "write a haiku about snow" in its place names none and stays prose."""
    body = captured("main-agent-file-ask")
    assert body["messages"][-1] == {"role": "user", "content": FILE_ASK}
    plan = explained(proxy, body)
    assert (plan["intent"]["label"], plan["classifier"]["model_intent"]) == ("coding", "prose")
    assert plan["classifier"]["rule"].endswith("and the ask names a source file: haiku.py")
    assert served(proxy, body) == ("coding", "local")
    haiku = {"role": "user", "content": "write a haiku about snow"}
    assert served(proxy, {**body, "messages": [*body["messages"][:-1], haiku]})[0] == "prose"


def test_kimi_clis_tools_are_an_agents_harness() -> None:
    """Every toolset of its agents holds `HARNESS_SEEN` of them, its main agent's all of its
    own (`kimi_cli/agents/default/agent.yaml`), as the names an ask cannot name."""
    main = [
        "Agent", "AskUserQuestion", "SetTodoList", "Shell", "TaskList", "TaskOutput",
        "TaskStop", "ReadFile", "ReadMediaFile", "Glob", "Grep", "WriteFile",
        "StrReplaceFile", "SearchWeb", "FetchURL", "ExitPlanMode", "EnterPlanMode",
    ]  # fmt: skip
    assert set(main) <= HARNESS_TOOLS
    for names in SUBAGENT_TOOLS.values():
        assert sum(name in HARNESS_TOOLS for name in names) >= HARNESS_SEEN


@pytest.mark.parametrize("name", ["subagent-continuation", "responses-continuation"])
def test_the_follow_up_to_a_brief_reply_is_read_as_the_task_before_it(
    proxy: RunningRouter, name: str
) -> None:
    """Chat and Responses alike: the latest ask read is the subagent's task, whole, and the
    step goes where the task went, locally."""
    body = captured(name)
    api = "responses" if "input" in body else None
    items = body["input"] if api else body["messages"]
    last, reply = items[-1], items[-2]
    text = last["content"] if isinstance(last["content"], str) else last["content"][0]["text"]
    assert (last["role"], reply["role"], text) == ("user", "assistant", SUMMARY_CONTINUATION)
    task = items[1]["content"] if not api else items[1]["content"][0]["text"]
    plan = explained(proxy, body, api)
    read = plan["classifier"]["read"]
    assert (read["latest_chars"], read["first_chars"]) == (len(task), 0)
    assert plan["intent"]["label"] == "coding"
    assert served(proxy, body) == ("coding", "local")


def test_the_same_words_of_a_users_own_are_read_as_written(proxy: RunningRouter) -> None:
    """As a conversation's first message (after a greeting of the assistant's too), with
    words of the user's after them, not after a reply (after another user message), or in
    another app's chat: read as they are, the user's."""
    body = captured("subagent-continuation")
    system, task, *_ = body["messages"]
    pasted = {"role": "user", "content": SUMMARY_CONTINUATION}
    greeting = {"role": "assistant", "content": "Hi! What would you like to work on?"}
    typed = SUMMARY_CONTINUATION + "\nAlso list the files you changed."
    cases = [
        ([system, pasted], SUMMARY_CONTINUATION),
        ([system, greeting, pasted], SUMMARY_CONTINUATION),
        ([*body["messages"][:-1], {"role": "user", "content": typed}], typed),
        ([system, task, pasted], SUMMARY_CONTINUATION),
        # after a reply in another app's chat: no Kimi CLI's system prompt (found in review)
        ([{"role": "system", "content": "You are a helpful assistant."}, *body["messages"][1:]],
         SUMMARY_CONTINUATION),
    ]  # fmt: skip
    for messages, words in cases:
        read = explained(proxy, {**body, "messages": messages})["classifier"]["read"]
        assert read["latest_chars"] == len(words), messages[-1]


def test_its_compaction_is_served_on_vllm(
    proxy: RunningRouter, chat_sims: dict[str, Running]
) -> None:
    """Its `tools: []` reaches vLLM as no tools (`router.backends.empty_tools`): the
    compaction, streamed as Kimi CLI streams it, is answered, where vLLM refused every one."""
    body = json.loads((FIXTURES / "compaction.json").read_text(encoding="utf-8"))
    assert body["tools"] == [] and body["stream"] is True
    client = openai_client(proxy)
    with client.chat.completions.with_streaming_response.create(**body) as raw:
        assert raw.headers["x-smf-backend"] == "local"
        assert [c for c in raw.parse() if c.choices and c.choices[0].finish_reason]
    assert "tools" not in chat_sims["local"].stats()["last_request"]
    vllm = openai.OpenAI(base_url=chat_sims["local"].url, api_key="x", max_retries=0)
    as_sent = {k: v for k, v in body.items() if k != "stream_options"}
    with pytest.raises(openai.BadRequestError):  # why: vLLM's own answer to it as sent
        vllm.chat.completions.create(**{**as_sent, "model": "local-model", "stream": False})


def test_the_documented_config_leaves_room_under_its_window() -> None:
    """The settings docs/agents/kimi-cli.md gives: each provider type on the router, and a
    `reserved_context_size` under `max_context_size` (its default 50,000 over a 32,768 window
    compacted before every step, and dropped the ask)."""
    section = agent_section("kimi-cli.md", "Kimi CLI (chat, Responses)")
    blocks = [tomllib.loads(b.split("```", 1)[0]) for b in section.split("```toml")[1:]]
    types = set()
    for config in blocks:
        model = config["models"][config["default_model"]]
        provider = config["providers"][model["provider"]]
        types.add(provider["type"])
        assert provider["base_url"] == "http://localhost:4000/v1" and model["model"] == "auto"
        reserved = config["loop_control"]["reserved_context_size"]
        assert 0 < reserved < model["max_context_size"] // 2
    assert types == {"openai_legacy", "openai_responses", "kimi"}
