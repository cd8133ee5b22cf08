"""A silent Azure-like backend is judged silent on every API. Azure opens a chat stream with a
choice-less prompt-filter chunk before generating; the Messages and Responses translators
made their openers from it, each counted as work (`router.silence.shows_work`), so clients
giving up on such a backend that then hung never opened its circuit, and every hang-up
marked it alive for everyone (found in re-review). The fake upstream sends that chunk and
hangs; `SILENT_S` patched small stands for 30 s."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import orjson
import pytest

from router import silence
from router.translate.anthropic_reply import MessagesStream
from router.translate.responses_reply import ResponsesStream
from router.translate.tool_ids import ToolIds
from tests.agent_apis.chat_chunks import TEXT_STREAM, run
from tests.canary.servers import router, simulator
from tests.harness import Running, collected, send_json, upstream
from tests.resilience.giving_up import counting, failures_after_giving_up

FILTER = {
    "id": "",
    "object": "",
    "created": 0,
    "model": "",
    "choices": [],
    "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}],
}


@pytest.fixture
def azure_hanging() -> Iterator[Running]:
    """Passes `/health`; answers a completion with the prompt-filter chunk, then nothing."""
    released = threading.Event()
    event = b"data: " + orjson.dumps(FILTER)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            send_json(self, 200, b"{}")

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            self.wfile.write(event + b"\n\n")
            self.wfile.flush()
            released.wait(30)  # bounded: released at the test's end

        def log_message(self, *args: object) -> None:
            pass

    with upstream(Handler) as server:
        try:
            yield server
        finally:
            released.set()


def test_hang_ups_after_a_prompt_filter_chunk_count_on_every_api(
    azure_hanging: Running, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(silence, "SILENT_S", 0.5)
    with simulator(profile="cloud", model="cloud-model") as cloud:
        servers = {"local": azure_hanging, "cloud": cloud}
        # only chat: Messages and Responses translated
        with router(counting(servers, tmp_path, ["chat"])) as proxy:
            records = collected(proxy)
            seen = [
                failures_after_giving_up(proxy, api, records, n + 1)
                for n, api in enumerate(["messages", "responses", "chat"])
            ]
    assert seen == [1, 2, 3]


@pytest.mark.parametrize(
    ("stream", "opener", "closer"),
    [
        (MessagesStream, "message_start", "message_stop"),
        (ResponsesStream, "response.created", "response.completed"),
    ],
)
def test_the_openers_wait_for_a_choice_or_the_end(stream: type, opener: str, closer: str) -> None:
    """Made from the first chunk with a choice (its id and model, not the filter's empty
    ones); a stream of choice-less chunks alone still ends as a whole, empty reply."""
    same = ToolIds("p", prefix="call")  # one part: a reply is named by its part
    make = (
        (lambda: stream({}, ids=same)) if stream is ResponsesStream else (lambda: stream(ids=same))
    )
    assert make().feed(FILTER) == []
    whole = run(make(), [FILTER, *TEXT_STREAM])
    assert whole[0][0] == opener and whole[-1][0] == closer
    assert whole == run(make(), TEXT_STREAM)
    empty = run(make(), [FILTER])
    assert empty[0][0] == opener and empty[-1][0] == closer
