"""The checks of a chat or completions request alone: `n`, the choices asked, and each chat
message's `tool_calls`. Chat passes through, so what the router does not check reaches the
backend as sent; these are the values that took a backend (or the router's own simulator)
down, or opened circuits for everyone, where the client's mistake is a 400 naming the field.
Called by `router.request.validate`, before any plan.
"""

from __future__ import annotations

from typing import Any

from router.field_refusals import above_maximum, below_minimum, wrong_type

# The most choices a chat or completions request may ask (`n`), OpenAI's (its API spec:
# `minimum: 1, maximum: 128`). vLLM's own is 16,384 (`VLLM_MAX_N_SEQUENCES`), but the
# router is the gate in front of every backend: one `n` of 2**64 - 1, passed on, took the
# demo router down (its simulator builds each choice on the router's own event loop) and
# would ask a real backend for that many sequences. Responses and Messages have no `n`, and
# their translation to chat sets none.
MAX_CHOICES = 128


def check_choices(n: Any) -> None:
    """`n`, the choices asked: an integer (a bool is none) from 1 to `MAX_CHOICES`, each
    refusal OpenAI's (`invalid_type`, `integer_below_min_value`, `integer_above_max_value`).
    Null is the default, one."""
    if n is None:
        return
    if not isinstance(n, int) or isinstance(n, bool):
        raise wrong_type(n, "n", "an integer")
    if n < 1:
        raise below_minimum(n, "n", 1)
    if n > MAX_CHOICES:
        raise above_maximum(n, "n", MAX_CHOICES)


def check_tool_calls(messages: list[dict[str, Any]]) -> None:
    """Each chat message's `tool_calls`, if any, an array of objects, the refusal naming the
    message (`messages[2].tool_calls`) or the call (`messages[2].tool_calls[0]`) as OpenAI's
    names `tools[0]`. Chat passes through, and `tool_calls: 5` crashed the simulator: a 500
    counted against the backend, three of which opened both circuits of the demo router, so
    everyone was answered 503 (found in review)."""
    for index, message in enumerate(messages):
        calls = message.get("tool_calls")
        if calls is None:
            continue
        where = f"messages[{index}].tool_calls"
        if not isinstance(calls, list):
            raise wrong_type(calls, where, "an array of objects")
        for place, call in enumerate(calls):
            if not isinstance(call, dict):
                raise wrong_type(call, f"{where}[{place}]", "an object")
