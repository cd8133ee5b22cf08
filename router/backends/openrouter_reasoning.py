"""OpenRouter's unified `reasoning` object on chat: sent as OpenAI's `reasoning_effort`, or
left out, for a backend that does not take it.

`reasoning` (`{"effort": "xhigh" | "high" | "medium" | "low" | "minimal" | "none",
"max_tokens": N, "exclude": bool, "enabled": bool}`, effort or max_tokens, not both;
`enabled` is inferred from them when missing) is OpenRouter's chat field
(openrouter.ai/docs/use-cases/reasoning-tokens). claude-code-router (`ccr`, 2.0.0) turns
Claude Code's thinking into `{"effort": "high", "enabled": false}` on every request, and the
router passed it on: OpenAI's chat has `reasoning_effort` (a string) and no `reasoning`, and
refuses it with a 400 ("Unrecognized request argument supplied: reasoning") that no fallback
follows, so every ask routed to an OpenAI cloud failed, and so did every fallback there
after a local 500 (found in a live review). Here a chat body going to such a backend gets
what OpenAI's chat understands instead, for every backend, fallback and shadow
(`router.backends.base.prepare_body`):

- `enabled: false`: left out; no reasoning was asked for, and the model reasons by default;
- an `effort` (a string, not empty) with `enabled` true, null or missing: OpenAI's
  `reasoning_effort`, unless the client sent that too, which wins;
- anything else (`max_tokens` alone, `exclude` alone, `enabled: true` alone, a value that
  is no object, an `enabled` that is no boolean, such as `"false"` or `0`, an `effort` that
  is empty or no string): left out. OpenAI's chat has no reasoning budget, and it never
  returns reasoning text to exclude; the model reasons as it does by default. OpenRouter's
  `enabled` is a boolean and its `effort` one of its names: `"false"` went as an effort
  asked for, and `""` as `reasoning_effort: ""` (found in review).

Kept as sent: for a backend the router takes for vLLM (vLLM's chat request lets a field it
does not know go with a log line: `OpenAIBaseModel` in vLLM's
entrypoints/serve/engine/protocol.py; the simulator's vLLM profile does the same), for
OpenRouter itself (by its host), for a backend whose `extra_body` names `reasoning`, and on
every API but chat: a Responses body's `reasoning` (`{"effort", "summary"}`) is OpenAI's own
there (completions is left alone: no client was seen sending it there). A litellm backend is
handed only OpenAI's chat fields (`router.backends.litellm_fields`), so it gets
`reasoning_effort` from here too, which litellm maps per provider. Pure.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from router.config import Backend as BackendSettings
from router.record import Api
from router.vllm_fields import is_vllm

FIELD = "reasoning"
EFFORT = "reasoning_effort"  # OpenAI's chat field


def takes_it(settings: BackendSettings, api: Api) -> bool:
    """Whether `settings`'s backend is sent a body's `reasoning` of `api` as the client sent
    it: not chat, a backend taken for vLLM, OpenRouter, or one whose `extra_body` names it."""
    return (
        api != "chat"
        or is_vllm(settings)
        or FIELD in settings.extra_body
        or _openrouter(settings.base_url)
    )


def as_openai(body: dict[str, Any]) -> dict[str, Any]:
    """`body` with its `reasoning` as OpenAI's chat reads it (the module's docstring says
    how); `body` itself when it has none."""
    if FIELD not in body:
        return body
    asked = body[FIELD]
    out = {k: v for k, v in body.items() if k != FIELD}
    if isinstance(asked, dict) and _enabled(asked) and EFFORT not in out:
        effort = asked.get("effort")
        if isinstance(effort, str) and effort:
            out[EFFORT] = effort
    return out


def _enabled(asked: dict[str, Any]) -> bool:
    """Whether `asked` does not turn reasoning off: its `enabled` true, or null or missing
    (inferred from its effort). Anything else is no boolean (`1 == True` is not taken)."""
    enabled = asked.get("enabled")
    return enabled is True or enabled is None


def _openrouter(base_url: str) -> bool:
    host = urlsplit(base_url).hostname or ""
    return host == "openrouter.ai" or host.endswith(".openrouter.ai")
