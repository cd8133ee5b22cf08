"""Agent requests that vLLM refuses with a 400, where only OpenAI's or Anthropic's own API
serves them, are made what vLLM takes (or refused in the client's words) before they reach
it. Real sockets: the official SDKs through the router to the `vllm` simulator, which
refuses them as vLLM 0.32 does (tests/simulator/test_simulator_vllm_refusals.py).

Found in review, beside a real vLLM 0.32: Codex's `apply_patch` (a custom tool with a Lark
grammar) sent natively to vLLM's `/v1/responses` ("Custom tools with a grammar format are
not supported"); Claude Code's server tools sent natively to vLLM's `/v1/messages`
(`body.tools.N.input_schema: Field required`); more than 4 `stop_sequences` (a validation
dump naming `body.stop`, a field the client never sent); and a named `tool_choice` of a
server tool, dropped in the translation, sent on alone ("When using `tool_choice`, `tools`
must be set.").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from classifier.intent import INTENTS
from router.config import parse
from router.translate import native_responses
from tests.agent_apis.agent_stack import WEATHER_ASK, WEATHER_TOOLS, anthropic_client
from tests.agent_apis.agent_stack import openai_client as openai_sdk
from tests.harness import Running, RunningRouter, claude_backend, router, simulator

LARK = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF'
APPLY_PATCH: Any = {  # Codex's own, as it sends it (its grammar cut short)
    "type": "custom",
    "name": "apply_patch",
    "description": "Use the `apply_patch` tool to edit files.",
    "format": {"type": "grammar", "syntax": "lark", "definition": LARK},
}
SHELL: Any = {"type": "function", "name": "shell", "parameters": {"type": "object"}}
WEB_SEARCH: Any = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
BASH: Any = {"type": "bash_20250124", "name": "bash"}
FIVE_STOPS = ["\n\nHuman:", "</answer>", "STOP", "END", "###"]


def sent(server: Running) -> dict[str, Any]:
    """The last body `server` was sent."""
    body: dict[str, Any] = server.stats()["last_request"]
    return body


def free_form_patch(server: Running) -> None:
    """The tools `server` was last sent: `shell` as sent, `apply_patch` free-form."""
    shell, patch = sent(server)["tools"]
    assert shell == SHELL
    assert "format" not in patch and (patch["type"], patch["name"]) == ("custom", "apply_patch")
    assert patch["description"].startswith(APPLY_PATCH["description"])
    assert LARK in patch["description"] and "Lark grammar" in patch["description"]


def test_codex_apply_patch_reaches_vllms_responses_free_form(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """vLLM refuses a custom tool's grammar: it gets a free-form tool, told the grammar in
    its description (as a chat backend is), and the other tools as sent."""
    codex = openai_sdk(proxy)
    tools = [SHELL, APPLY_PATCH]
    raw = codex.responses.with_raw_response.create(model="local", input="Edit a.py", tools=tools)
    assert raw.headers["x-smf-backend"] == "local"
    free_form_patch(servers["local"])
    streamed = codex.responses.create(model="local", input="Edit a.py", tools=tools, stream=True)
    assert [e.type for e in streamed][-1] == "response.completed"
    free_form_patch(servers["local"])


def test_claude_codes_server_tools_are_not_offered_to_vllms_messages(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """Only Anthropic runs them; vLLM refused the request for them. Its client tools go as
    sent; none left, no `tools`; a named choice of one of them goes with it."""
    claude = anthropic_client(proxy)
    tools = [WEB_SEARCH, *WEATHER_TOOLS, BASH]
    reply = claude.messages.with_raw_response.create(
        model="local", max_tokens=50, messages=WEATHER_ASK, tools=tools
    )
    assert reply.headers["x-smf-backend"] == "local"
    assert sent(servers["local"])["tools"] == WEATHER_TOOLS
    named: Any = {"type": "tool", "name": "web_search"}
    claude.messages.create(
        model="local", max_tokens=50, messages=WEATHER_ASK, tools=tools, tool_choice=named
    )
    assert "tool_choice" not in sent(servers["local"])
    claude.messages.create(model="local", max_tokens=20, messages=WEATHER_ASK, tools=[WEB_SEARCH])
    assert "tools" not in sent(servers["local"])
    # Anthropic's own API (`apis: [messages]`) gets them as sent
    claude.messages.create(
        model="claude", max_tokens=20, messages=WEATHER_ASK, tools=tools, tool_choice=named
    )
    assert (sent(servers["claude"])["tools"], sent(servers["claude"])["tool_choice"]) == (
        tools,
        named,
    )


def refused_stops(proxy: RunningRouter, model: str, server: Running) -> dict[str, Any]:
    """The Anthropic error body a request with 5 stop sequences gets, `server` never sent it."""
    before = server.completions("/v1/messages") + server.completions()
    with pytest.raises(anthropic.BadRequestError) as refused:
        anthropic_client(proxy).messages.create(
            model=model, max_tokens=20, messages=WEATHER_ASK, stop_sequences=FIVE_STOPS
        )
    assert server.completions("/v1/messages") + server.completions() == before
    assert refused.value.response.headers["x-smf-backend"] == model
    body = refused.value.body
    assert isinstance(body, dict) and body["type"] == "error"
    error: dict[str, Any] = body["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"].startswith("'stop_sequences' holds 5 sequences"), error
    return error


def test_more_stop_sequences_than_vllm_takes_are_refused_naming_them(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """Natively (vLLM's Messages takes 4) and translated to chat (`stop`, 4 at OpenAI and
    vLLM); Anthropic's own API gets them as sent, and 4 go to vLLM."""
    refused_stops(proxy, "local", servers["local"])
    refused_stops(proxy, "cloud", servers["cloud"])
    claude = anthropic_client(proxy)
    claude.messages.create(
        model="claude", max_tokens=20, messages=WEATHER_ASK, stop_sequences=FIVE_STOPS
    )
    assert sent(servers["claude"])["stop_sequences"] == FIVE_STOPS
    claude.messages.create(
        model="local", max_tokens=20, messages=WEATHER_ASK, stop_sequences=FIVE_STOPS[:4]
    )
    assert sent(servers["local"])["stop_sequences"] == FIVE_STOPS[:4]


def test_over_chat_vllm_never_sees_a_stop_list_it_refuses(chat_proxy: RunningRouter) -> None:
    """vLLM's chat refused the translated `stop` in a dump naming `body.stop`."""
    with pytest.raises(anthropic.BadRequestError) as refused:
        anthropic_client(chat_proxy).messages.create(
            model="local", max_tokens=20, messages=WEATHER_ASK, stop_sequences=FIVE_STOPS
        )
    assert "'stop_sequences' holds 5" in str(refused.value)
    assert "body.stop" not in str(refused.value)


@pytest.fixture(scope="module")
def litellm_claude(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[RunningRouter, Running]]:
    """The router on Anthropic behind litellm (chat to the router, Messages on the wire)."""
    with simulator(profile="anthropic", model="claude-sonnet-4-5") as claude:
        config = parse(
            {
                "backends": [claude_backend(claude)],
                "routes": {intent: ["claude"] for intent in INTENTS},
                "ledger": {"path": str(tmp_path_factory.mktemp("stops") / "ledger")},
            }
        )
        with router(config) as running:
            yield running, claude


def test_anthropic_behind_litellm_refuses_them_too(
    litellm_claude: tuple[RunningRouter, Running],
) -> None:
    """litellm keeps the first 4 of chat's `stop`, Anthropic's provider too: the fifth was
    dropped without a word. 4 go whole."""
    proxy, claude = litellm_claude
    refused_stops(proxy, "claude", claude)
    anthropic_client(proxy).messages.create(
        model="claude", max_tokens=20, messages=WEATHER_ASK, stop_sequences=FIVE_STOPS[:4]
    )
    assert sent(claude)["stop_sequences"] == FIVE_STOPS[:4]


@pytest.mark.parametrize("named", ["web_search", "no_such_tool"])
def test_a_named_choice_of_no_tool_sent_is_dropped_over_chat(
    chat_proxy: RunningRouter, chat_sims: dict[str, Running], named: str
) -> None:
    """A server tool is dropped in the translation, and so is a named `tool_choice` of it
    (or of no tool at all): vLLM refused it, alone or beside other tools. A choice of a
    tool sent is kept."""
    claude = anthropic_client(chat_proxy)
    choice: Any = {"type": "tool", "name": named}
    for tools in ([WEB_SEARCH], [WEB_SEARCH, *WEATHER_TOOLS]):
        reply = claude.messages.create(
            model="local", max_tokens=50, messages=WEATHER_ASK, tools=tools, tool_choice=choice
        )
        assert reply.type == "message"
        assert "tool_choice" not in sent(chat_sims["local"])
    kept: Any = {"type": "tool", "name": "get_weather"}
    claude.messages.create(
        model="local", max_tokens=50, messages=WEATHER_ASK, tools=WEATHER_TOOLS, tool_choice=kept
    )
    assert sent(chat_sims["local"])["tool_choice"] == {
        "type": "function",
        "function": {"name": "get_weather"},
    }


def test_openais_own_api_gets_the_grammar_as_sent() -> None:
    """OpenAI enforces the grammar: its API (`api.openai.com`, Azure's) gets the tool whole."""
    body = {"model": "gpt-5", "input": "Edit a.py", "tools": [SHELL, APPLY_PATCH]}
    assert native_responses.for_native(body, openai=True) is body
    assert native_responses.for_native(body, openai=False)["tools"][1]["description"].endswith(
        f"{LARK}\n```"
    )
