"""Which fields of an upstream's error body are the error's own: one rule, for a whole reply
(`router.upstream_errors`) and for one read only in part (`router.cut_error_body`)."""

from __future__ import annotations

from typing import Any

FIELDS = ("message", "type", "code", "param")


def error_fields(body: dict[str, Any]) -> dict[str, Any]:
    """The error's own fields: its `error` object, TGI's `error` string as its message, or
    the flat fields of SGLang and older vLLM (`{"object": "error", "message", ...}`), which
    were not read, so their context-length 400 was passed on instead of falling back. Only
    those fields: a body's other ones may echo the client's input (FastAPI's `detail`)."""
    error = body.get("error")
    if isinstance(error, dict):
        return error
    if error is not None:
        return {"message": error}
    return {key: body[key] for key in FIELDS if key in body}
