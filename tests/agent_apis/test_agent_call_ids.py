"""A chat backend's tool call as Codex gets it over the Responses API: named, and under an
id of its own, whichever fragment the upstream sent the name and id in.

The call's id and name were read from its first chat fragment only: a name that came in a
later one gave a `function_call` named "" (Codex cannot dispatch it), and a call without
an id was `call_0` in every turn, so a Codex history held the same call id again and again
(found in review). The chat API passes the upstream's fragments through as they came.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import orjson
import pytest
from openai import OpenAI

from router.translate.responses_reply import ResponsesStream
from router.translate.tool_ids import ToolIds, history_ids
from tests.agent_apis.agent_stack import openai_client
from tests.agent_apis.chat_chunks import DONE, USAGE, chunk, run, sse
from tests.agent_apis.scripted_chat import ASK, routed
from tests.harness import Running, config_for, router, upstream

TOOLS: Any = [
    {
        "type": "function",
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
]
ARGUMENTS = '{"city": "Paris"}'


def fragment(**fields: Any) -> dict[str, Any]:
    """A chunk with one piece of call 0: `id`, and `name` and `arguments` of its function."""
    function = {k: fields.pop(k) for k in ("name", "arguments") if k in fields}
    return chunk({"tool_calls": [{"index": 0, "type": "function", "function": function, **fields}]})


# the name in the second fragment, with the arguments; no id at all
NAMED_LATE = sse(
    chunk({"role": "assistant", "content": ""}),
    fragment(arguments=""),
    fragment(name="get_weather", arguments=ARGUMENTS),
    chunk({}, "tool_calls"),
    {**chunk({}), "choices": [], "usage": USAGE},
)


def test_a_call_named_in_a_later_fragment_reaches_codex_named_under_an_id_of_its_own(
    tmp_path: Path,
) -> None:
    """Two turns of the same answer: each call is named in every event that carries it,
    and their ids differ (both were `call_0`, the calls named "")."""
    calls = []
    with routed(tmp_path, NAMED_LATE + DONE) as (proxy, _):
        for _ in range(2):
            with openai_client(proxy).responses.stream(
                model="coding", input=ASK, tools=TOOLS
            ) as stream:
                events = list(stream)
                final = stream.get_final_response()
            [added] = [e.item for e in events if e.type == "response.output_item.added"]  # type: ignore[union-attr]
            [done] = [e.item for e in events if e.type == "response.output_item.done"]  # type: ignore[union-attr]
            [call] = final.output
            assert call.type == "function_call" and call.arguments == ARGUMENTS
            assert [added.name, done.name, call.name] == ["get_weather"] * 3  # type: ignore[union-attr]
            assert added.call_id == done.call_id == call.call_id  # type: ignore[union-attr]
            calls.append(call.call_id)
    assert all(c.startswith("call_") and c != "call_0" for c in calls)
    assert calls[0] != calls[1]


def test_a_whole_replys_calls_without_ids_get_ids_of_their_own(tmp_path: Path) -> None:
    """The non-streamed reply: its calls were `call_0`, `call_1` in every turn."""
    call = {"type": "function", "function": {"name": "get_weather", "arguments": ARGUMENTS}}
    message = {"role": "assistant", "content": None, "tool_calls": [call, call]}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    whole = {"id": "c", "object": "chat.completion", "model": "m", "choices": [choice]}
    with routed(tmp_path, orjson.dumps(whole | {"usage": USAGE}), whole=True) as (proxy, _):
        turns = [
            openai_client(proxy).responses.create(model="coding", input=ASK, tools=TOOLS)
            for _ in range(2)
        ]
    ids = [item.call_id for turn in turns for item in turn.output]  # type: ignore[union-attr]
    assert len(ids) == 4 and len(set(ids)) == 4
    assert all(i.startswith("call_") and i not in ("call_0", "call_1") for i in ids)


def items(events: list[tuple[str, dict[str, Any]]], name: str) -> list[dict[str, Any]]:
    return [payload["item"] for kind, payload in events if kind == name]


def test_a_name_after_the_arguments_began_fills_the_done_call() -> None:
    """The call went out at its first argument piece, nameless: its done item and the
    final response carry the name that came after. The id a later fragment gave before
    that is the upstream's."""
    said = run(
        ResponsesStream({}),
        [
            fragment(arguments=""),
            fragment(id="call_up", arguments='{"city": '),
            fragment(name="get_weather", arguments='"Paris"}'),
            chunk({}, "tool_calls"),
        ],
    )
    [added] = items(said, "response.output_item.added")
    [done] = items(said, "response.output_item.done")
    [final] = said[-1][1]["response"]["output"]
    assert added["name"] == ""
    assert done["name"] == final["name"] == "get_weather"
    assert added["call_id"] == done["call_id"] == final["call_id"] == "call_up"
    assert done["arguments"] == ARGUMENTS


def test_an_id_and_name_once_given_stay() -> None:
    """Some upstreams send another id on later fragments of one call, or the name again on
    each: the first given stays (the `openai` SDK refuses a done item under another id)."""
    said = run(
        ResponsesStream({}),
        [
            fragment(id="call_a", name="get_weather", arguments=""),
            fragment(id="call_b", name="other", arguments=ARGUMENTS),
            chunk({}, "tool_calls"),
        ],
    )
    [added] = items(said, "response.output_item.added")
    [done] = items(said, "response.output_item.done")
    assert (added["call_id"], added["name"]) == (done["call_id"], done["name"])
    assert (done["call_id"], done["name"]) == ("call_a", "get_weather")


def test_calls_of_one_reply_under_one_id_reach_codex_apart(tmp_path: Path) -> None:
    """A backend that gives each of a reply's calls the same id (`call_0`): Codex got two
    calls under one id, and answers each call by its id. The second now carries the
    reply's random part, as on Messages (`router.translate.tool_ids`), whole and streamed."""
    call = {"id": "call_0", "type": "function", "function": {"name": "get_weather"}}
    whole_call = {**call, "function": {"name": "get_weather", "arguments": ARGUMENTS}}
    message = {"role": "assistant", "content": None, "tool_calls": [whole_call, whole_call]}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    whole = {"id": "c", "object": "chat.completion", "model": "m", "choices": [choice]}
    with routed(tmp_path, orjson.dumps(whole | {"usage": USAGE}), whole=True) as (proxy, _):
        reply = openai_client(proxy).responses.create(model="coding", input=ASK, tools=TOOLS)
    whole_ids = [item.call_id for item in reply.output]  # type: ignore[union-attr]
    said = run(
        ResponsesStream({}),
        [
            chunk({"tool_calls": [{**call, "index": 0, "function": {**call["function"]}}]}),
            chunk({"tool_calls": [{**call, "index": 1, "function": {**call["function"]}}]}),
            chunk({}, "tool_calls"),
        ],
    )
    streamed_ids = [item["call_id"] for item in items(said, "response.output_item.done")]
    for ids in (whole_ids, streamed_ids):
        assert len(ids) == 2 and ids[0] == "call_0"
        assert ids[1] != "call_0" and ids[1].startswith("call_0_")


# a backend that numbers its calls per reply (some vLLM tool parsers, Ollama): `call_0`
CALL_ZERO = {
    "id": "call_0",
    "type": "function",
    "function": {"name": "get_weather", "arguments": ARGUMENTS},
}


@contextmanager
def numbering_per_reply() -> Iterator[tuple[Running, list[dict[str, Any]]]]:
    """A chat upstream answering every request, streamed or whole as asked, with one call
    under `CALL_ZERO`'s id; and the chat bodies it was sent, in order."""
    sent: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = orjson.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            sent.append(body)
            if body.get("stream"):
                kind = "text/event-stream"
                first = chunk({"role": "assistant", "content": None})
                calls = chunk({"tool_calls": [{**CALL_ZERO, "index": 0}]})
                usage = {**chunk({}), "choices": [], "usage": USAGE}
                answer = sse(first, calls, chunk({}, "tool_calls"), usage) + DONE
            else:
                kind = "application/json"
                message = {"role": "assistant", "content": None, "tool_calls": [CALL_ZERO]}
                choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
                whole = {"id": "c", "object": "chat.completion", "model": "m"}
                answer = orjson.dumps(whole | {"choices": [choice], "usage": USAGE})
            self.send_response(200)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: object) -> None:
            pass

    with upstream(Handler) as server:
        yield server, sent


def codex_turn(client: OpenAI, history: list[dict[str, Any]], stream: bool) -> Any:
    """The one function call of a Responses answer to `history`, streamed or whole."""
    if stream:
        events: list[Any] = list(
            client.responses.create(model="coding", input=history, tools=TOOLS, stream=True)  # type: ignore[arg-type]
        )
        assert events[-1].type == "response.completed"
        [done] = [e.item for e in events if e.type == "response.output_item.done"]
        [call] = events[-1].response.output
        assert done.call_id == call.call_id
    else:
        [call] = client.responses.create(model="coding", input=history, tools=TOOLS).output  # type: ignore[arg-type]
    assert call.type == "function_call"
    return call


@pytest.mark.parametrize("stream", [True, False])
def test_a_call_id_codexs_history_holds_reaches_it_as_another(tmp_path: Path, stream: bool) -> None:
    """The backend answers `call_0` in every turn: Codex got `call_0` in turn 1 and 2, then
    sent both calls and both outputs under one id, which the chat backend got as duplicate
    tool_call ids (an output paired with the wrong call). An id the input items hold
    already now gets the reply's random part, as on Messages (`router.translate.tool_ids`);
    the history goes to the chat backend under the ids Codex sent, each call and its
    output alike, turn after turn."""
    history: list[dict[str, Any]] = list(ASK)
    given: list[str] = []
    with (
        numbering_per_reply() as (chat, sent),
        router(config_for({"local": chat}, tmp_path)) as proxy,
    ):
        for _ in range(3):
            call = codex_turn(openai_client(proxy), history, stream)
            given.append(call.call_id)
            history += [
                {
                    "type": "function_call",
                    "id": call.id,
                    "call_id": call.call_id,
                    "name": call.name,
                    "arguments": call.arguments,
                },
                {"type": "function_call_output", "call_id": call.call_id, "output": "18C"},
            ]
    assert given[0] == "call_0"  # nothing to step past in the first turn: as given
    assert len(set(given)) == 3 and all(i.startswith("call_0_") for i in given[1:])
    for turn, body in enumerate(sent):
        calls = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or ()]
        outputs = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
        assert calls == outputs == given[:turn]


def test_the_ids_a_responses_history_holds_are_its_calls_and_their_outputs() -> None:
    """Function and custom tool calls, and an output whose call is no longer in the input
    (it pairs, on the chat backend, with any call of its id); not a message's id."""
    request = {
        "input": [
            {"role": "user", "content": "hi", "id": "msg_1"},
            {"type": "function_call", "call_id": "call_a", "name": "f", "arguments": "{}"},
            {"type": "custom_tool_call", "call_id": "call_b", "name": "apply_patch", "input": ""},
            {"type": "custom_tool_call_output", "call_id": "call_b", "output": "done"},
            {"type": "function_call_output", "call_id": "call_c", "output": "18C"},
        ]
    }
    assert history_ids(request) == {"call_a", "call_b", "call_c"}
    ids = ToolIds(part="p", request=request, prefix="call")
    given = [ids.id(upstream, n) for n, upstream in enumerate(("call_a", "call_c", "call_d"))]
    assert given == ["call_a_p_0", "call_c_p_1", "call_d"]
