"""xAI's `search_parameters` that asks for no search: left out of every backend's body.

`search_parameters` is xAI's Live Search field (`{"mode": "off" | "auto" | "on",
"sources": [...], "max_search_results": ..., "from_date": ..., "to_date": ...,
"return_citations": ...}`), taken by xAI's chat API alone. grok-cli (`@vibe-kit/grok-cli`
0.0.34) sends `{"mode": "off"}` on every request, and the router passed it on as sent:
OpenAI refuses an argument it does not know with a 400 ("Unrecognized request argument
supplied: search_parameters", the words it answers `num_keep` and `top_k` with:
open-webui/open-webui#14520, xlinx/sd-webui-decadetw-auto-prompt-llm#29), so every ask a
grok-cli user's router sent to an OpenAI cloud failed, and no fallback follows a 400 (found
in a live review). Mode "off" asks for nothing, so no backend loses anything by not being
sent it: it goes, for every backend, fallback and shadow
(`router.backends.base.prepare_body`). A search that is asked for (mode "auto" or "on", or
a value of any other shape) goes as sent: only xAI can serve it, and a backend that cannot
says so in its own words. Pure.
"""

from __future__ import annotations

from typing import Any

FIELD = "search_parameters"


def without_search_off(body: dict[str, Any]) -> dict[str, Any]:
    """`body` without its `search_parameters` when that is an object whose `mode` is "off";
    `body` itself otherwise (no such field, or a search asked for)."""
    asked = body.get(FIELD)
    if not (isinstance(asked, dict) and asked.get("mode") == "off"):
        return body
    return {k: v for k, v in body.items() if k != FIELD}
