"""The refusal of a Responses request whose Response could not echo what it asked
(`router.echoed_fields`), as the tests of its fields and of its tools check it: a 400 before
any backend is tried, and its record."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from tests.agent_apis.stored_stack import client
from tests.harness import Running, RunningRouter, collected

ASK = "Write a Python function that reverses a list."


def refused_before_any_backend(
    proxy: RunningRouter, servers: dict[str, Running], model: str, asked: dict[str, Any], param: str
) -> tuple[openai.BadRequestError, Any]:
    """The 400 refusing `ASK` to `model` with `asked` added, naming `param` as OpenAI's
    `invalid_request_error` does, and its one record (handed to the sinks before the answer
    went out): no backend was named, and none was sent a request."""
    before = {name: dict(s.stats()["by_path"]) for name, s in servers.items()}
    records = collected(proxy)
    with pytest.raises(openai.BadRequestError) as refused:
        client(proxy).responses.create(model=model, input=ASK, extra_body=asked)
    error = refused.value
    assert (error.status_code, error.param) == (400, param)
    assert error.type == "invalid_request_error" and param in error.message
    assert not error.response.headers.get("x-smf-backend")  # none was tried
    assert {name: dict(s.stats()["by_path"]) for name, s in servers.items()} == before
    (record,) = records.records
    assert (record.api, record.status, record.outcome) == ("responses", 400, "client_error")
    return error, record
