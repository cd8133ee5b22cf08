"""Which of OpenAI's models its own API serves on the legacy `/v1/completions`.

Only the completions models do (gpt-3.5-turbo-instruct, davinci-002, babbage-002, and their
dated snapshots); a chat model there is a 404, "This is a chat model and not supported in the
v1/completions endpoint. Did you mean to use v1/chat/completions?". Two readers: a backend on
OpenAI's own API claims completions only for such a model (`router.config_apis`), and the
simulator's cloud profile, which plays OpenAI, refuses the rest as OpenAI does
(`router.simulator.app`). Kept to the names OpenAI lists, not guessed from a model's words: a
fine-tuned completions model (`ft:davinci-002:...`) is read by its base. Azure's spelling of
gpt-3.5-turbo-instruct, `gpt-35-turbo-instruct` (its model names have no dots), counts as it:
a config that names it means that model, wherever it points (found in review).
"""

from __future__ import annotations

COMPLETIONS_MODELS = (
    "gpt-3.5-turbo-instruct",
    "gpt-35-turbo-instruct",  # Azure's spelling
    "davinci-002",
    "babbage-002",
)


def completions_model(model: str) -> bool:
    """Whether OpenAI's `/v1/completions` serves `model` (a snapshot or fine-tune of one of
    `COMPLETIONS_MODELS` included)."""
    base = model.removeprefix("ft:").split(":", 1)[0]
    return any(base == name or base.startswith(f"{name}-") for name in COMPLETIONS_MODELS)
