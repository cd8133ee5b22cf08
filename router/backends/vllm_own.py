"""vLLM's own request fields: sent to the backends the router takes for vLLM, left out for
the others unless the backend's `extra_body` names them.

A client of the router may send vLLM's sampling and template extras (`top_k`, `min_p`,
`repetition_penalty`, `chat_template_kwargs`, ...): the local tier is vLLM (DESIGN.md), and
vLLM takes them. The router, not the client, picks the backend, and a request classified for
the cloud, or falling back to it, went there with them: OpenAI refuses an argument it does
not know with a 400 ("Unrecognized request argument supplied: top_k", open-webui/
open-webui#14520, xlinx/sd-webui-decadetw-auto-prompt-llm#29) and no fallback follows a 400,
so the client's request failed for the router's choice. A gateway drops what a provider does
not take (litellm's `drop_params`; this router's litellm backends already hand litellm only
OpenAI's fields and those their `extra_body` names, `router.backends.litellm_fields`), and
so does this: these fields shape how vLLM samples and renders its template, and an answer
without them is still the answer asked for. A backend that takes them (a cloud serving
`top_k`) says so by naming them in its `extra_body`, as for litellm.

The names are those vLLM's chat request adds to OpenAI's (vllm/entrypoints/openai/
chat_completion/protocol.py, `ChatCompletionRequest`: its sampling and extra parameters and
`include_reasoning`), and the older `guided_*` names vLLM 0.12 removed and now ignores
(`router.vllm_fields`), which lose nothing anywhere. `echo` is vLLM's on chat and Responses
but OpenAI's own on completions. Not `structured_outputs`: an output constraint is never
dropped, the plan keeps it to vLLM (`router.vllm_fields`). Not on Messages, where `top_k` is
Anthropic's own. Pure.
"""

from __future__ import annotations

from typing import Any

from router.config import Backend as BackendSettings
from router.record import Api
from router.vllm_fields import is_vllm

# vLLM's chat request fields that OpenAI's has not (`ChatCompletionRequest`)
_SAMPLING = frozenset(
    {
        *("use_beam_search", "top_k", "min_p", "repetition_penalty", "length_penalty"),
        *("stop_token_ids", "include_stop_str_in_output", "ignore_eos", "min_tokens"),
        *("skip_special_tokens", "spaces_between_special_tokens", "truncate_prompt_tokens"),
        *("prompt_logprobs", "allowed_token_ids", "bad_words"),
    }
)
_EXTRA = frozenset(
    {
        *("add_generation_prompt", "continue_final_message", "add_special_tokens"),
        *("documents", "chat_template", "chat_template_kwargs", "mm_processor_kwargs"),
        *("priority", "request_id", "logits_processors", "return_tokens_as_token_ids"),
        *("return_token_ids", "cache_salt", "kv_transfer_params", "vllm_xargs"),
        *("max_repetition_pattern_size", "min_repetition_pattern_size", "repetition_min_count"),
        "include_reasoning",
    }
)
# Removed in vLLM 0.12, ignored by the vLLM this router serves
_GUIDED = frozenset(
    {
        *("guided_json", "guided_regex", "guided_choice", "guided_grammar"),
        *("guided_whitespace_pattern", "guided_decoding_backend", "structural_tag"),
    }
)
VLLM_OWN = _SAMPLING | _EXTRA | _GUIDED
# On chat and Responses `echo` is vLLM's too (on completions it is OpenAI's own)
_WITH_ECHO = VLLM_OWN | {"echo"}
# The APIs whose bodies may carry them: on Messages `top_k` is Anthropic's
_APIS: frozenset[Api] = frozenset({"chat", "completions", "responses"})


def left_out(settings: BackendSettings, body: dict[str, Any], api: Api) -> list[str]:
    """The fields of `body` that do not go to `settings`'s backend: vLLM's own, unless it
    is taken for vLLM or its `extra_body` names them."""
    if api not in _APIS or is_vllm(settings):
        return []
    own = VLLM_OWN if api == "completions" else _WITH_ECHO
    return [name for name in body if name in own and name not in settings.extra_body]
