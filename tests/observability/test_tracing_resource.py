"""The service name spans are exported under: the operator's, else `smf-router`.

Set through the process environment, as an operator would, and read back from what a real
OTLP/HTTP receiver got. A `service.name` in OTEL_RESOURCE_ATTRIBUTES was replaced with
`smf-router`: the default went on top of the environment's attributes instead of under them
(found in review).
"""

from __future__ import annotations

import pytest
from test_tracing_otlp import receiving

from router.record import Record
from router.tracing import Tracing


@pytest.mark.parametrize(
    ("env", "service"),
    [
        ({}, "smf-router"),
        ({"OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=prod"}, "smf-router"),
        (
            {"OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=prod, service.name = gw-eu"},
            "gw-eu",
        ),
        ({"OTEL_SERVICE_NAME": "gw-us"}, "gw-us"),
        (  # the variable wins over the attribute, as the spec says
            {"OTEL_SERVICE_NAME": "gw-us", "OTEL_RESOURCE_ATTRIBUTES": "service.name=gw-eu"},
            "gw-us",
        ),
        ({"OTEL_RESOURCE_ATTRIBUTES": "service.name="}, "smf-router"),  # empty: not a name
    ],
)
def test_service_name_from_the_environment_else_smf_router(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], service: str
) -> None:
    for name in ("OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_EXPORTER_OTLP_HEADERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with receiving() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        tracing = Tracing.from_env()
        tracing.finish_request(tracing.start_request("chat", "auto"), Record("r", 0.0))
        tracing.shutdown()
        assert receiver.service_names() == {service}
        resources = [rs.resource for req in receiver.requests for rs in req.resource_spans]
        other = {a.key: a.value.string_value for r in resources for a in r.attributes}
    if "deployment.environment" in env.get("OTEL_RESOURCE_ATTRIBUTES", ""):
        assert other["deployment.environment"] == "prod"
