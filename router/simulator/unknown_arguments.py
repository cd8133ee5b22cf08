"""OpenAI's 400 for a top-level request argument it does not know, on chat and Responses,
and on Responses' count (`/v1/responses/input_tokens`).

The cloud profile stands for OpenAI, and OpenAI refuses a body with an argument it does not
know; the simulator took any, so a router that passed a client's foreign field on to an
OpenAI cloud (grok-cli's `search_parameters`, a vLLM sampling extra such as `top_k`) passed
every test in demo mode and failed against OpenAI itself. vLLM reads what it knows and lets
the rest go with a warning (its request models allow extra fields), so the vllm profile keeps
taking them; only the cloud profile calls this.

Sources. The known arguments are the `openai` SDK's (3.57): the keys of
`types/chat/completion_create_params.py`'s `CompletionCreateParamsBase` and of
`types/responses/response_create_params.py`'s `ResponseCreateParamsBase`, with the `stream`
both streaming variants add, and of `types/responses/input_token_count_params.py`'s
`InputTokenCountParams` (far fewer: no `max_output_tokens`, `store`, `stream`, ...). They
are written out here, a closed table, not read from the SDK at run time nor from the
router: a newer SDK may know more than the API a test stands for, and a table copied from
the router would check the router against itself. The words:

- chat: `{"error": {"message": "Unrecognized request argument supplied: top_k", "type":
  "invalid_request_error", "param": null, "code": null}}`, as OpenAI's clients quote the body
  (xlinx/sd-webui-decadetw-auto-prompt-llm#29; `topP`, namankhurpia/Easy-open-ai#36;
  `thinking`, nashsu/llm_wiki#336); several at once, "Unrecognized request arguments
  supplied: 0, 1, 10, 11, ..., 19, 2, 3, ...", named in one sentence in sorted order
  (tbxark/ChatGPT-Telegram-Workers#5).
- Responses: "Unknown parameter: 'stop'." with the argument as `param` and code
  `unknown_parameter` (the words: openJiuwen-ai/agent-core#768; the envelope, of a nested
  one: `{"message": "Unknown parameter: 'reasoning.max_tokens'.", "type":
  "invalid_request_error", "param": "reasoning.max_tokens", "code": "unknown_parameter"}`,
  bestruirui/octopus#31). OpenAI may add a guess ("Did you mean 'store'?"): how it guesses
  is not known, so no guess is made here. Of several, the first in the body is named.

Arguments inside a known one (`reasoning.max_tokens`) are not checked here. A JSON null is
an argument too: OpenAI does not know `top_k` whatever its value. Pure.
"""

from __future__ import annotations

from typing import Any

from router.simulator.openai_shape import refusal

# `CompletionCreateParamsBase` (openai 3.57) and `stream`
CHAT_ARGUMENTS = frozenset(
    {
        *("audio", "frequency_penalty", "function_call", "functions", "logit_bias"),
        *("logprobs", "max_completion_tokens", "max_tokens", "messages", "metadata"),
        *("modalities", "model", "moderation", "n", "parallel_tool_calls", "prediction"),
        *("presence_penalty", "prompt_cache_key", "prompt_cache_options"),
        *("prompt_cache_retention", "reasoning_effort", "response_format"),
        *("safety_identifier", "seed", "service_tier", "stop", "store", "stream"),
        *("stream_options", "temperature", "tool_choice", "tools", "top_logprobs", "top_p"),
        *("user", "verbosity", "web_search_options"),
    }
)
# `ResponseCreateParamsBase` (openai 3.57) and `stream`
RESPONSES_ARGUMENTS = frozenset(
    {
        *("access_programs", "background", "background_options", "context_management"),
        *("conversation", "image", "include", "input", "instructions", "max_output_tokens"),
        *("max_tool_calls", "metadata", "model", "moderation", "parallel_tool_calls"),
        *("previous_response_id", "prompt", "prompt_cache_key", "prompt_cache_options"),
        *("prompt_cache_retention", "reasoning", "safety_identifier", "service_tier"),
        *("store", "stream", "stream_options", "temperature", "text", "tool_choice", "tools"),
        *("top_logprobs", "top_p", "truncation", "user"),
    }
)
# `InputTokenCountParams` (openai 3.57)
COUNT_ARGUMENTS = frozenset(
    {
        *("conversation", "input", "instructions", "model", "parallel_tool_calls"),
        *("personality", "previous_response_id", "reasoning", "text", "tool_choice"),
        *("tools", "truncation"),
    }
)


def unknown(body: dict[str, Any], known: frozenset[str]) -> list[str]:
    """The top-level arguments of `body` not in `known`, in the body's order."""
    return [name for name in body if name not in known]


def refuse_unknown_chat(body: dict[str, Any]) -> None:
    """Raise OpenAI's chat 400 naming every argument of `body` it does not know."""
    names = sorted(unknown(body, CHAT_ARGUMENTS))
    if not names:
        return
    plural = "s" if len(names) > 1 else ""
    message = f"Unrecognized request argument{plural} supplied: {', '.join(names)}"
    raise refusal(message, None, None)


def refuse_unknown_responses(
    body: dict[str, Any], known: frozenset[str] = RESPONSES_ARGUMENTS
) -> None:
    """Raise OpenAI's Responses 400 naming the first argument of `body` it does not know
    (`known`: a create's, or `COUNT_ARGUMENTS` for a count)."""
    names = unknown(body, known)
    if names:
        raise refusal(f"Unknown parameter: '{names[0]}'.", names[0], "unknown_parameter")
