"""Context-length refusals worded by servers the profiles do not speak for, byte for byte.

The router is put in front of other local servers than vLLM, and reads their refusals by
their own words (`router.upstream_errors`); each `context_length_<server>` fault answers with
one of them, whatever the profile, so a test can check that the router falls back on it:

- `context_length_sglang`: SGLang's flat error body (vLLM's before 0.10.1 had the same
  shape), 400, "The input (N tokens) is longer than the model's context length (M tokens).";
- `context_length_llamacpp`: llama.cpp's server, 400, type `exceed_context_size_error` with
  its `n_prompt_tokens` and `n_ctx`;
- `context_length_tgi`: text-generation-inference, 422, its validation error as a bare
  string. TGI sends that after the 200 when the request streams; the fault sends it as the
  HTTP error for both.
"""

from __future__ import annotations

import orjson

from router.simulator.errors import ApiError

SERVERS = ("context_length_sglang", "context_length_llamacpp", "context_length_tgi")


def overflow(fault: str, window: int, prompt_tokens: int, max_tokens: int | None) -> ApiError:
    """The refusal `fault` (one of `SERVERS`) stands for, of a prompt of `prompt_tokens`."""
    if fault == "context_length_sglang":
        message = (
            f"The input ({prompt_tokens} tokens) is longer than the model's context length "
            f"({window} tokens)."
        )
        body = {"object": "error", "message": message, "type": "BadRequestError"}
        return _raw(400, body | {"param": None, "code": 400})
    if fault == "context_length_llamacpp":
        message = (
            f"request ({prompt_tokens} tokens) exceeds the available context size ({window} "
            "tokens), try increasing it"
        )
        error = {"code": 400, "message": message, "type": "exceed_context_size_error"}
        return _raw(400, {"error": error | {"n_prompt_tokens": prompt_tokens, "n_ctx": window}})
    message = (
        f"Input validation error: `inputs` tokens + `max_new_tokens` must be <= {window}. "
        f"Given: {prompt_tokens} `inputs` tokens and {max_tokens or 0} `max_new_tokens`"
    )
    return _raw(422, {"error": message, "error_type": "validation"})


def _raw(status: int, body: dict[str, object]) -> ApiError:
    return ApiError(status, "context_length", raw=orjson.dumps(body))
