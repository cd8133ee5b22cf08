"""grok-cli's xAI `search_parameters: {"mode": "off"}` reaches no backend.

grok-cli (`@vibe-kit/grok-cli` 0.0.34, openai JS 5.23.2) sends it on every request, with
`tools`, `tool_choice: "auto"`, `temperature: 0.7` and `max_tokens: 1536` (recorded in a live
review). The router passed it on: OpenAI refuses an argument it does not know with a 400
("Unrecognized request argument supplied: search_parameters"), so every ask routed to an
OpenAI cloud failed. Mode "off" asks for no search, so it goes
(`router.backends.search_off`); a search asked for goes as sent, for xAI to serve. Real
sockets: the official SDK through the router to the simulators, each of which keeps the
last body it was sent (`keep_requests`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest

from router.backends.openai_compatible import OpenAICompatibleBackend
from router.config import Backend
from tests.agent_apis.agent_stack import answered, last_request, openai_client, stack
from tests.harness import Running

ASK: Any = [{"role": "user", "content": "Fix the typo in README.md"}]
TOOL: Any = {
    "type": "function",
    "function": {
        "name": "view_file",
        "description": "View a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}
# What grok-cli sends beside the conversation, as recorded
GROK: dict[str, Any] = {"tools": [TOOL], "tool_choice": "auto", "temperature": 0.7}
OFF = {"mode": "off"}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("first", ["cloud", "local"])
def test_search_off_reaches_no_backend(
    servers: dict[str, Running], tmp_path: Path, first: str, stream: bool
) -> None:
    """Whole and streamed (grok-cli's headless and full-screen modes), to the cloud and to
    vLLM: served, and the backend's body has no `search_parameters`; the rest as sent."""
    with stack(servers, tmp_path, [first]) as proxy:
        kwargs: dict[str, Any] = {
            "model": "auto",
            "messages": ASK,
            "max_tokens": 64,
            **GROK,
            "extra_body": {"search_parameters": OFF},
        }
        headers, _ = answered(openai_client(proxy), kwargs, stream=stream)
    assert headers["x-smf-backend"] == first
    body = last_request(servers[first])
    assert "search_parameters" not in body, body
    assert (body["messages"], body["tools"], body["tool_choice"]) == (ASK, [TOOL], "auto")


def test_a_search_asked_for_goes_as_sent(servers: dict[str, Running], tmp_path: Path) -> None:
    """Mode "auto": a search only xAI can serve, not the router's to drop. OpenAI refuses
    it, and the client reads OpenAI's 400 as it was sent (the simulator's cloud served it
    before: the test took that for OpenAI's answer)."""
    search = {"mode": "auto", "max_search_results": 5}
    with (
        stack(servers, tmp_path, ["cloud"]) as proxy,
        pytest.raises(openai.BadRequestError) as refused,
    ):
        openai_client(proxy).chat.completions.create(
            model="auto", messages=ASK, max_tokens=16, extra_body={"search_parameters": search}
        )
    assert last_request(servers["cloud"])["search_parameters"] == search
    message = "Unrecognized request argument supplied: search_parameters"
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    assert refused.value.response.json() == {"error": error}


@pytest.mark.parametrize("api", ["chat", "completions", "responses", "messages"])
def test_every_body_a_backend_is_sent_goes_without_search_off(api: str) -> None:
    """What a backend adapter makes of a body (live attempts, fallbacks and shadow replays
    all go through it), of any API: mode "off" goes, with whatever else it held; a search
    asked for, or a value that is no object, stays."""
    backend = OpenAICompatibleBackend(
        Backend(name="b", tier="cloud", base_url="https://api.openai.com/v1", model="m")
    )
    base = {"model": "auto", "prompt": "hi"}
    for off in (OFF, {"mode": "off", "sources": [{"type": "web"}]}):
        assert backend.body_for(api, {**base, "search_parameters": off}) == {**base, "model": "m"}
    for kept in ({"mode": "on"}, {"mode": "auto"}, {}, "off", None):
        body = {**base, "search_parameters": kept}
        assert backend.body_for(api, body) == {**body, "model": "m"}
