"""Which fields of a client's body a litellm backend hands to litellm.

litellm's keyword arguments steer litellm itself (`base_url` and `api_key` send the backend's
key elsewhere, `mock_response` answers without any upstream, `timeout` or `num_retries` clash
with the adapter's own), so a body is never spread into them whole. What passes: the fields
of OpenAI's chat completions request, and the fields the backend's own `extra_body` names,
which the operator has thereby declared fit for that backend (vLLM's `top_k`,
`chat_template_kwargs`), the client's value winning as on a `kind: openai` backend
(`prepare_body`). litellm's own arguments never pass, named there or not: a backend that
configures `custom_llm_provider`, `api_version` or Bedrock's `model_id` keeps its own.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Collection, Mapping
from typing import Any

log = logging.getLogger("smf_router")

# The fields of OpenAI's chat completions request, each a named parameter of
# `litellm.acompletion`, which maps it per provider or drops it. `metadata` is left out:
# litellm reads it as its own logging and routing data. `model` and `stream` are the adapter's.
CHAT_FIELDS = frozenset(
    {
        "messages",
        "audio",
        "frequency_penalty",
        "function_call",
        "functions",
        "logit_bias",
        "logprobs",
        "max_completion_tokens",
        "max_tokens",
        "modalities",
        "n",
        "parallel_tool_calls",
        "prediction",
        "presence_penalty",
        "prompt_cache_key",
        "prompt_cache_retention",
        "reasoning_effort",
        "response_format",
        "safety_identifier",
        "seed",
        "service_tier",
        "stop",
        "store",
        "stream_options",
        "temperature",
        "tool_choice",
        "tools",
        "top_logprobs",
        "top_p",
        "user",
        "verbosity",
        "web_search_options",
    }
)
ADAPTERS_OWN = frozenset({"model", "stream"})
# What litellm's lists below do not hold but steers a provider all the same: Bedrock's
# `model_id` is the model or inference profile (an ARN) litellm invokes (README: the way to
# give litellm an application inference profile); a client's would pick another, on the
# backend's account.
_STEERING = frozenset({"model_id"})


def litellm_arguments(litellm: Any) -> frozenset[str]:
    """litellm's own keyword arguments, by litellm's own lists: `all_litellm_params` (what
    it takes out of the provider's parameters as its own), the parameters of
    `get_litellm_params` and the optional ones it keeps beside them (credentials and
    endpoints: `aws_*`, `vertex_*`, `azure_*`, ...), and the arguments `acompletion` names,
    or lists among OpenAI's, that are no field of OpenAI's chat request (`api_base`,
    `base_url`, `api_version`, `timeout`, `extra_headers`, ...; `thinking` too, which its
    signature counts among litellm's own). A list a litellm version lacks adds nothing."""
    from litellm.litellm_core_utils import get_litellm_params as kept
    from litellm.types import utils as litellm_types

    names = set(getattr(litellm_types, "all_litellm_params", ()))
    names |= set(getattr(kept, "OPTIONAL_KWARGS_KEYS", ()))
    names |= set(inspect.signature(kept.get_litellm_params).parameters)
    openai_like = set(inspect.signature(litellm.acompletion).parameters)
    openai_like |= set(getattr(litellm, "OPENAI_CHAT_COMPLETION_PARAMS", ()))
    names |= openai_like - CHAT_FIELDS
    return frozenset(names | _STEERING | ADAPTERS_OWN) - {"kwargs"}


def also_given(extra_body: Mapping[str, Any], arguments: Collection[str]) -> frozenset[str]:
    """The fields a client may send besides OpenAI's: those `extra_body` names, but for
    litellm's own `arguments` (`litellm_arguments`)."""
    return frozenset(name for name in extra_body if name not in arguments)


def given(body: Mapping[str, Any], name: str, also: Collection[str]) -> dict[str, Any]:
    """The client's fields litellm is handed: OpenAI's chat fields and those in `also`
    (`also_given`); the names of the rest are logged at debug (a value may be anything)."""
    dropped = sorted(k for k in body if k not in CHAT_FIELDS and k not in also)
    dropped = [k for k in dropped if k not in ADAPTERS_OWN]
    if dropped:
        log.debug("%s: fields not given to litellm: %s", name, dropped)
    return {k: v for k, v in body.items() if k in CHAT_FIELDS or k in also}
