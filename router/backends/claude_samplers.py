"""Claude's one sampler: `temperature` or `top_p`, not both, from Claude Sonnet 4.5 on.

Anthropic answers a body with both a 400 ("`temperature` and `top_p` cannot both be
specified for this model") from Claude Sonnet 4.5, Haiku 4.5 and Opus 4.1 on, whichever
provider serves the model (Anthropic, Bedrock, Vertex), and litellm 1.110 sends both on (its
`drop_params` covers only Claude 4.7 on, which takes neither). Many agents send a default
for each: they had a 400 they could do nothing about. Older Claude models take both, and
keep both. A model is known by its name where a name begins in the backend's model: at its
start or after `/`, `.` or `:` (Bedrock's model and inference-profile IDs and ARNs,
`us.anthropic.claude-sonnet-4-5-20250929-v1:0`, `arn:…:inference-profile/global.anthropic.…`;
Vertex's `claude-sonnet-4-5@20250929`; OpenRouter's `anthropic/claude-sonnet-4.5`), or after
Databricks' `databricks-`. A name that only holds one (a distillation on Ollama,
`hf.co/org/Qwen3-8B-Claude-Sonnet-4.5-Distill-GGUF`) is not Claude. One that begins with it
(`hosted_vllm/claude-opus-4-1-style-llama`) is taken for Claude and loses `top_p`: what
follows the version is not checked, as a provider's next suffix must not make a Claude
model's requests 400s again, and a model left its temperature alone still answers. An ARN
that names no model (an application inference profile, a provisioned model) is not
recognised and gets both as the client sent them; litellm takes such a profile as
`model: bedrock/converse/<the model's id>` with the ARN as `model_id` (`extra_body`), and
that name is recognised.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# claude-sonnet-4-5, us.anthropic.claude-opus-4-1-20250805-v1:0, claude-haiku-4-5@20251001,
# databricks-claude-sonnet-4-5;
# claude-opus-4-20250514 is Opus 4.0 (a minor has one or two digits, a date eight)
_NAMED = re.compile(
    r"(?:^|[/.:]|databricks-)claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2})(?!\d))?"
)


def one_sampler_only(model: str) -> bool:
    """Whether `model` (litellm's name for it) is a Claude model that refuses both samplers."""
    named = _NAMED.search(model.lower())
    if named is None:
        return False
    family, version = named[1], (int(named[2]), int(named[3] or 0))
    return version >= (4, 5) or (family == "opus" and version >= (4, 1))


def keep_one_sampler(body: dict[str, Any], sent: Mapping[str, Any]) -> None:
    """Leaves one of `temperature` and `top_p` in `body` (the client's fields with the
    backend's `extra_body` defaults merged): the one the client sent when it sent one alone
    (a configured default never replaces the client's choice), else the temperature, as
    Anthropic's docs advise altering one of the two."""
    if None in (body.get("temperature"), body.get("top_p")):
        return
    if sent.get("temperature") is None and sent.get("top_p") is not None:
        del body["temperature"]
    else:
        del body["top_p"]
