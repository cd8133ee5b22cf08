"""A model's refusal is its answer in the ledger too: counted in the usage estimate and kept
as the answer's text, on each API, streamed or whole.

OpenAI's structured outputs refuse in `refusal`, with no `content`. The relay counted only
`content`: a streamed refusal of ~250 characters from an upstream that sends no usage was
recorded as 0 completion tokens, estimated, and the text kept for the shadow comparison was
empty (found in review). Real sockets: the router, a scripted chat upstream, the SDKs.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import orjson
import pytest

from router.request_size import estimate_tokens
from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.agent_apis.chat_chunks import DONE, chunk, sse, whole_reply
from tests.harness import RunningRouter, collected, config_for, router, send_json, upstream

REFUSAL = "I'm sorry, but I can't help with that request because it asks for something unsafe. "
REFUSAL *= 3
ASK = "Write a Python function that reverses a list."


class Refusing(BaseHTTPRequestHandler):
    """A chat upstream that refuses every request, streamed or whole as asked, and sends no
    usage (as a server that ignores `stream_options`): the router must estimate it."""

    def do_POST(self) -> None:
        body = orjson.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        if not body.get("stream"):
            message = {"content": None, "refusal": REFUSAL}
            send_json(self, 200, orjson.dumps(whole_reply(message, "stop")))
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()  # HTTP/1.0: the body ends with the connection
        half = len(REFUSAL) // 2
        pieces = [{"role": "assistant", "refusal": ""}, {"refusal": REFUSAL[:half]}]
        pieces.append({"refusal": REFUSAL[half:]})
        self.wfile.write(sse(*(chunk(p) for p in pieces), chunk({}, "stop")) + DONE)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    tmp: Path = tmp_path_factory.mktemp("refusal")
    ledger = {"path": str(tmp / "ledger"), "flush_interval_s": 0.2, "store_text": True}
    with upstream(Refusing) as local, router(config_for({"local": local}, tmp, ledger=ledger)) as p:
        yield p


def _ask(proxy: RunningRouter, api: str, stream: bool) -> None:
    """One request on `api`, read to its end."""
    ask: Any = [{"role": "user", "content": ASK}]
    if api == "chat":
        chat = openai_client(proxy).chat.completions
        if stream:
            list(chat.create(model="local", messages=ask, stream=True))
        else:
            assert chat.create(model="local", messages=ask).choices[0].message.refusal == REFUSAL
    elif api == "responses":
        responses = openai_client(proxy).responses
        if stream:
            list(responses.create(model="local", input=ask, stream=True))
        else:
            responses.create(model="local", input=ask)
    else:
        messages = anthropic_client(proxy).messages
        if stream:
            with messages.stream(model="local", max_tokens=200, messages=ask) as events:
                events.get_final_message()
        else:
            messages.create(model="local", max_tokens=200, messages=ask)


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("api", ["chat", "responses", "messages"])
def test_a_refusal_is_counted_and_kept_as_the_answer(
    proxy: RunningRouter, api: str, stream: bool
) -> None:
    records = collected(proxy)
    _ask(proxy, api, stream)
    record = records.wait(5)
    assert record.outcome == "ok" and record.usage.estimated
    assert record.usage.completion_tokens == estimate_tokens(len(REFUSAL))
    assert record.completion_text == REFUSAL
