"""What a litellm exception says, in the upstream's words rather than litellm's.

litellm wraps a provider's answer in its own words: `litellm.BadRequestError:
AnthropicException - {"type": "error", "error": {...}}` (for a stream, the body as a Python
bytes repr, `b'{...}'`), a 500's message ending "Handle with `litellm.InternalServerError`.",
a stream's "Original exception: ..." repeating it all. Passed to the client, that told it of a
library it never chose and buried the provider's sentence in a JSON string. Kept apart from
the exception typing (`router.backends.litellm_errors`): this is text only.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection
from typing import Any

from evals.redaction import NO_SECRETS, cut, head
from router.cut_error_body import cut_fields

# litellm's class names before the provider's words, one or several: `litellm.X: `,
# `InternalServerError: ` (litellm repeats the class for an OpenAI 500), `AnthropicException - `,
# `GeminiException BadRequestError - `, `Timeout Error: OpenAIException - `
_PREFIX = re.compile(
    r"^(?:litellm\.\w+: |Timeout Error: |[A-Z]\w*(?:Error|Exception)(?: [A-Z]\w*Error)?(?:: | - ))+"
)
# What litellm appends: the class to catch, the wrapped exception said again, its routing
_SUFFIX = re.compile(
    r"(?:\.? Handle with `litellm\.\w+`\.?| Original exception: | Received Model Group=| "
    r"LiteLLM Retried: ).*$",
    re.S,
)
_DECODER = json.JSONDecoder()
# How much of a message is read: a body quoted whole can be megabytes, or nested so deep
# that decoding it recurses without end; the client gets one line of it anyway. Read by
# `head`, which masks the run of non-space that cut goes through: a line cleaned down under
# `_SHOWN` (`?a=` and 64 KiB: `?***`) showed the head of a key the cut had left in part
# (found in re-review).
_READ = 64 * 1024
_SHOWN = 500


def first_line(exc: Exception, secrets: Collection[str] = NO_SECRETS) -> str:
    """The provider's own message (`error.message` of its JSON body) when litellm quotes the
    body, else litellm's message without its prefixes and suffixes; one line, at most 500
    characters (the rest can be a Python traceback), cleaned of `secrets` and of what looks
    like a credential before that cut (`evals.redaction.cut`: a key the cut went through
    kept its head, found in review); the class name when nothing is left."""
    try:
        message = str(getattr(exc, "message", "") or exc)
    except Exception:  # an exception whose message cannot be read still has its class
        return type(exc).__name__
    text = head(message, _READ).strip()
    said = provider_message(text, cut_short=len(message) > _READ) or text
    return cut(said.splitlines()[0], _SHOWN, secrets) if said.strip() else type(exc).__name__


def provider_message(text: str, cut_short: bool = False) -> str:
    """`text` without litellm's words, and the message of the body it quotes if any; never
    raises (a reply's body, whatever it holds, must not become the router's own error).
    `cut_short`: `text` is the head of a longer one (`_READ`), and a body the cut went
    through is read as an error reply cut short is (`cut_fields`); it was no JSON, and the
    client got its raw text (`{"error":{"type":...,"message":"string too long. Got: ***`,
    found in re-review)."""
    bare = _SUFFIX.sub("", _PREFIX.sub("", text.strip(), count=1)).strip()
    body = _decoded(bare)
    if body.startswith("{"):
        try:
            data, _ = _DECODER.raw_decode(body)
        except Exception:  # not JSON, cut short, or nested too deep (RecursionError)
            if not cut_short:
                return bare
            data = {"error": cut_fields(body)}
        message = _message_of(data)
        if message:
            return message
    return bare


def _decoded(text: str) -> str:
    """A Python bytes repr (`b'{...}'`, litellm's stream errors) as the text it holds."""
    if not text.startswith(("b'", 'b"')):
        return text
    try:
        value = ast.literal_eval(text)
    except Exception:  # not a literal, or one the parser cannot hold (`b''-----…1`: MemoryError)
        return text
    return value.decode(errors="replace") if isinstance(value, bytes) else text


def _message_of(data: Any) -> str | None:
    """`error.message` of Anthropic's and OpenAI's error bodies, or a top-level `message`."""
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"]).strip() or None
    if isinstance(error, str) and error.strip():
        return error.strip()
    message = data.get("message")
    if isinstance(message, str) and message.strip():
        return message.strip()
    return None
