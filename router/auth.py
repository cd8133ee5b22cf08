"""Router keys: who is calling. Keys are stored hashed and compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass

from router.config_sections import Auth
from router.errors import Forbidden, Unauthorized


@dataclass(frozen=True, slots=True)
class Caller:
    name: str
    private: bool = False
    admin: bool = False


ANONYMOUS = Caller("anonymous", admin=True)


class Authenticator:
    """With no keys configured the router is open (a desk box on loopback); else keys rule."""

    def __init__(self, auth: Auth) -> None:
        self._keys = [
            (bytes.fromhex(k.sha256), Caller(k.name, k.private, k.admin)) for k in auth.keys
        ]

    @property
    def open(self) -> bool:
        return not self._keys

    def caller(self, headers: Mapping[str, str]) -> Caller:
        if self.open:
            return ANONYMOUS
        presented = _presented_key(headers)
        if not presented:
            raise Unauthorized(_why_none(headers))
        digest = hashlib.sha256(presented.encode()).digest()
        found: Caller | None = None
        for stored, caller in self._keys:  # look at every key: timing says nothing
            if hmac.compare_digest(stored, digest):
                found = caller
        if found is None:
            # a provider's key sent here by mistake (an agent's OPENAI_API_KEY) was told only
            # "incorrect API key", which read as the provider's refusal (found in review)
            raise Unauthorized(
                "incorrect router API key provided: the router takes the keys of its own "
                "auth.keys, not a provider's"
            )
        return found

    def admin(self, headers: Mapping[str, str]) -> Caller:
        caller = self.caller(headers)
        if not caller.admin:
            raise Forbidden("this endpoint needs an admin key")
        return caller


def _presented_key(headers: Mapping[str, str]) -> str | None:
    authorization = headers.get("authorization", "")
    if authorization[:7].lower() == "bearer ":
        return authorization[7:].strip() or None
    return headers.get("x-api-key") or None


def _why_none(headers: Mapping[str, str]) -> str:
    """Why no key was read: an `Authorization: sk-...` (no scheme) was told the key was
    missing, which it was not (found in a fresh-clone review). The header is never quoted:
    it holds the key."""
    authorization = headers.get("authorization", "").strip()
    if authorization and not authorization.lower().startswith("bearer"):
        return (
            "the Authorization header has no 'Bearer ' before the key: "
            "send 'Authorization: Bearer <key>'"
        )
    return "missing API key: send 'Authorization: Bearer <key>'"
