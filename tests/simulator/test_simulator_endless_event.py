"""`endless_event`: an upstream that keeps sending bytes and never the blank line ending an
event, bounded by the simulator (`playback.ENDLESS_BYTES`), read raw with httpx."""

from __future__ import annotations

import json

import httpx
import pytest

from router.simulator import SimThread
from router.simulator.playback import ENDLESS, ENDLESS_BYTES

ASK = {"model": "tiny", "messages": [{"role": "user", "content": "Tell me a story"}]}
BODIES = {  # by path: each API's streamed request
    "/v1/chat/completions": ASK | {"stream": True},
    "/v1/messages": ASK | {"stream": True, "max_tokens": 50},
    "/v1/responses": {"model": "tiny", "input": "Tell me a story", "stream": True},
}


def _streamed(sim: SimThread, fault: str, path: str = "/v1/chat/completions") -> bytes:
    """The body as far as it went before the connection closed mid-body."""
    received = bytearray()
    headers = {"x-sim-fault": fault}
    with httpx.stream("POST", sim.url + path, json=BODIES[path], headers=headers) as resp:
        assert resp.status_code == 200
        with pytest.raises(httpx.RemoteProtocolError):  # closed without the body's end
            for piece in resp.iter_raw():
                received += piece
    return bytes(received)


@pytest.mark.parametrize(("fault", "tokens"), [("endless_event", 2), ("endless_event:1", 1)])
def test_endless_event_opens_a_data_line_after_n_tokens_and_never_ends_it(
    vllm: SimThread, fault: str, tokens: int
) -> None:
    body = _streamed(vllm, fault)
    *events, endless = body.split(b"\n\n")
    chunks = [json.loads(event.removeprefix(b"data: ")) for event in events]
    assert [c["choices"][0]["delta"].get("content") is not None for c in chunks].count(True) == (
        tokens + 1  # the role chunk's empty content, then the tokens
    )
    assert endless.startswith(ENDLESS) and len(endless) >= ENDLESS_BYTES
    assert set(endless.removeprefix(ENDLESS)) == {ord("a")}


def test_endless_event_0_opens_it_before_the_first_event_on_every_api(vllm: SimThread) -> None:
    for path in BODIES:
        body = _streamed(vllm, "endless_event:0", path)
        assert body.startswith(ENDLESS) and b"\n" not in body and len(body) >= ENDLESS_BYTES


def test_endless_event_leaves_a_whole_reply_as_it_was(vllm: SimThread) -> None:
    reply = httpx.post(
        vllm.url + "/v1/chat/completions", json=ASK, headers={"x-sim-fault": "endless_event"}
    )
    assert reply.status_code == 200 and reply.json()["choices"][0]["message"]["content"]
