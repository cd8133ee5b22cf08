"""A backend's credentials: the header its key goes in, the check that no header of its own
would be a second one, and the values no one else may read.

Apart from `router.config_backend` (the settings' shape) because these are rules about HTTP
headers and the providers litellm adapts; `Backend` keeps its methods (`key_header`,
`sent_headers`, `basic_auth`, `secret_values`), each calling one of these. Pure.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

# Headers and query parameters whose values are credentials (`secret_values`), by name:
# `Authorization`, `x-api-key`, `cf-aig-authorization`, `Cookie`, ...; Azure's `sig`
# (a SAS signature) and `code` (a function key).
_CREDENTIAL_HEADER = re.compile(r"auth|key|token|secret|passw|cookie|credential|signature", re.I)
_CREDENTIAL_QUERY = re.compile(
    r".*(?:key|token|secret|passw|auth|credential|signature).*|sig|code|pwd", re.I
)
# The header litellm sends a backend's key in, by provider, where it is not Authorization
# (its Anthropic and Azure adapters: `x-api-key`, `api-key`).
_KEY_HEADERS = {"anthropic": "x-api-key", "azure": "api-key"}
AUTHORIZATION = "authorization"


def key_header(kind: str, model: str, extra_body: Mapping[str, Any]) -> str:
    """The header the key in `api_key_env` goes in, by lower-case name: Authorization
    (`Bearer`), but for litellm's Anthropic (`x-api-key`) and Azure (`api-key`)
    providers, named by the model's prefix or `extra_body: {custom_llm_provider: ...}`
    (a bare `claude-...` is Anthropic's to litellm too)."""
    if kind != "litellm":
        return AUTHORIZATION
    named = extra_body.get("custom_llm_provider")
    prefix, slash, _ = model.partition("/")
    provider = named if isinstance(named, str) else prefix if slash else None
    if provider is None and model.startswith("claude"):
        provider = "anthropic"
    return _KEY_HEADERS.get(provider or "", AUTHORIZATION)


def second_credential(headers: Mapping[str, str], key: str | None, basic: bool) -> str | None:
    """Why `headers` would send a credential the router sends too, or None. `key` is the
    header the key in api_key_env goes in (`key_header`; None without one), `basic` whether
    `base_url` holds a user and password (sent as Authorization). With an Authorization
    header beside api_key_env, requests sent the key alone and health probes both (found in
    review); litellm lets one or the other win, or sends both. Only the key's own header
    is refused: where litellm sends the key as `x-api-key` (Anthropic) or `api-key` (Azure),
    an Authorization header is a gateway's token in front of it, which loaded until a
    refusal of every Authorization beside api_key_env (found in review)."""
    names = {name.lower() for name in headers}
    if len(names) < len(headers):
        return "headers: two names differ only in case, which HTTP reads as one; keep one"
    if key == AUTHORIZATION and key in names:
        return "headers: an Authorization header and api_key_env would both send one; keep one"
    if key is not None and key in names:
        return (
            f"headers: litellm sends the key in api_key_env to this model's provider as "
            f"the {key} header, and an {key} header would be a second one; keep one"
        )
    if basic and AUTHORIZATION in names:
        return (
            "headers: an Authorization header and the user and password in base_url would "
            "both send one; keep one"
        )
    return None


def sent_headers(
    headers: Mapping[str, str], key: str | None, key_name: str, basic: str | None
) -> dict[str, str]:
    """`headers` by lower-case name with the credential: `key` (the key in api_key_env) in
    `key_name` (`key_header`), else the `basic` Authorization of base_url's user."""
    sent = {name.lower(): value for name, value in headers.items()}
    if key:
        sent[key_name] = f"Bearer {key}" if key_name == AUTHORIZATION else key
    elif basic:
        sent[AUTHORIZATION] = basic
    return sent


def basic_auth(kind: str, base_url: str) -> str | None:
    """The Authorization header a `user:password@` in `base_url` stands for (a proxy with
    basic auth in front of vLLM), as httpx makes it for the health probes; without it the
    probes passed and every request got a 401 (found in review)."""
    parts = urlsplit(base_url or "")
    if kind != "openai" or parts.username is None:
        return None
    pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    return "Basic " + base64.b64encode(pair.encode()).decode("ascii")


def secret_values(
    base_url: str, headers: Mapping[str, str], basic: str | None, known: Iterable[str | None]
) -> tuple[str, ...]:
    """What the router sends a backend that no one else may read, as exact values: `known`
    (its key, what litellm may read for itself); the value of each header and query
    parameter named for a credential (`_CREDENTIAL_HEADER`, `_CREDENTIAL_QUERY`), a header's
    also without its scheme (`Bearer X`: X, which a gateway repeats bare); the password in
    `base_url`, the `basic` token made of it. Query values and the password as written and
    decoded. `evals.redaction` takes them out of the backend's error texts: a gateway that
    repeats its request gave a client the operator's key (found in review). Not every
    value: `X-Title: chat` masked the "chat" of every path in the backend's errors (found
    in review)."""
    parts = urlsplit(base_url or "")
    found = list(known)
    for name, value in headers.items():
        if _CREDENTIAL_HEADER.search(name):
            words = value.split()
            found += [value, words[-1] if len(words) > 1 else None]
    if parts.password:
        found += [parts.password, unquote(parts.password)]
    for pair in parts.query.split("&"):
        name, _, value = pair.partition("=")
        if _CREDENTIAL_QUERY.fullmatch(unquote(name)):
            found += [value, unquote(value)]
    if basic:
        found.append(basic.removeprefix("Basic "))
    return tuple(value for value in found if value)
