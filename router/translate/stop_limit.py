"""How many `stop_sequences` a Messages request may carry to a backend. Pure.

Chat's `stop` holds at most 4: vLLM's request model (`VLLM_MAX_STOP_STRINGS`, 4 unless its
operator raised it) and OpenAI's API refuse more, and vLLM's own `/v1/messages` puts the
same bound on `stop_sequences`. A Messages request with more was sent on to them, copied
into chat's `stop` on the way, and the client got vLLM's validation dump naming `body.stop`,
a field it never sent (found in review); litellm keeps the first 4 of chat's `stop` for
every provider, Anthropic's too (`validate_openai_optional_params`), and dropped the rest
without a word. Such a request is refused before it is sent, in the client's words
(`stop_sequences`), for every backend but Anthropic's own (`pairing.anthropic_own`), which
gets it natively, as sent. The refusal is the attempt's, as any backend's 400 is: not
retried elsewhere, so a route that starts on vLLM refuses such a request, one that starts
on Anthropic's API serves it.
"""

from __future__ import annotations

from typing import Any

MAX_STOP_SEQUENCES = 4


def refusal(body: dict[str, Any]) -> str | None:
    """Why `body` cannot go to a backend that takes at most `MAX_STOP_SEQUENCES`, or None."""
    given = body.get("stop_sequences")
    if not isinstance(given, list) or len(given) <= MAX_STOP_SEQUENCES:
        return None
    return (
        f"'stop_sequences' holds {len(given)} sequences, and the backend this request was "
        f"routed to takes at most {MAX_STOP_SEQUENCES} (as vLLM and OpenAI's chat API do; "
        f"only Anthropic's own API takes more): send at most {MAX_STOP_SEQUENCES}"
    )
