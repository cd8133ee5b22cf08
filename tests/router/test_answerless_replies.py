"""A whole 200 reply that holds no answer (`{}`, `{"choices": []}`) and no error saying why,
on the native chat and completions paths: a failed attempt (`malformed`), so the next
backend answers. It went to the client as the answer, recorded ok with no other backend
tried, and the OpenAI SDK's `choices[0]` then failed (found in review). Answers of several
choices or of tool calls alone stay answers, and a Responses or Messages backend's own
reply, which has no `choices` at all, is no such failure. The translated paths (Messages
and Responses over chat): tests/agent_apis/test_agent_odd_chat.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import openai
import orjson
import pytest

from router.config import parse
from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.agent_apis.over_chat import ledger_columns
from tests.harness import (
    INSTRUCT,
    RunningRouter,
    config_for,
    router,
    send_json,
    simulator,
    upstream,
)

ASK: Any = [{"role": "user", "content": "hi"}]
HEAD = {"id": "c", "object": "chat.completion", "created": 0, "model": "m"}
USAGE = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
ANSWERLESS = {
    "empty-object": {},
    "empty-choices": HEAD | {"choices": [], "usage": USAGE},
    "null-choices": HEAD | {"choices": None, "usage": USAGE},
    "null-error": HEAD | {"choices": [], "error": None},  # a null error says nothing
    # a choice with no `message` (chat) or `text` (completions) key at all
    "choice-without-answer": HEAD | {"choices": [{"index": 0, "finish_reason": "stop"}]},
}
HI = {"role": "assistant", "content": "hi"}
CALL = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
ANSWERS = {
    "two-choices": [  # n: 2
        {"index": 0, "message": HI, "finish_reason": "stop"},
        {"index": 1, "message": {**HI, "content": "ho"}, "finish_reason": "stop"},
    ],
    "tool-calls-alone": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": None, "tool_calls": [CALL]},
            "finish_reason": "tool_calls",
        }
    ],
}
# The native replies of a backend that speaks Responses and Messages itself: no `choices`.
RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 0,
    "status": "completed",
    "model": "m",
    "output": [
        {
            "type": "message",
            "id": "msg_1",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "native hi", "annotations": []}],
        }
    ],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "usage": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
}
MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "m",
    "content": [{"type": "text", "text": "native hi"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 2},
}


class Script:
    """What `local` answers a chat or completions request next, whole."""

    body: ClassVar[dict[str, Any]] = {}


class Local(BaseHTTPRequestHandler):
    """A backend answering chat and completions with `Script.body`, and Responses and
    Messages natively (`RESPONSE`, `MESSAGE`)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.path.endswith("/responses"):
            reply: dict[str, Any] = RESPONSE
        elif self.path.endswith("/messages"):
            reply = MESSAGE
        else:
            reply = Script.body
        send_json(self, 200, orjson.dumps(reply))

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningRouter, Path]]:
    """The router over `local` (every API native), then a cloud simulator; and its ledger."""
    tmp = tmp_path_factory.mktemp("answerless")
    # the cloud on OpenAI's completions model, so that completions too fall back to it
    with upstream(Local) as local, simulator(profile="cloud", model=INSTRUCT) as cloud:
        models = {"cloud": INSTRUCT}
        config = config_for({"local": local, "cloud": cloud}, tmp, models=models).model_dump()
        config["backends"][0]["apis"] = ["chat", "completions", "responses", "messages"]
        with router(parse(config)) as running:
            yield running, tmp / "ledger"


@pytest.fixture
def script() -> Iterator[type[Script]]:
    yield Script
    Script.body = {}


def attempts(ledger: Path, request_id: str) -> tuple[list[tuple[Any, ...]], Any]:
    """The request's ledger row: (backend, outcome, error_kind) of each attempt, and its
    fallback reason."""
    tried, reason = ledger_columns(ledger, request_id, "attempts, fallback_reason")
    return [(a["backend"], a["outcome"], a["error_kind"]) for a in tried], reason


FELL_BACK = ([("local", "error", "malformed"), ("cloud", "ok", None)], "malformed")


@pytest.mark.parametrize("body", ANSWERLESS.values(), ids=ANSWERLESS.keys())
def test_an_answerless_whole_chat_reply_falls_back(
    proxy: tuple[RunningRouter, Path], script: type[Script], body: dict[str, Any], request: Any
) -> None:
    running, ledger = proxy
    script.body = body
    rid = f"chat-{request.node.callspec.id}"
    raw = openai_client(running).chat.completions.with_raw_response.create(
        model="coding", messages=ASK, extra_headers={"x-request-id": rid}
    )
    assert raw.headers["x-smf-backend"] == "cloud"
    assert raw.parse().choices[0].message.content
    assert attempts(ledger, rid) == FELL_BACK


@pytest.mark.parametrize("body", ANSWERLESS.values(), ids=ANSWERLESS.keys())
def test_an_answerless_whole_completions_reply_falls_back(
    proxy: tuple[RunningRouter, Path], script: type[Script], body: dict[str, Any], request: Any
) -> None:
    """`/v1/completions` replies hold their answers in `choices` too (`text`)."""
    running, ledger = proxy
    script.body = {**body, "object": "text_completion"} if body else body
    rid = f"completions-{request.node.callspec.id}"
    raw = openai_client(running).completions.with_raw_response.create(
        model="coding", prompt="hi", extra_headers={"x-request-id": rid}
    )
    assert raw.headers["x-smf-backend"] == "cloud"
    assert raw.parse().choices[0].text
    assert attempts(ledger, rid) == FELL_BACK


def test_an_answerless_whole_reply_with_no_other_backend_is_a_502(
    proxy: tuple[RunningRouter, Path], script: type[Script]
) -> None:
    """Asked of `local` alone, the client gets the malformed reply's error, not a 200."""
    running, ledger = proxy
    script.body = ANSWERLESS["empty-choices"]
    with pytest.raises(openai.APIStatusError) as raised:
        openai_client(running).chat.completions.create(
            model="local", messages=ASK, extra_headers={"x-request-id": "alone"}
        )
    assert raised.value.status_code == 502
    assert isinstance(raised.value.body, dict) and raised.value.body["code"] == "upstream_malformed"
    assert attempts(ledger, "alone") == ([("local", "error", "malformed")], None)


@pytest.mark.parametrize("choices", ANSWERS.values(), ids=ANSWERS.keys())
def test_several_choices_or_tool_calls_alone_are_answers(
    proxy: tuple[RunningRouter, Path],
    script: type[Script],
    choices: list[dict[str, Any]],
    request: Any,
) -> None:
    running, ledger = proxy
    script.body = HEAD | {"choices": choices, "usage": USAGE}
    rid = f"answer-{request.node.callspec.id}"
    raw = openai_client(running).chat.completions.with_raw_response.create(
        model="coding", messages=ASK, n=len(choices), extra_headers={"x-request-id": rid}
    )
    assert raw.headers["x-smf-backend"] == "local"
    assert len(raw.parse().choices) == len(choices)
    assert attempts(ledger, rid) == ([("local", "ok", None)], None)


@pytest.mark.parametrize("api", ["responses", "messages"])
def test_a_native_responses_or_messages_reply_has_no_choices_and_is_an_answer(
    proxy: tuple[RunningRouter, Path], script: type[Script], api: str
) -> None:
    """`local` speaks both itself: its reply passes as it came, whatever its chat
    replies would be (answerless here)."""
    running, ledger = proxy
    script.body = {}
    rid = f"native-{api}"
    if api == "responses":
        text = (
            openai_client(running)
            .responses.create(model="coding", input=ASK, extra_headers={"x-request-id": rid})
            .output_text
        )
    else:
        message = anthropic_client(running).messages.create(
            model="coding", max_tokens=50, messages=ASK, extra_headers={"x-request-id": rid}
        )
        text = "".join(b.text for b in message.content if b.type == "text")
    assert text == "native hi"
    assert attempts(ledger, rid) == ([("local", "ok", None)], None)
