"""`router.api.counting.asked`: a backend's count is taken only when it answers 200 with an
integer `input_tokens`; any other answer, or a failure to get one, means "estimate instead"
(None), never an error for the client. The agent tests reach it through a backend that
counts; these give it each way a count can fail, which no running backend is made to do."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

import orjson
import pytest

from router.api.counting import asked
from router.attempt_errors import UpstreamError
from router.backends.openai_compatible import OpenAICompatibleBackend


class _Backend:
    """A backend's `post`, answering `answer` (a status and body) or raising it."""

    def __init__(self, answer: tuple[int, bytes] | Exception) -> None:
        self.settings = SimpleNamespace(name="counter")
        self.answer = answer
        self.sent: list[tuple[str, Any, dict[str, str]]] = []

    async def post(
        self, path: str, payload: bytes, headers: dict[str, str], limit_s: float
    ) -> tuple[int, bytes]:
        self.sent.append((path, orjson.loads(payload), headers))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def _asked(backend: _Backend) -> int | None:
    sent = {"model": "m", "input": "hello"}
    counting = cast(OpenAICompatibleBackend, backend)
    return asyncio.run(asked(counting, "/responses/input_tokens", sent, {"h": "v"}))


def test_a_200_with_an_integer_is_the_count_and_the_body_is_sent_as_given() -> None:
    backend = _Backend((200, b'{"object": "response.input_tokens", "input_tokens": 7}'))
    assert _asked(backend) == 7
    assert backend.sent == [
        ("/responses/input_tokens", {"model": "m", "input": "hello"}, {"h": "v"})
    ]


@pytest.mark.parametrize(
    "answer",
    [
        (405, b'{"input_tokens": 7}'),  # vLLM's Responses server: no such endpoint
        (500, b"upstream broke"),
        (200, b"not json"),
        (200, b"[7]"),  # JSON, but no object
        (200, b'{"input_tokens": "7"}'),
        (200, b'{"input_tokens": true}'),  # a bool is no count
        (200, b'{"input_tokens": 7.5}'),
        (200, b"{}"),
        UpstreamError("connect failed", backend="counter"),
    ],
)
def test_any_other_answer_or_a_failure_means_estimate_instead(
    answer: tuple[int, bytes] | Exception,
) -> None:
    assert _asked(_Backend(answer)) is None
