"""What of a text may be shown when it may hold a credential: an upstream's error, a log line.

An upstream's error text goes to the client that asked (`router.errors.UpstreamError`), and
a gateway in front of a provider may repeat in it what it was sent: the router's key, a
configured header, the URL with Gemini's `?key=` (BerriAI/litellm#24902). Any client with a
router key then read the operator's cloud key. So every such text is cleaned once, where an
error takes it in: first the exact values the router holds for that backend
(`config_backend.Backend.secret_values`), then patterns for what else looks like one (a
URL's user info and query, `Bearer ...`, `sk-...`, `AIza...`, `x-api-key: ...`). The rest of
the text stays, so the error still says what went wrong.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any
from urllib.parse import quote

MASK = "***"
# A value shorter than this is no credential worth the damage: masking `1` or `true` (a
# header's value) everywhere would garble the message around it.
MIN_SECRET_CHARS = 4
# Deeper than this, a passed-through error body is not read: replaced whole (a real error
# body nests three or four levels; orjson writes no more than 254 anyway).
MAX_DEPTH = 64

# What of a URL may hold a credential: its user info (`//user:pass@`) and its query. A query
# runs to the next white space: requests leaves quotes and parentheses unquoted in the URL
# urllib3 then prints ("... with url: /v1/traces?token=a(b)c (Caused by ...)").
_USERINFO = re.compile(r"//[^\s/?#]*@")
_QUERY = re.compile(r"\?\S+")
# What looks like a credential wherever it stands: a bearer token, a key header or parameter
# named so, OpenAI's and Anthropic's `sk-` keys, Google's `AIza` keys. Not `Basic ...`: "a
# basic question" is prose (the router's own basic-auth token is an exact value).
_TOKENS = (
    (re.compile(r"\b(Bearer)\s+\S+", re.I), rf"\1 {MASK}"),
    (
        re.compile(r"\b((?:x-)?(?:goog-)?api[-_]?key)([\"']?\s*[:=]\s*[\"']?)[^\s\"',;&]+", re.I),
        rf"\1\2{MASK}",
    ),
    (re.compile(r"\bsk-[\w-]{8,}"), MASK),
    (re.compile(r"\bAIza[\w-]{20,}"), MASK),
)


def without_secrets(text: str) -> str:
    """`text` with every URL's user info and query replaced by `***`. By pattern, on the whole
    text, before any cut: the configured query removed by exact string missed a token that
    requests had re-quoted (`%7E` printed as `~`), and a cut at 300 characters made before
    the removal left the head of a long token in the log (both found in review)."""
    return _QUERY.sub(f"?{MASK}", _USERINFO.sub(f"//{MASK}@", text))


def redacted(text: str, secrets: Collection[str] = ()) -> str:
    """`text` without `secrets` (each as written and URL-encoded, the longest first, so a
    key holding another goes whole) nor anything the patterns take for a credential."""
    for value in _forms(secrets):
        text = text.replace(value, MASK)
    text = without_secrets(text)
    for pattern, shown in _TOKENS:
        text = pattern.sub(shown, text)
    return text


def redacted_body(value: Any, secrets: Collection[str] = (), depth: int = 0) -> Any:
    """A JSON value (an upstream's error body, passed to the client) with every string in
    it `redacted`; keys are names, left as they are."""
    if depth > MAX_DEPTH:
        return MASK
    if isinstance(value, str):
        return redacted(value, secrets)
    if isinstance(value, dict):
        return {k: redacted_body(v, secrets, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted_body(v, secrets, depth + 1) for v in value]
    return value


def _forms(secrets: Collection[str]) -> list[str]:
    """Each secret as written and as a URL carries it, longest first."""
    forms: set[str] = set()
    for value in secrets:
        if len(value) >= MIN_SECRET_CHARS:
            forms.update((value, quote(value, safe="")))
    return sorted(forms, key=len, reverse=True)
