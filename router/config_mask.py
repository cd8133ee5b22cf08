"""The config as `config check` prints it: every effective value, no secret.

A secret can reach any string through `${VAR}` (a password in a URL, a token in
`extra_body`), not only `api_key_env` and `headers`: every value that came through a set
variable shows `***` in its place. URLs also hide their user info and query values, which
hold credentials even when written out in the file (`evals.urls.masked_url`, shared with
the eval results files).
"""

from __future__ import annotations

from typing import Any

from evals.urls import masked_url
from router.config import Config
from router.config_env import Where

URL_FIELDS = ("base_url", "metrics_url")
# What `api_key` shows for a backend without `api_key_env`. `null` there read as "missing"
# (found in review); "none" was wrong beside a key the router does not look for (a `?api-key=`
# in `base_url`, an `X-Goog-Api-Key` header, found in re-review): said neutrally, never wrong.
NO_KEY_ENV = (
    "no api_key_env (a key may come from base_url, headers or, for litellm, the provider's "
    "variable)"
)


def masked(config: Config) -> dict[str, Any]:
    """The effective config as plain data, with key digests shortened; no secret is in it."""
    data = config.model_dump(mode="json")
    for where, shown in config.from_env.items():
        _put(data, where, shown)
    for key in data["auth"]["keys"]:
        key["sha256"] = key["sha256"][:8] + "…"
    for backend, settings in zip(data["backends"], config.backends, strict=True):
        env = backend.get("api_key_env")
        backend["api_key"] = ("set" if settings.api_key else "MISSING") if env else NO_KEY_ENV
        if env and settings.key_variable() != env:  # a key pasted in place of the name
            backend["api_key_env"] = "***"
        backend["headers"] = {k: "***" for k in backend.get("headers", {})}
        for field in URL_FIELDS:
            if isinstance(backend.get(field), str):
                backend[field] = masked_url(backend[field])
    return data


def _put(data: Any, where: Where, value: str) -> None:
    """Set the value at `where` in dumped data, if the dump still has that place."""
    *inner, last = where
    try:
        for part in inner:
            data = data[_as_dumped(data, part)]
        last = _as_dumped(data, last)
        if not isinstance(data, dict) or last in data:
            data[last] = value
    except (KeyError, IndexError, TypeError):
        return


def _as_dumped(data: Any, part: Any) -> Any:
    """A YAML key as the dump holds it: `extra_body` keys are JSON's strings (an int key's
    `${VAR}` was printed unmasked, its place not found; found in review)."""
    if isinstance(data, dict) and part not in data and str(part) in data:
        return str(part)
    return part
