"""`BackendRefused`: the leaf of the `router.errors` tree that is more than a status. It
says which setting a backend's 401, 402, 403 or 404 points the operator at, and takes the
key hint the dispatcher adds to a 401 (the adapters know the backend's name only).
"""

from __future__ import annotations

from router.attempt_errors import UpstreamError


class BackendRefused(UpstreamError):
    """The backend refused the router itself: its key, its billing, its model or API path.

    A 401/402/403/404 from a backend answers the router's credentials and the configured
    model, never the client's: passed through, it would send the client hunting for a fault
    in its own key. Another backend may well serve the request, so it falls back; at the end
    of the plan it is a 502 naming the setting to check. The upstream's message is left out
    (OpenAI's 401 quotes part of the key)."""

    status = 502
    kind = "backend_refused"
    code = "upstream_refused"

    def __init__(
        self, backend: str, upstream_status: int, said: str | None = None, why: str | None = None
    ) -> None:
        """`said`: what a library in the router said of a key it could not find (litellm's
        "Missing Gemini API key. Set the GEMINI_API_KEY ..."), which names the variable it
        reads; never an upstream's message. `why`: what to check, where the status alone
        does not say it (litellm knows no provider for the model)."""
        super().__init__(_refusal(backend, upstream_status, why), backend=backend)
        self.upstream_status = upstream_status
        self.said = said

    def name_key(self, hint: str) -> None:
        """Say what a 401 points at (`config_backend.Backend.key_hint`): the adapters know
        the backend's name only, the dispatcher its settings. "check its api_key" named a
        setting that does not exist."""
        self.message = self.naming_key(hint)
        self.args = (self.message,)

    def naming_key(self, hint: str) -> str:
        """The message `name_key` would give: the log's, with a hint the client never sees."""
        if self.upstream_status != 401:
            return self.message
        said = f"{hint}; litellm: {self.said}" if self.said else hint
        return _refusal(self.backend, 401, said)


def _refusal(backend: str, status: int, why: str | None = None) -> str:
    return (
        f"backend {backend!r} refused the router ({status}: "
        f"{why or _REFUSAL.get(status, 'refused')}); this is the backend's configuration in "
        "the router, not the request"
    )


_REFUSAL = {
    401: "check its api_key_env",
    402: "its account cannot pay",
    403: "its key (api_key_env) lacks permission",
    404: "check its model and base_url",
}
REFUSAL_STATUSES = frozenset(_REFUSAL)
