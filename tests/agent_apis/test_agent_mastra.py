"""Mastra's working memory keeps a conversation one conversation, and its guard processors'
checks are read by the text they check (`classifier.mastra`).

Mastra (@mastra/core 1.71.0, @mastra/memory 1.31.0) sends its working memory in a system
message of its own, the data the model stored between `<working_memory_data>` tags: after
the model stored "My name is Zed24477. Compute 17" the next turn's key changed, and the
chat, pinned to the cloud by its math turn, went local with its coding turn. Its guard
processors check each message in requests of their own, the text quoted inside a fixed
prompt: read whole, the injection check of "Compute 17 * 23" was tool_calling 0.46 (local)
where its turn went to the cloud as math (found in a review of agent frameworks). The
bodies are the ones it sent (`tests/fixtures/mastra-1.71.0.md`); real sockets, the official
SDK, the simulators as backends.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from classifier.mastra import DATA_CLOSING, DATA_OPENING, GUARDS, WORKING_MEMORY
from router.conversation import conversation_key
from router.translate.view import chat_view
from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.agent_apis.sticky_stack import sticky_router
from tests.harness import Collect, Running, RunningRouter, config_for
from tests.resilience.conftest import FAST, until

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mastra-1.71.0"
STORED = "My name is Zed24477. Compute 17"  # what the model stored after the first turn
# Each task the guards checked, as its turn asked it
TASKS = {"math": "Compute 17 * 23", "haiku": "Write a haiku about autumn leaves"}
KINDS = ("moderation", "injection", "pii", "language")


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def data(system: str) -> str:
    """The working memory's data in Mastra's system message."""
    start = system.index(DATA_OPENING) + len(DATA_OPENING)
    return system[start : system.index(DATA_CLOSING, start)]


def with_data(system: str, stored: str) -> str:
    """`system` as Mastra sends it once the model stored `stored`."""
    return system.replace(
        f"{DATA_OPENING}{data(system)}{DATA_CLOSING}", f"{DATA_OPENING}{stored}{DATA_CLOSING}"
    )


def test_the_bodies_are_mastras() -> None:
    first, tool_step, second = (captured(f"working-memory-{n}.json") for n in (1, 2, 3))
    for body in (first, tool_step, second):  # the agent's instructions, then Mastra's message
        assert [m["role"] for m in body["messages"][:2]] == ["system", "system"]
        assert body["messages"][1]["content"].startswith(WORKING_MEMORY)
    assert data(first["messages"][1]["content"]) == data(tool_step["messages"][1]["content"])
    assert data(first["messages"][1]["content"]) == "null"
    assert data(second["messages"][1]["content"]) == STORED
    # over Responses, the same message as an input item of its own
    system = captured("working-memory-responses.json")["input"][1]
    assert system["role"] == "system" and system["content"].startswith(WORKING_MEMORY)
    for kind in KINDS:
        for task in TASKS:
            messages = captured(f"guard-{kind}-{task}.json")["messages"]
            assert [m["role"] for m in messages] == ["system", "user"]
            assert any(messages[0]["content"].startswith(g[0]) for g in GUARDS)
            assert f'"{TASKS[task]}"' in messages[1]["content"] != TASKS[task]


@pytest.fixture(scope="module")
def sticky(
    chat_sims: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningRouter, Collect]]:
    """The router over a vLLM `local` and a `cloud`, the default routes, conversations
    pinned to the backend that served them (`resilience`)."""
    config = config_for(chat_sims, tmp_path_factory.mktemp("mastra"), resilience=FAST)
    with sticky_router(config) as running:
        yield running


def pinned(proxy: tuple[RunningRouter, Collect], body: dict[str, Any]) -> tuple[str, str, Any]:
    """The intent and backend that served `body` (chat, or Responses when it holds an
    `input`), once its record finished (its conversation pinned), and the record."""
    running, collect = proxy
    finished = len(collect.records)
    intent, backend = served(running, copy.deepcopy(body))
    until(lambda: len(collect.records) > finished, what="the record finished")
    return intent, backend, collect.records[-1]


def test_a_working_memory_update_keeps_the_conversation_and_its_pin(
    sticky: tuple[RunningRouter, Collect],
) -> None:
    """The first turn (math) and its tool step go to the cloud, the conversation pinned
    there; the second turn (coding, local first) comes after the model stored what it
    learnt, and stays on the cloud, one conversation."""
    records = []
    for n, intent in ((1, "math"), (2, "math"), (3, "coding")):
        label, backend, record = pinned(sticky, captured(f"working-memory-{n}.json"))
        assert (label, backend) == (intent, "cloud")
        records.append(record)
    assert len({r.conversation for r in records}) == 1


def test_a_working_memory_update_over_responses_keeps_the_pin(
    sticky: tuple[RunningRouter, Collect],
) -> None:
    """Over Responses the router's chat view joins Mastra's message to the agent's
    instructions: its data is left out there too. The second turn is sent whole (as with
    `store: false`), the memory updated."""
    first = captured("working-memory-responses.json")
    second = copy.deepcopy(first)
    second["input"][1]["content"] = with_data(first["input"][1]["content"], STORED)
    second["input"] += [
        {"role": "assistant", "content": [{"type": "output_text", "text": "391."}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": "Now write a Python function that multiplies two numbers",
                }
            ],
        },
    ]
    assert chat_view("responses", second)["messages"][0]["content"].count(WORKING_MEMORY) == 1
    label, backend, before = pinned(sticky, first)
    assert (label, backend) == ("math", "cloud")
    label, backend, after = pinned(sticky, second)
    assert (label, backend) == ("coding", "cloud")
    assert after.conversation == before.conversation


def test_the_rest_of_the_prompt_still_keys() -> None:
    """Only the data is left out, and only in Mastra's message: another template is
    another conversation, and another prompt's tags of the same name are keyed as sent."""
    body = captured("working-memory-1.json")
    system = body["messages"][1]["content"]
    updated = {**body, "messages": [*body["messages"]]}
    updated["messages"][1] = {"role": "system", "content": with_data(system, STORED)}
    assert conversation_key(body, {}, "c") == conversation_key(updated, {}, "c")
    template = system.replace("- **Location**: \n", "- **Pets**: \n")
    assert template != system
    other_template = {**body, "messages": [*body["messages"]]}
    other_template["messages"][1] = {"role": "system", "content": template}
    assert conversation_key(body, {}, "c") != conversation_key(other_template, {}, "c")
    mine = system.replace(WORKING_MEMORY, "MY_OWN_NOTES")  # not Mastra's: the same tags
    keys = set()
    for stored in ("null", STORED):
        body["messages"][1] = {"role": "system", "content": with_data(mine, stored)}
        keys.add(conversation_key(body, {}, "c"))
    assert len(keys) == 2


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("kind", KINDS)
def test_a_guards_check_goes_where_its_turn_goes(
    default_proxy: RunningRouter, kind: str, task: str
) -> None:
    """Each check is read by the text it checks, not the guard's prompt around it: the
    intent and backend of the turn it checks."""
    body = captured(f"guard-{kind}-{task}.json")
    plan = explained(default_proxy, body)
    read = plan["classifier"]["read"]
    assert (read["latest_chars"], read["latest_cut"], read["first_chars"]) == (
        len(TASKS[task]),
        False,
        0,
    )
    assert plan["classifier"]["rule"] is None
    turn = served(default_proxy, captured(f"turn-{task}.json"))
    assert served(default_proxy, body) == turn
    assert turn == {"math": ("math", "cloud"), "haiku": ("prose", "cloud")}[task]


def test_a_guards_prompt_typed_elsewhere_is_read_as_written(default_proxy: RunningRouter) -> None:
    """The guard's prompt under another system prompt (or none) is a user's, read whole."""
    body = captured("guard-injection-math.json")
    typed = body["messages"][1]["content"]
    for messages in (
        [{"role": "system", "content": "You are a helpful assistant."}, body["messages"][1]],
        [body["messages"][1]],
    ):
        read = explained(default_proxy, {**body, "messages": messages})["classifier"]["read"]
        assert read["latest_chars"] == len(typed)
