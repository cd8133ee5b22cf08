"""Structured logs: one JSON object per line, one line per request, never prompt text."""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import orjson

from router.record import Attempt, Record


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


# litellm's loggers, each given a stderr handler of its own when litellm is imported.
LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
# Records of loggers named so are litellm's (`litellm.*` its modules' own `__name__` loggers).
_LITELLM_NAMES = ("LiteLLM", "litellm")


class LitellmWordsWithheld(logging.Filter):
    """A record of litellm's says where it was logged, never what: its words are an
    f-string made where it was logged, and they quote what the request held (its image
    URL, the path a client's prompt may be in, with no request id to tell it by) or what
    the provider answered (its error body, which can repeat the prompt and the key). Which
    of litellm's hundreds of messages may do so cannot be told from the record, nor kept
    up with by a list as litellm changes; the router says every failed attempt in its own
    cleaned words anyway. Its level, logger and place stay, for an operator to look up;
    an exception is named by its class only (its text is the provider's too)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith(_LITELLM_NAMES):
            exc = record.exc_info[0] if record.exc_info else None
            raised = f" ({exc.__name__})" if exc is not None else ""
            record.msg = (
                f"litellm logged at {record.filename}:{record.lineno}{raised}; its words are "
                "withheld, as they can quote a request"
            )
            record.args = None
            record.exc_info = record.exc_text = record.stack_info = None
        return True


def configure(level: str = "info") -> None:
    """The router's own loggers (`smf_router.*`) at `level`; every other library's warnings
    through the same JSON handler, so a log pipeline never meets a line it cannot parse:
    litellm's without their words (`LitellmWordsWithheld`) and without its own handler
    (`adopt_litellm`)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(LitellmWordsWithheld())
    ours = logging.getLogger("smf_router")
    ours.handlers[:] = [handler]
    ours.setLevel(level.upper())
    ours.propagate = False
    others = logging.getLogger()
    others.handlers[:] = [handler]
    others.setLevel(logging.WARNING)
    adopt_litellm()


def adopt_litellm() -> None:
    """litellm's loggers with no handler of their own, once `configure` set the JSON one:
    the plain-text handler litellm gives them as it is imported wrote each of its warnings
    a second time, beside the JSON line the record made on its way to the root, in its
    own words (found in review). Called by `configure` and after each import of litellm
    (`router.backends.litellm.import_litellm`), which can come after it: litellm adds that
    handler once, at its import, and adds none later outside its proxy server."""
    if not any(isinstance(h.formatter, JsonFormatter) for h in logging.getLogger().handlers):
        return  # no JSON logs here (a command's own output): litellm's handler is the one
    for name in LITELLM_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True


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
            "attempts": [attempt_said(a) for a in record.attempts],
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


def attempt_said(attempt: Attempt) -> str:
    """An attempt as the request line lists it: `backend:ok`, `backend:<error kind>`, and
    for a backend passed over `backend:skipped:<reason>`. A skipped attempt's reason can be
    an error's kind too (`rate_limited`, `context_too_long`): said alike, a backend passed
    by while its 429's wait ran read as one that answered a 429 (found in review)."""
    skipped = "skipped:" if attempt.outcome == "skipped" else ""
    return f"{attempt.backend}:{skipped}{attempt.error_kind or attempt.outcome}"
