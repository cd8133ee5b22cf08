"""A Responses request the router refuses for a field its Response would echo
(`router.echoed_fields`) is never mirrored: it is refused before any backend is tried, as a
request no backend answered, so the shadow never sees it (it is offered only a call that
was served, `Gateway.finish`), and its ledger row is a refusal's (`router.api.refusal`).

The official SDK against a real router, every intent served in the cloud and shadowed on
local at rate 1, both simulators, read back from the real ledger files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest

from router.ledger import Ledger
from tests.harness import Running, RunningRouter, router, sdk, simulator
from tests.shadow.shadow_status import chats, shadow_counts, shadow_status, shadowed_locally, until

VALID = "What is 1234 + 4321?"
# (request id, the field, its value, streamed, the `param` of its 400)
REFUSED: list[tuple[str, str, Any, bool, str]] = [
    ("echo-choice", "tool_choice", "sometimes", False, "tool_choice"),
    ("echo-truncation", "truncation", "sometimes", False, "truncation"),
    ("echo-truncation-stream", "truncation", "sometimes", True, "truncation"),
    ("echo-metadata", "metadata", {"count": 3}, False, "metadata.count"),
]
ROWS = "request_id, api, status, outcome, error_kind, intent, backend, n_attempts"


def _refused(
    client: openai.OpenAI, request_id: str, field: str, value: Any, stream: bool, param: str
) -> None:
    """Send one refused request, of an intent the shadow samples at rate 1."""
    with pytest.raises(openai.BadRequestError) as refused:
        client.responses.create(
            model="auto",
            input=f"What is 99 + 1? ({request_id})",
            stream=stream,
            extra_body={field: value},
            extra_headers={"x-request-id": request_id},
        )
    error = refused.value
    assert (error.status_code, error.type, error.param) == (400, "invalid_request_error", param)
    assert error.request_id == request_id
    assert not error.response.headers.get("x-smf-backend")  # none was tried


def _idle(r: RunningRouter) -> bool:
    """The served request compared, and nothing sampled still queued or replaying."""
    status = shadow_status(r)
    busy: int = status["queued"] + status["in_flight"]
    compared: int = status["counts"].get("compared", 0)
    return compared >= 1 and busy == 0


def _asked(server: Running) -> list[str]:
    """The last user message of each chat request `server` kept, oldest first."""
    return [b["messages"][-1]["content"] for b in server.stats().get("recent_requests", [])]


def test_refused_echo_requests_are_never_mirrored_and_keep_a_refusals_row(
    tmp_path: Path,
) -> None:
    with (
        simulator(profile="vllm", model="local-model", keep_requests=8) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        with router(shadowed_locally(local, cloud, tmp_path)) as r:
            client = sdk(r, timeout=30)
            for case in REFUSED:
                _refused(client, *case)
            served = client.responses.create(
                model="auto", input=VALID, extra_headers={"x-request-id": "echo-valid"}
            )
            assert served.status == "completed"
            until(lambda: _idle(r))
            counts = shadow_counts(r)
        # the dice picked the one request served, and the shadow asked local that one alone
        assert counts == {"sampled": 1, "compared": 1}
        assert (chats(local), _asked(local)) == (1, [VALID])
        assert cloud.stats()["by_path"] == {"/v1/chat/completions": 1}  # the live one
        assert local.stats()["by_path"] == {"/v1/chat/completions": 1}
    with Ledger(tmp_path / "ledger") as ledger:
        records = ledger.sql(f"SELECT {ROWS} FROM records ORDER BY started_at")
        shadows = ledger.sql(
            "SELECT request_id, live_backend, shadow_backend FROM shadow_comparisons"
        )
    refusal = ("responses", 400, "client_error", "invalid_request", "", None, 0)
    assert records == [
        *((request_id, *refusal) for request_id, *_ in REFUSED),
        ("echo-valid", "responses", 200, "ok", None, "math", "cloud", 1),
    ]
    assert shadows == [("echo-valid", "cloud", "local")]
