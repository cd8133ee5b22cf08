"""Structured logs: one JSON object per line, one line per request, never prompt text."""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import orjson

from router.record import Record


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


def configure(level: str = "info") -> None:
    """The router's own loggers (`smf_router.*`) at `level`; every other library's warnings
    through the same JSON handler, so a log pipeline never meets a line it cannot parse."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    ours = logging.getLogger("smf_router")
    ours.handlers[:] = [handler]
    ours.setLevel(level.upper())
    ours.propagate = False
    others = logging.getLogger()
    others.handlers[:] = [handler]
    others.setLevel(logging.WARNING)


class RequestLog:
    """A sink that writes one line per finished request: the decision and its numbers."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self._log = logger or logging.getLogger("smf_router.request")

    def record_finished(self, record: Record) -> None:
        if not self._log.isEnabledFor(logging.INFO):
            return
        fields = {
            "event": "request",
            "request_id": record.request_id,
            "api": record.api,
            "caller": record.caller,
            "intent": record.intent,
            "confidence": record.confidence,
            "route": record.route,
            "backend": record.backend,
            "attempts": [f"{a.backend}:{a.error_kind or a.outcome}" for a in record.attempts],
            "status": record.status,
            "outcome": record.outcome,
            # why a request failed or was refused (`model_not_found`, `invalid_request`...):
            # without it every 4xx line read `client_error` alone (found in review)
            "error_kind": record.error_kind,
            "stream": record.stream,
            "prompt_tokens": record.usage.prompt_tokens,
            "completion_tokens": record.usage.completion_tokens,
            "ttft_s": None if record.ttft_s is None else round(record.ttft_s, 4),
            "duration_s": round(record.duration_s, 4),
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(record.started_at)),
        }
        self._log.info("request", extra={"fields": fields})
