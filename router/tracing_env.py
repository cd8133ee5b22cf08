"""Whether, where and how much the router traces, read once at start from the `OTEL_*`
variables: the endpoint, the service name, the sampler (`router.tracing.Tracing.from_env`).

Apart from `router.tracing` (the spans a request makes, at every request) because this runs
once, at start, and holds what the OpenTelemetry specification says of the variables; the
batch settings of the export are `router.span_export_env`'s. It logs to tracing's logger,
`smf_router.tracing`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

from evals.urls import masked_url
from router.span_export import SpanShipper, quiet_exporter_log
from router.span_export_env import exporter_timeout_s

log = logging.getLogger("smf_router.tracing")


class Sampler:
    """`OTEL_TRACES_SAMPLER` (and `_ARG`), decided once per trace from plain integers."""

    def __init__(self, name: str = "parentbased_always_on", arg: str | None = None) -> None:
        self.parent_based = name.startswith("parentbased_")
        root = name.removeprefix("parentbased_")
        ratio = {"always_on": 1.0, "always_off": 0.0}.get(root)
        if ratio is None:
            if root != "traceidratio":
                log.warning("sampler %r is not supported; sampling everything", name)
                ratio = 1.0
            else:
                ratio = _ratio(arg)
        self._bound = round(ratio * (1 << 64))

    def sampled(self, trace_id: int, parent_sampled: bool | None) -> bool:
        if self.parent_based and parent_sampled is not None:
            return parent_sampled
        return (trace_id & 0xFFFFFFFFFFFFFFFF) < self._bound


def _ratio(arg: str | None) -> float:
    try:
        return min(1.0, max(0.0, float(arg if arg is not None else 1.0)))
    except ValueError:
        return 1.0


def names_service(env: Mapping[str, str]) -> bool:
    """Whether the environment names the service (OTEL_SERVICE_NAME, or `service.name` in
    OTEL_RESOURCE_ATTRIBUTES, parsed as the SDK does). Only then is `smf-router` not the
    default: the SDK reads both itself, but attributes given to `Resource.create` override
    them, and a `service.name` set in OTEL_RESOURCE_ATTRIBUTES was replaced (found in review)."""
    if env.get("OTEL_SERVICE_NAME"):
        return True
    for item in env.get("OTEL_RESOURCE_ATTRIBUTES", "").split(","):
        key, eq, value = item.partition("=")
        if eq and key.strip() == "service.name" and value.strip():
            return True
    return False


def exporting(endpoint: str, env: Mapping[str, str]) -> tuple[SpanShipper, Sampler]:
    """The shipper that exports spans to `endpoint` over OTLP/HTTP, and the sampler, as `env`
    sets them; the SDK's exporter is imported here, only when tracing is on."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource

    protocol = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get(
        "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"
    )
    if protocol != "http/protobuf":
        log.warning("OTLP protocol %r is not supported; using http/protobuf", protocol)
    attrs = {} if names_service(env) else {"service.name": "smf-router"}
    quiet_exporter_log(endpoint)
    exporter = OTLPSpanExporter(endpoint=endpoint, timeout=exporter_timeout_s(env))
    shipper = SpanShipper(exporter, Resource.create(attrs), env)
    sampler = Sampler(
        env.get("OTEL_TRACES_SAMPLER", "parentbased_always_on").strip().lower(),
        env.get("OTEL_TRACES_SAMPLER_ARG"),
    )
    # masked: the endpoint may hold a password or a token (`?access_token=`)
    log.info("tracing on: OTLP/HTTP export to %s", masked_url(endpoint))
    return shipper, sampler


def traces_endpoint(env: Mapping[str, str]) -> str | None:
    """The OTLP/HTTP traces URL: the signal variable as is, or the base with `v1/traces`
    appended to its path (opentelemetry.io/docs/specs/otel/protocol/exporter/, "Endpoint URLs
    for OTLP/HTTP"), its query kept: appended to the whole string, a base with
    `?access_token=…` sent the spans to the base's path with the token corrupted (found in
    review)."""
    specific = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if specific:
        return specific
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if not base:
        return None
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/v1/traces"))
