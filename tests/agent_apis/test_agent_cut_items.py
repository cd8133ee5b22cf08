"""Output items an answer did not finish, as Codex's API shows them (the official `openai`
SDK against a real router).

A chat answer cut by the output limit (`finish_reason: "length"`) or a content filter
marked every item `completed`, the function call cut mid-JSON too: a client acting on each
`output_item.done` (Codex builds its history from these) ran a half-written call, and only
the final `response.incomplete` said something was wrong. OpenAI marks the item it cut
`incomplete`. A stream that failed midway ended with a `response.failed` whose `output` was
`[]`: the SDK's `responses.stream` rebuilds the output only when it is absent, so it lost
every item streamed (found in review).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import orjson
import pytest

from router.translate import responses_reply, responses_request, responses_whole
from tests.agent_apis.agent_stack import openai_client, stack
from tests.agent_apis.chat_chunks import USAGE, chunk, run
from tests.harness import Running, RunningRouter, config_for, router, upstream

TOOLS: Any = [
    {
        "type": "function",
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
]
TEXT = "Let me check."
WHOLE_CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather"}}
CUT_CALL = {"id": "call_2", "type": "function", "function": {"name": "get_weather"}}
WHOLE_ARGS, CUT_ARGS = '{"city": "Paris"}', '{"city": "Lo'
FAILURE = {"error": {"message": "boom", "type": "server_error", "param": None, "code": None}}
PATCH_TOOLS: Any = [{"type": "custom", "name": "apply_patch"}]
PATCH_CALL = {"id": "call_3", "type": "function", "function": {"name": "apply_patch"}}
# a custom call's arguments as small models write them (no JSON: Python's `\'`, a raw
# newline), by the shape asked for, and the input they give
PATCHES = {
    "quote": ('{"input": "echo don\\\'t"}', "echo don't"),
    "newline": ('{"input": "*** Begin Patch\n*** End Patch"}', "*** Begin Patch\n*** End Patch"),
}


def _call(call: dict[str, Any], arguments: str, **index: int) -> dict[str, Any]:
    return {**call, **index, "function": {**call["function"], "arguments": arguments}}


def _chunks(ask: str) -> list[dict[str, Any]]:
    """The chat stream answering `ask`, "SHAPE:END": text (and with `calls`, a whole call
    then one cut mid-arguments), then the finish reason END, or the in-band `error`."""
    shape, end = ask.split(":")
    out = [chunk({"role": "assistant", "content": ""}), chunk({"content": TEXT})]
    if shape == "calls":
        out.append(chunk({"tool_calls": [_call(WHOLE_CALL, WHOLE_ARGS, index=0)]}))
        out.append(chunk({"tool_calls": [_call(CUT_CALL, CUT_ARGS, index=1)]}))
    if shape in PATCHES:  # in two pieces (the quote's cut in the middle of its escape)
        arguments = PATCHES[shape][0]
        out.append(chunk({"tool_calls": [_call(PATCH_CALL, arguments[:20], index=0)]}))
        out.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments[20:]}}]}))
    if end == "error":
        return [*out, FAILURE]
    return [*out, chunk({}, end), {**chunk({}), "choices": [], "usage": USAGE}]


def _whole(ask: str) -> dict[str, Any]:
    """The whole chat reply with the same answer."""
    shape, end = ask.split(":")
    message: dict[str, Any] = {"role": "assistant", "content": TEXT}
    if shape == "calls":
        message["tool_calls"] = [_call(WHOLE_CALL, WHOLE_ARGS), _call(CUT_CALL, CUT_ARGS)]
    if shape in PATCHES:
        message["tool_calls"] = [_call(PATCH_CALL, PATCHES[shape][0])]
    choice = {"index": 0, "message": message, "finish_reason": end}
    return {**chunk({}), "object": "chat.completion", "choices": [choice], "usage": USAGE}


def _template_refusal(messages: list[dict[str, Any]]) -> bytes | None:
    """vLLM's 400 for an assistant tool call whose arguments are no JSON object: it
    json-parses them for the chat template (`_postprocess_messages` in
    vllm/entrypoints/chat_utils.py), which reads them as a mapping."""
    for message in messages:
        for call in message.get("tool_calls") or ():
            try:
                parsed = json.loads(call["function"]["arguments"] or "{}")
            except ValueError as exc:
                problem = f"{exc} None"
            else:
                if isinstance(parsed, dict):
                    continue
                problem = "Can only get item pairs from a mapping. None"
            error = {"message": problem, "type": "BadRequestError", "param": None, "code": 400}
            return orjson.dumps({"error": error})
    return None


class Scripted(BaseHTTPRequestHandler):
    """A chat backend answering the user's text ("SHAPE:END", see `_chunks`), streamed or
    whole as asked; refusing, as vLLM does, tool calls in the history that its chat
    template cannot read."""

    def do_POST(self) -> None:
        body = orjson.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        ask = str(body["messages"][-1]["content"])
        refusal = _template_refusal(body["messages"])
        if refusal is not None:
            self.send_response(400)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(refusal)))
            self.end_headers()
            self.wfile.write(refusal)
            return
        if body.get("stream"):
            kind = "text/event-stream"
            sent = b"".join(b"data: " + orjson.dumps(c) + b"\n\n" for c in _chunks(ask))
            sent += b"" if ask.endswith(":error") else b"data: [DONE]\n\n"
        else:
            kind, sent = "application/json", orjson.dumps(_whole(ask))
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(sent)))
        self.end_headers()
        self.wfile.write(sent)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    tmp = tmp_path_factory.mktemp("cut")
    with upstream(Scripted) as chat, router(config_for({"local": chat}, tmp)) as running:
        yield running


def _statuses(items: Any) -> list[tuple[str, str | None]]:
    return [(item.type, item.status) for item in items]


CUT_CALLS = [("message", "completed"), ("function_call", "completed")]
CUT_CALLS += [("function_call", "incomplete")]


@pytest.mark.parametrize(
    ("ask", "statuses"),
    [
        ("calls:length", CUT_CALLS),
        ("calls:content_filter", CUT_CALLS),
        ("text:length", [("message", "incomplete")]),
        ("text:content_filter", [("message", "incomplete")]),
        ("calls:tool_calls", [(kind, "completed") for kind, _ in CUT_CALLS]),
    ],
)
def test_the_item_the_answer_was_cut_in_is_incomplete(
    proxy: RunningRouter, ask: str, statuses: list[tuple[str, str]]
) -> None:
    """The cut call, or the text the answer ended in; the text and the whole call before a
    cut call were finished. A cut message keeps its text, as OpenAI's does."""
    client = openai_client(proxy)
    whole = client.responses.create(model="coding", input=ask, tools=TOOLS)
    assert _statuses(whole.output) == statuses
    assert whole.output_text == TEXT
    events = list(client.responses.create(model="coding", input=ask, tools=TOOLS, stream=True))
    done = [e.item for e in events if e.type == "response.output_item.done"]
    assert _statuses(done) == statuses
    if ask.startswith("calls:"):
        assert [getattr(item, "arguments", None) for item in done] == [None, WHOLE_ARGS, CUT_ARGS]
    end = events[-1]
    cut = not ask.endswith(":tool_calls")
    assert end.type == ("response.incomplete" if cut else "response.completed")
    assert _statuses(end.response.output) == statuses


@pytest.mark.parametrize(
    ("cut", "given"),
    [
        ('{"input": "*** Begin Patch\\n*** Upd', "*** Begin Patch\n*** Upd"),
        ('{"input": "a\\tb\\u00e9\\ud83d\\ude00c\\u00', "a\tb\u00e9\U0001f600c"),  # cut escape
        ('{"input": "x\\ud83d', "x"),  # a surrogate pair cut in two: no text yet
        ("*** Begin Patch\n*** Upd", "*** Begin Patch\n*** Upd"),  # no JSON: as it came
    ],
)
def test_a_cut_custom_tool_call_is_incomplete_with_its_input_so_far(cut: str, given: str) -> None:
    """Codex's `apply_patch` (a freeform tool, a one-string function to chat) cut by the
    limit: its input is the JSON string's text as far as it came, not the arguments with
    their `{"input": "` and escapes (as it was), nor those wrapped once more in JSON."""
    call = {"id": "call_9", "type": "function", "function": {"name": "apply_patch"}}
    chunks = [chunk({"tool_calls": [_call(call, cut, index=0)]}), chunk({}, "length")]
    stream = responses_reply.ResponsesStream({"model": "auto"}, frozenset({"apply_patch"}))
    done = next(p for n, p in run(stream, chunks) if n == "response.output_item.done")["item"]
    assert (done["type"], done["status"], done["input"]) == (
        "custom_tool_call",
        "incomplete",
        given,
    )
    message = {"role": "assistant", "tool_calls": [_call(call, cut)]}
    whole = {"id": "c", "choices": [{"index": 0, "message": message, "finish_reason": "length"}]}
    reply = responses_whole.from_chat(whole, {"model": "auto"}, frozenset({"apply_patch"}))
    assert (reply["output"][0]["status"], reply["output"][0]["input"]) == ("incomplete", given)


@pytest.mark.parametrize("ask", ["quote:tool_calls", "newline:tool_calls", "quote:length"])
def test_a_custom_call_with_loose_json_gives_all_its_input(proxy: RunningRouter, ask: str) -> None:
    """Arguments that are no JSON (`{"input": "echo don\\'t"}`) gave, whole, `echo don` as
    if cut at the escape, and with a raw newline the arguments with their `{"input": "`
    wrapping (found in review): the input the model meant, whole or streamed, cut by the
    limit after it or not."""
    shape, end = ask.split(":")
    status = "completed" if end == "tool_calls" else "incomplete"
    client = openai_client(proxy)
    whole = client.responses.create(model="coding", input=ask, tools=PATCH_TOOLS)
    events = list(
        client.responses.create(model="coding", input=ask, tools=PATCH_TOOLS, stream=True)
    )
    done = [e.item for e in events if e.type == "response.output_item.done"]
    given = [e.delta for e in events if e.type == "response.custom_tool_call_input.delta"]
    for call in (whole.output[-1], done[-1], events[-1].response.output[-1]):  # type: ignore[union-attr]
        assert (call.type, call.status) == ("custom_tool_call", status)
        assert call.input == PATCHES[shape][1]  # type: ignore[union-attr]
    assert "".join(given) == PATCHES[shape][1]


def test_a_failed_stream_carries_the_output_streamed_so_far(proxy: RunningRouter) -> None:
    """The items done as they were sent, the call the failure cut `incomplete` with the
    arguments that came: as OpenAI's `response.failed` carries the output so far."""
    statuses = [("message", "completed"), ("function_call", "completed")]
    statuses += [("function_call", "incomplete")]
    with openai_client(proxy).responses.stream(
        model="coding", input="calls:error", tools=TOOLS
    ) as s:
        events = list(s)
        with pytest.raises(RuntimeError, match=r"response\.completed"):
            s.get_final_response()
    failed = events[-1]
    assert failed.type == "response.failed"
    output = failed.response.output
    assert _statuses(output) == statuses
    assert [getattr(item, "arguments", None) for item in output] == [None, WHOLE_ARGS, CUT_ARGS]
    assert output[0].content[0].text == TEXT  # type: ignore[union-attr,index]

    raw = list(
        openai_client(proxy).responses.create(model="coding", input="text:error", stream=True)
    )
    cut = raw[-1].response.output  # type: ignore[union-attr]
    assert _statuses(cut) == [("message", "incomplete")]
    assert cut[0].content[0].text == TEXT  # type: ignore[union-attr,index]


def test_a_cut_call_replayed_next_turn_reaches_the_backend_as_an_object(
    proxy: RunningRouter,
) -> None:
    """Codex sends the items of the last turn back as input. The cut call's arguments
    (`{"city": "Lo`) went to the chat backend as they came, and vLLM, which json-parses them
    for its chat template, refused the turn (and every later one of the conversation): they
    go wrapped, as the Messages translation wraps a model's broken arguments."""
    client = openai_client(proxy)
    cut = client.responses.create(model="coding", input="calls:length", tools=TOOLS)
    assert _statuses(cut.output) == CUT_CALLS
    history: list[Any] = [{"role": "user", "content": "calls:length"}]
    history += [item.model_dump(exclude_none=True) for item in cut.output]
    history += [
        {"type": "function_call_output", "call_id": call_id, "output": "sunny"}
        for call_id in ("call_1", "call_2")
    ]
    history.append({"role": "user", "content": "text:stop"})
    replied = client.responses.create(model="coding", input=history, tools=TOOLS)
    assert replied.status == "completed" and replied.output_text == TEXT
    calls = responses_request.to_chat({"model": "coding", "input": history})["messages"][1]
    assert [c["function"]["arguments"] for c in calls["tool_calls"]] == [
        WHOLE_ARGS,
        orjson.dumps({"_raw_arguments": CUT_ARGS}).decode(),
    ]


def test_the_sdk_final_response_depends_on_the_backend_for_a_cut_answer(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """docs/agents/errors.md: a reply cut at `max_output_tokens` ends `response.incomplete` on a
    translated backend (as on OpenAI's API), which `get_final_response` refuses; vLLM's own
    Responses ends it `response.completed` with `status: "incomplete"`."""
    with stack(servers, tmp_path) as proxy:
        ask: Any = {"input": "Tell me about the router.", "max_output_tokens": 3}
        refused = pytest.raises(RuntimeError, match=r"Didn't receive a `response\.completed`")
        with openai_client(proxy).responses.stream(model="cloud", **ask) as translated, refused:
            translated.get_final_response()
        with openai_client(proxy).responses.stream(model="local", **ask) as native:
            final = native.get_final_response()
        assert final.status == "incomplete" and final.incomplete_details is not None
        assert final.incomplete_details.reason == "max_output_tokens"


def test_a_native_responses_stream_that_fails_carries_its_output_too(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """vLLM's own Responses stream failing in-band after three tokens: the router's
    `response.failed` holds the message begun, with the text that came."""
    servers["local"].control("faults", {"fault": "error_event:3"})
    try:
        with stack(servers, tmp_path) as proxy:
            ask = "Tell me about the router."
            events = list(
                openai_client(proxy).responses.create(model="local", input=ask, stream=True)
            )
    finally:
        servers["local"].control("faults", {"fault": None})
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text and events[-1].type == "response.failed"
    output = events[-1].response.output
    assert _statuses(output) == [("message", "incomplete")]
    assert output[0].content[0].text == text  # type: ignore[union-attr,index]
