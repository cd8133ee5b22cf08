"""A captured agent's body sent as the agent sends it (the official SDK, not streamed), and
the intent and backend the router's headers name for it: what the tests of an agent's or a
framework's own texts read. Also the two checks those tests make of such a body: read as
its task and served where the task goes, or read as asking nothing and served by default."""

from __future__ import annotations

from typing import Any

import openai

from tests.agent_apis.agent_stack import explained
from tests.harness import RunningRouter


def served(proxy: RunningRouter, body: dict[str, Any]) -> tuple[str, str]:
    """`body` to `/v1/responses` when it holds an `input`, else to chat completions."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    if "input" in body:
        raw: Any = client.responses.with_raw_response.create(**body)
    else:
        raw = client.chat.completions.with_raw_response.create(**body)
    assert raw.http_response.status_code == 200
    raw.parse()
    return raw.headers["x-smf-intent"], raw.headers["x-smf-backend"]


def served_as_read(
    proxy: RunningRouter, body: dict[str, Any], words: str, where: tuple[str, str]
) -> dict[str, Any]:
    """`explain` reads `words` of `body`, whole, as its latest ask and no first ask, and
    plans it `where` (the intent, the first backend); served, it goes there. The plan, for
    what a test checks of it besides."""
    plan = _planned(proxy, body)
    read = plan["classifier"]["read"]
    assert (read["latest_chars"], read["latest_cut"], read["first_chars"]) == (len(words), False, 0)
    assert (plan["intent"]["label"], plan["backends"][0]["backend"]) == where
    assert served(proxy, body) == where
    return plan


def served_by_default(proxy: RunningRouter, body: dict[str, Any]) -> None:
    """`body` holds no ask (`explain` reads nothing of it), so it takes the default route:
    intent `unknown`, served by `local`."""
    plan = _planned(proxy, body)
    read = plan["classifier"]["read"]
    assert (read["latest_chars"], read["first_chars"]) == (0, 0)
    assert (plan["classifier"]["source"], plan["route_reason"]) == ("default", "nothing_read")
    assert served(proxy, body) == ("unknown", "local")


def _planned(proxy: RunningRouter, body: dict[str, Any]) -> dict[str, Any]:
    """What `explain` says of `body`, read as the API `served` sends it to."""
    return explained(proxy, body, "responses" if "input" in body else None)
