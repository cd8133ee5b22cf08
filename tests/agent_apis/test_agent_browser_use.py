"""A browser-use run is one conversation on one backend, each step tool_calling whatever page
it shows, its side calls read by their task or query (`classifier.browser_use`).

Found running browser-use 0.13.14 against the router: its agent rebuilds its one user
message every step, the page's elements and the history in it, so the page decided the
intent ("Open the article, then find the cheapest item in the shop" was writing 0.39 on the
article's page, on the cloud, and coding on its last step), its nudges ("BUDGET WARNING:
...") were read as the ask, and a 5-step run was 9 conversations in the ledger. The bodies
are the ones it sent (`tests/fixtures/browser-use-0.13.14.md`); real sockets, the official
SDK, a real DuckDB ledger, the simulators as backends. Each run is sent by a caller of its
own: a conversation is scoped by the caller's key, and no test's pin holds another's.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier.rules import BROWSER_COMPACTION, BROWSER_STEP
from tests import recorded
from tests.agent_apis.agent_stack import explained
from tests.agent_apis.served import served
from tests.agent_apis.sticky_stack import ledger_rows, pinned_headers
from tests.harness import Collect, RunningRouter

FIXTURES = recorded.FIXTURES / "browser-use-0.13.14"
SHOP = "Find the cheapest item on http://127.0.0.1:8822/ and tell me its price"
ARTICLE = (
    "Open http://127.0.0.1:8822/article.html, then go to the shop and find the cheapest item"
    " and its price"
)
# Each run's requests in the order sent, and its task
RUNS = {
    "article": (("step-article-1", "step-article-budget", "step-article-retry"), ARTICLE),
    "shop": (("step-shop", "judge-shop"), SHOP),
}
KEYS = {name: f"sk-browser-use-{name}-41d7" for name in RUNS}


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / f"{name}.json")


@pytest.mark.parametrize("run", RUNS)
def test_a_run_is_one_conversation_on_one_backend(
    pinning: tuple[RunningRouter, Collect], run: str
) -> None:
    """Its steps (after a nudge too) and its judge: one conversation in the ledger, each
    request tool_calling and served locally."""
    names, _ = RUNS[run]
    headers = [pinned_headers(pinning, KEYS[run], captured(name)) for name in names]
    assert [h["x-smf-intent"] for h in headers] == ["tool_calling"] * len(names)
    rows = ledger_rows(pinning[0], [h["x-request-id"] for h in headers])
    assert len(rows) == len(names) and rows[0][1] is not None
    assert {row[1] for row in rows} == {rows[0][1]}
    assert {row[2:] for row in rows} == {("tool_calling", "local")}


@pytest.mark.parametrize("name", ["step-article-1", "step-article-retry", "step-shop"])
def test_a_step_is_read_by_its_task_and_picks_tools(
    default_proxy: RunningRouter, name: str
) -> None:
    """`explain` reads the task alone, neither the page nor the nudges, and the rule of an
    agent step decides."""
    task = ARTICLE if name.startswith("step-article") else SHOP
    why = explained(default_proxy, captured(name))["classifier"]
    assert (why["read"]["latest_chars"], why["read"]["first_chars"]) == (len(task), 0)
    assert (why["source"], why["rule"]) == ("rule", BROWSER_STEP)
    assert served(default_proxy, captured(name)) == ("tool_calling", "local")


def test_an_extraction_goes_where_its_query_alone_goes(default_proxy: RunningRouter) -> None:
    body = captured("extract-structured")
    query = "<user_request> List every item and price"
    alone = {"model": "auto", "messages": [{"role": "user", "content": query}]}
    assert explained(default_proxy, body)["classifier"]["read"]["latest_chars"] == len(query)
    # the backend: its system prompt, a weak signal, may move the label within the route
    assert served(default_proxy, body)[1] == served(default_proxy, alone)[1] == "local"


def test_the_compaction_is_its_agents_work(default_proxy: RunningRouter) -> None:
    """No ask: read as the agent's steps are, tool_calling, served locally."""
    why = explained(default_proxy, captured("compaction"))["classifier"]
    assert (why["read"]["latest_chars"], why["rule"]) == (0, BROWSER_COMPACTION)
    assert served(default_proxy, captured("compaction")) == ("tool_calling", "local")
