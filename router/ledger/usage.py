"""Usage normalisation: the three APIs' token counts mapped onto one `Usage` shape.

Chat Completions counts cached prompt tokens inside `prompt_tokens` and reasoning inside
`completion_tokens`; Responses does the same under `input_tokens`/`output_tokens`; Anthropic
Messages reports `input_tokens` *without* cache reads and cache writes (see FACTS.md), so
they are added back. Dict in, `Usage` out.
"""

from __future__ import annotations

import logging
from typing import Any

from router.record import CHAT_APIS, Api, Usage

log = logging.getLogger("smf_router.ledger.usage")

# JSON allows any integer and orjson keeps up to 64 bits, but the ledger stores int64 and a
# real count is far below 2**40 (a trillion tokens; no request comes near): above it a count
# is garbage. One such value once cost the ledger a whole batch of records, and a bound of
# 2**53 still let a thousand of them overflow the report's int64 sums; 2**40 leaves room to
# add up millions of requests.
MAX_TOKENS = 2**40
_warned = False


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return 0
    if value > MAX_TOKENS:
        _warn_implausible(value)
        return 0
    return value


def _warn_implausible(value: int) -> None:
    global _warned
    if not _warned:  # once: an upstream that sends one sends it on every reply
        _warned = True
        log.warning(
            "an upstream reported %d tokens, beyond any real count: such counts are recorded"
            " as 0 (logged once)",
            value,
        )


def _details(usage: dict[str, Any], key: str) -> dict[str, Any]:
    value = usage.get(key)
    return value if isinstance(value, dict) else {}


def normalize_usage(api: Api, usage: dict[str, Any] | None, estimated: bool = False) -> Usage:
    """Map one API's `usage` object onto `Usage`; missing, malformed or implausible
    (> `MAX_TOKENS`) fields count as 0."""
    if not isinstance(usage, dict):
        return Usage(estimated=estimated)
    if api == "messages":
        cache_read = _int(usage.get("cache_read_input_tokens"))
        cache_write = _int(usage.get("cache_creation_input_tokens"))
        return Usage(
            prompt_tokens=_int(usage.get("input_tokens")) + cache_read + cache_write,
            completion_tokens=_int(usage.get("output_tokens")),
            cached_tokens=cache_read,
            estimated=estimated,
            cache_write_tokens=cache_write,
        )
    if api == "responses":
        inputs = _details(usage, "input_tokens_details")
        return Usage(
            prompt_tokens=_int(usage.get("input_tokens")),
            completion_tokens=_int(usage.get("output_tokens")),
            cached_tokens=_int(inputs.get("cached_tokens")),
            reasoning_tokens=_int(_details(usage, "output_tokens_details").get("reasoning_tokens")),
            estimated=estimated,
            cache_write_tokens=_int(inputs.get("cache_write_tokens")),
        )
    prompt = _details(usage, "prompt_tokens_details")
    return Usage(  # chat and completions
        prompt_tokens=_int(usage.get("prompt_tokens")),
        completion_tokens=_int(usage.get("completion_tokens")),
        cached_tokens=_int(prompt.get("cached_tokens")),
        reasoning_tokens=_int(_details(usage, "completion_tokens_details").get("reasoning_tokens")),
        estimated=estimated,
        # litellm's name for Anthropic's cache writes behind a chat backend (inside the prompt)
        cache_write_tokens=_int(prompt.get("cache_write_tokens")),
    )


def usage_of(api: Api, usage: Any) -> Usage | None:
    """An upstream's usage → normalised `Usage` (None when it gave none, or not an object:
    a malformed usage must not cost the request its record)."""
    if not isinstance(usage, dict) or not usage:
        return None
    if api in CHAT_APIS and ("input_tokens" in usage or "output_tokens" in usage):
        # some chat upstreams name them as Anthropic and Responses do (a copy only then)
        usage = {
            **usage,
            "prompt_tokens": usage.get("prompt_tokens") or usage.get("input_tokens"),
            "completion_tokens": usage.get("completion_tokens") or usage.get("output_tokens"),
        }
    return normalize_usage(api, usage)
