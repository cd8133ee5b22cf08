"""A canary case's failed call names what failed in its span, as a live attempt's span does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from classifier import INTENTS
from evals.suite import SHIPPED
from router.canary import Canary, load_cases
from router.canary_spans import stopped_kind
from router.config import Config, parse
from router.gating import GateBook
from router.translate.wire import finish_reasons
from tests.canary.rounds import one_round
from tests.canary.servers import free_port, simulator
from tests.observability.kept_spans import tracing_on


def canary_config(base_url: str, tmp_path: Path) -> Config:
    backend = {"name": "local", "tier": "local", "base_url": base_url, "model": "local-model"}
    return parse(
        {
            "backends": [backend],
            "routes": {intent: ["local"] for intent in INTENTS},
            "ledger": {"path": str(tmp_path / "ledger")},
            "canary": {"enabled": True, "suites": str(SHIPPED / "math"), "sample_per_suite": 1},
        }
    )


def canary_span(config: Config) -> Any:
    """The one case's span of one round against `config`'s backend."""
    tracing, kept = tracing_on()
    one_round(Canary(config, load_cases(config), GateBook({}), tracing=tracing))
    (span,) = kept.spans
    assert span.attributes["smf.traffic"] == "canary"
    return span


def canary_error_type(config: Config) -> str:
    """The `error.type` of the one case's span of one round against `config`'s backend."""
    span = canary_span(config)
    assert span.attributes["error.type"] == span.error
    return str(span.error)


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        ("rate_limit", "rate_limited"),
        ("server_error:503", "overloaded"),
        ("server_error:500", "server_error"),
    ],
)
def test_an_http_error_is_named_by_its_kind(fault: str, kind: str, tmp_path: Path) -> None:
    """Every HTTP error a canary case got ended its span as `error.type: transport`, where a
    live attempt on the same backend said `rate_limited`, `overloaded` or `server_error`: a
    trace query by kind missed the canary's, and one span did not tell a 429 from a 500."""
    with simulator(model="local-model", fault=fault) as local:
        assert canary_error_type(canary_config(local.url, tmp_path)) == kind


def test_a_refused_connection_is_unreachable(tmp_path: Path) -> None:
    """A backend that is not listening: `unreachable`, as a live attempt's span says."""
    url = f"http://127.0.0.1:{free_port()}/v1"
    assert canary_error_type(canary_config(url, tmp_path)) == "unreachable"


def test_a_reply_cut_after_its_headers_is_cut(tmp_path: Path) -> None:
    """The 200 and its headers came, then the connection broke: `cut`, as a live attempt's
    span says. The runner read the body inside the POST, and the broken read looked like a
    connection refused (`unreachable`)."""
    with simulator(model="local-model", fault="cut_stream") as local:
        assert canary_error_type(canary_config(local.url, tmp_path)) == "cut"


def test_a_reply_the_engine_stopped_is_an_error(tmp_path: Path) -> None:
    """A 200 whose answer the engine stopped (`finish_reason: "abort"`): the ledger counts
    the case an error, and the span ended OK, with no `error.type`."""
    with simulator(model="local-model", fault="abort") as local:
        assert canary_error_type(canary_config(local.url, tmp_path)) == "cut"


@pytest.mark.parametrize(("fault", "said"), [(None, ["stop"]), ("abort", ["abort"])])
def test_the_span_says_the_replys_finish_reasons(
    fault: str | None, said: list[str], tmp_path: Path
) -> None:
    """A canary call's span said no finish reason, where a live attempt's says the
    backend's: an aborted answer was told only by its `error.type`."""
    with simulator(model="local-model", fault=fault) as local:
        span = canary_span(canary_config(local.url, tmp_path))
    assert list(span.attributes["gen_ai.response.finish_reasons"]) == said


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        ([1], []),
        ({"choices": {"0": {"finish_reason": "stop"}}}, []),
        ({"choices": ["hi", None, {"finish_reason": 5}, {"finish_reason": "length"}]}, ["length"]),
        ({"choices": [{"finish_reason": "stop"}, {"finish_reason": "abort"}]}, ["stop", "abort"]),
    ],
    ids=["a list", "choices no list", "odd choices", "every choice's"],
)
def test_the_finish_reasons_of_a_reply_of_any_shape_are_its_text_ones(
    payload: Any, said: list[str]
) -> None:
    """A canary's reply reaches its span before anything checked its shape: the span reads
    what it can (`wire.finish_reasons`, which an attempt's span reads too)."""
    assert finish_reasons(payload) == said


def test_a_reply_with_no_readable_answer_is_malformed() -> None:
    """Choices that are not objects, or a null message: `malformed`, as a live attempt's."""
    assert stopped_kind({"choices": ["hi"]}, "local") == "malformed"
    assert stopped_kind({"choices": [{"message": None}]}, "local") == "malformed"
    assert stopped_kind({"choices": [{"message": {}, "finish_reason": "stop"}]}, "local") is None


@pytest.mark.parametrize(
    "payload",
    [{}, {"choices": []}, {"choices": [{"finish_reason": "stop"}]}, [1], []],
    ids=["no choices", "no choice", "no message", "a list", "an empty list"],
)
def test_a_reply_the_runner_cannot_read_is_malformed(payload: Any) -> None:
    """The runner counts these an error (`parse_answer`), and the span ended OK beside that
    ledger row (found in re-review)."""
    assert stopped_kind(payload, "local") == "malformed"


def test_text_content_given_as_a_number_is_malformed() -> None:
    choice = {"message": {"content": 5}, "finish_reason": "stop"}
    assert stopped_kind({"choices": [choice]}, "local") == "malformed"
