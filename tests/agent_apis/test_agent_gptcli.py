"""gptcli's `dev` runs are a conversation each, keyed by the user's first ask
(`classifier.gptcli`).

gptcli 0.4.3 (pypi `gpt-command-line`) opens every `gpt dev` request with the same system
prompt, user message and "Understood.": read as the first ask, its fixed user message made
every dev run on a machine one ledger conversation, and a math run's cloud pin sent two
later coding runs to the cloud (found in a live review). Real sockets, the official SDK, the
ledger's DuckDB files; the bodies are gptcli's (`tests/fixtures/gpt-command-line-0.4.3.md`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.agent_apis.sticky_stack import sent_rows
from tests.harness import Collect, RunningRouter
from tests.recorded import loader

KEYS = {"gptcli": "sk-gptcli-5c02"}
captured = loader(Path(__file__).parents[1] / "fixtures" / "gpt-command-line-0.4.3")


def sent(name: str, *later: str) -> dict[str, Any]:
    """The recorded body `name` as the SDK sends it unstreamed, each of `later` a user turn
    after a reply (an interactive run's next turns)."""
    body = captured(name)
    body.pop("stream")
    body.pop("stream_options")
    for ask in later:
        body["messages"] += [
            {"role": "assistant", "content": "17% of 2300 is 391."},
            {"role": "user", "content": ask},
        ]
    return body


def rows(proxy: tuple[RunningRouter, Collect], bodies: list[dict[str, Any]]) -> list[Any]:
    """The ledger's row (request_id, conversation, intent, backend) of each of `bodies`,
    sent in order by gptcli's caller."""
    return sent_rows(proxy, KEYS["gptcli"], bodies)


def test_dev_runs_with_different_asks_are_different_conversations(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """The math run, then the CSV and Go runs: three conversations, each coding run read
    coding on its own; a dev run's next turn is its own conversation's."""
    math, csv, go, math_again = rows(
        pinning,
        [
            sent("dev-math.json"),
            sent("dev-csv.json"),
            sent("dev-go.json"),
            sent("dev-math.json", "and 18% of it?"),
        ],
    )
    assert len({math[1], csv[1], go[1]}) == 3
    assert math_again[1] == math[1]
    assert csv[2] == go[2] == "coding"


def test_the_bash_assistant_is_coding(pinning: tuple[RunningRouter, Collect]) -> None:
    """`gpt bash -p "What is 17% of 2300?"`: its reply is a shell command."""
    (row,) = rows(pinning, [sent("bash-percent.json")])
    assert row[2] == "coding"
