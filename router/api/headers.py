"""How every endpoint reads a request's headers, so none reads them differently."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any


def request_headers(scope: MutableMapping[str, Any]) -> dict[str, str]:
    """Request headers by lower-case name. A repeated name's values are joined with ", " as
    RFC 9110 (5.3) allows: with the first one winning, as in Starlette, `x-smf-private: 0`
    then `x-smf-private: 1` went to the cloud. A joined value of a field that takes one value
    (a key, a content length) is no valid value, and is refused as such."""
    raw: list[tuple[bytes, bytes]] = scope["headers"]
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in raw}
    if len(headers) == len(raw):
        return headers
    joined: dict[str, str] = {}
    for key, value in raw:
        name, text = key.decode("latin-1"), value.decode("latin-1")
        joined[name] = f"{joined[name]}, {text}" if name in joined else text
    return joined
