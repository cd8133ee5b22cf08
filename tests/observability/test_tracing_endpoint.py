"""Where spans go: the OTLP/HTTP traces URL made from the `OTEL_EXPORTER_OTLP_*` variables."""

from __future__ import annotations

import pytest
from test_tracing_otlp import receiving

from router.tracing import Tracing
from router.tracing_env import traces_endpoint

BASE = "OTEL_EXPORTER_OTLP_ENDPOINT"


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("http://c:4318", "http://c:4318/v1/traces"),
        ("http://c:4318/", "http://c:4318/v1/traces"),
        ("https://c/otlp", "https://c/otlp/v1/traces"),
        ("https://c/otlp/", "https://c/otlp/v1/traces"),
        ("https://c:4318?access_token=T", "https://c:4318/v1/traces?access_token=T"),
        ("https://c:4318/?access_token=T", "https://c:4318/v1/traces?access_token=T"),
        ("https://u:p@c/otlp?a=1&b=2", "https://u:p@c/otlp/v1/traces?a=1&b=2"),
    ],
)
def test_the_base_endpoint_gets_the_signal_path_on_its_path_its_query_kept(
    base: str, url: str
) -> None:
    """The OTLP exporter spec appends `v1/traces` to the base URL's path; appended to the
    whole string, a base with a query (`?access_token=T`, a token some vendors take there)
    became `…?access_token=T/v1/traces`: the wrong path and a broken token (found in review)."""
    assert traces_endpoint({BASE: base}) == url


def test_the_signal_endpoint_is_used_as_is_and_none_means_off() -> None:
    assert traces_endpoint({}) is None
    assert traces_endpoint({BASE: "  "}) is None
    both = {BASE: "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:4318/x?k=v"}
    assert traces_endpoint(both) == "http://t:4318/x?k=v"


def test_spans_reach_the_collector_on_the_base_path_with_its_query(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Exported for real: the collector is asked on `<path>/v1/traces` with the token intact."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with receiving() as receiver:
        tracing = Tracing.from_env({BASE: f"{receiver.url}/otlp/?access_token=t0k"})
        tracing.end(tracing.start_request("chat", "auto"))
        tracing.shutdown()
    assert receiver.paths == ["/otlp/v1/traces?access_token=t0k"]
    assert [s.name for s in receiver.spans()] == ["chat auto"]
