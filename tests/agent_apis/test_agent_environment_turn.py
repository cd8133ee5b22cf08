"""Claude Code 2.1.332's environment turn is no ask: served, explained and classified offline.

Claude Code 2.1.332 sends, on every request, a Messages system turn right after the first
user message: its environment ("# Environment\\nYou have been invoked in the following
environment: …", the working directory, the platform, the model, today's date; 840
characters). The router knew only 2.1.197's system turns (its agents' and skills' list), so
the classifier read this one as the latest ask: "Write a haiku about autumn leaves." was
coding 0.95 and served locally, not prose 0.999 in the cloud (found in a live drift review).
The bodies are the first ones Claude Code sent for a haiku, a sum and a fix, trimmed
(`tests/fixtures/claude-code-2.1.332.md`); real sockets, the simulators as backends.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from router.conversation import conversation_key, prompt_text
from router.translate.view import chat_view
from tests.agent_apis.test_agent_system_turn import classified, explained, served
from tests.harness import Running, RunningRouter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "claude-code-2.1.332"
ASKS = {  # each captured body, and the ask the user typed in it
    "prose": "Write a haiku about autumn leaves.",
    "math": "What is 17 * 23 + 4? Answer with the number.",
    "code": "Fix the bug in calc.py so add returns the sum, then run "
    "python3 -c 'import calc; print(calc.add(2,3))'",
}
ENVIRONMENT = "# Environment\nYou have been invoked in the following environment: \n"
# Its other turns of 2.1.332, worded as its binary words them: the changes to its
# environment, and the list of its deferred tools (before its environment, in some runs)
UPDATE = "# Environment update\n - Primary working directory: /srv/app (was /srv/old)"
DEFERRED = (
    "The following deferred tools are now available via ToolSearch. Their schemas are NOT"
    " loaded \u2014 calling them directly will fail with InputValidationError. Use ToolSearch"
    ' with query "select:<name>[,<name>...]" to load tool schemas before calling them:\n'
    "WebFetch\nWebSearch\n\n"
)


def first_turn(name: str, system_turn: bool = True) -> dict[str, Any]:
    """Claude Code's first request for `name`'s ask, with or without its environment turn
    (the second turn)."""
    body: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    assert body["messages"][0]["content"][-1]["text"] == ASKS[name]
    assert body["messages"][1]["content"][0]["text"].startswith(ENVIRONMENT)
    if not system_turn:
        del body["messages"][1]
    return body


@pytest.mark.parametrize("name", ASKS)
def test_the_environment_turn_is_left_out_of_the_view(name: str) -> None:
    """The view, the ledger's prompt text and the conversation key are those of the body
    without the turn: the user's words, not the environment (the ledger stored the 840
    characters as the prompt)."""
    view, alone = (
        chat_view("messages", first_turn(name)),
        chat_view("messages", first_turn(name, False)),
    )
    assert view["messages"] == alone["messages"]
    assert prompt_text(view).endswith(f"\n{ASKS[name]}")
    assert conversation_key(view, {}, "c") == conversation_key(alone, {}, "c")


@pytest.mark.parametrize("name", ASKS)
def test_classify_reads_the_users_words(tmp_path: Path, name: str) -> None:
    """`smf-router classify --body FILE --api messages`, as a user checks a captured body:
    read as the body without the turn, by the ask's characters."""
    (tmp_path / "alone.json").write_text(json.dumps(first_turn(name, False)), encoding="utf-8")
    read = classified(tmp_path, FIXTURES / f"{name}.json")
    plain = classified(tmp_path, tmp_path / "alone.json")
    assert read["classifier"]["read"]["latest_chars"] == len(ASKS[name])
    assert read["intent"] == plain["intent"]
    if name == "prose":
        assert read["intent"]["label"] == "prose"


@pytest.mark.parametrize("name", ASKS)
def test_served_by_the_users_words(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running], name: str
) -> None:
    """Served through the official SDK and explained, the turn is classified as it is
    without the environment turn; the haiku is prose, as it was not."""
    body, alone = first_turn(name), first_turn(name, False)
    plan, plain = explained(chat_proxy, body), explained(chat_proxy, alone)
    assert plan["intent"] == plain["intent"]
    assert plan["classifier"] == plain["classifier"]
    assert plan["classifier"]["read"]["latest_chars"] == len(ASKS[name])
    intent = served(chat_proxy, body)["x-smf-intent"]
    assert intent == plain["intent"]["label"]
    if name == "prose":
        assert intent == "prose"


@pytest.mark.parametrize("opening", [UPDATE, DEFERRED + ENVIRONMENT + " - Platform: linux"])
def test_its_environment_update_and_deferred_tools_turns_are_left_out(opening: str) -> None:
    """The changes to its environment ("# Environment update") and its deferred tools' list
    (with its environment after it, as 2.1.332 sent it in a live run) are its own turns
    too, as a string or in a text block."""
    body, alone = first_turn("prose"), chat_view("messages", first_turn("prose", False))
    for content in (opening, [{"type": "text", "text": opening}]):
        sent = copy.deepcopy(body)
        sent["messages"][1] = {"role": "system", "content": content}
        assert chat_view("messages", sent)["messages"] == alone["messages"]
