"""What a backend speaks when its config gives no `apis`.

Its own module because the rule reads the backend's URL and model, not just its kind, and
has a history: every backend once defaulted to `[chat, completions]`, and the built-in
config's cloud (gpt-4o-mini on api.openai.com) claimed `/v1/completions`, which OpenAI
answers for a chat model with a 404 (`router.openai_models`). A prose request
(SillyTavern's Text Completion, Continue's autocomplete) went there first and was counted as
a refusal of the router's settings on every try (found live).

- `kind: litellm`: `[chat]`, all litellm converts.
- `kind: openai` on OpenAI's own API (`api.openai.com`) with a model that is not one of its
  completions models: `[chat]` (Responses and Messages reach it translated, as before).
- Any other backend: `[chat, completions]`. Azure OpenAI (`*.openai.azure.com`) among them,
  though it is OpenAI's API too (`evals.urls.openai_hosted`): there `model` is a deployment's
  name, any name its owner chose, so whether it serves completions cannot be read from it,
  and an instruct deployment (`gpt-35-turbo-instruct`, Azure's spelling) lost
  `/v1/completions` without a word (found in review). Claiming too much costs a 404 that
  falls back to the next backend; claiming too little loses the API.

A given `apis` always wins, and `config check` shows the effective list. No warning marks
the default: a chat model on api.openai.com never served a completion, so the change loses
nothing that worked, and a warning would fire for every config with the built-in cloud.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from router.openai_models import completions_model

ApiName = Literal["chat", "completions", "responses", "messages"]

DEFAULT_APIS: tuple[ApiName, ...] = ("chat", "completions")
_CHAT_ONLY: tuple[ApiName, ...] = ("chat",)
_OPENAI_API_HOST = "api.openai.com"


def implied_apis(data: dict[str, Any]) -> list[ApiName] | None:
    """The `apis` a backend's raw settings (before validation, `apis` left out) imply when
    they are not `DEFAULT_APIS`, else None (the field's own default applies). A `base_url`
    or `model` that is no string, or a URL that does not parse, is left for its field's
    own error."""
    kind = data.get("kind", "openai")
    if kind == "litellm":
        return list(_CHAT_ONLY)
    if kind == "openai" and _openai_chat_model(data.get("base_url"), data.get("model")):
        return list(_CHAT_ONLY)
    return None


def _openai_chat_model(url: object, model: object) -> bool:
    """Whether `url` is OpenAI's own API, not Azure's, and `model` a model it serves no
    `/v1/completions` for."""
    if not isinstance(url, str) or not isinstance(model, str):
        return False
    try:
        host = urlsplit(url).hostname
    except ValueError:  # `http://[::1/v1`: `Backend._check_url` says what is wrong with it
        return False
    return host == _OPENAI_API_HOST and not completions_model(model)
