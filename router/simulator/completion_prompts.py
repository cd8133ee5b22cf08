"""The prompts of a `/v1/completions` request, as vLLM and OpenAI read its `prompt`.

`prompt` is a string, a list of strings (a batch), a list of token ids (one prompt) or a
list of such lists (a batch of them): OpenAI's API reference and vLLM's `CompletionRequest`
take all four, and each prompt of a batch gets its own `n` choices. A string begins with
the BOS token (`tokens.BOS`, counted in the usage as before); token ids are read as given,
each as a stand-in word (`tokens.decoded`), which `echo` shows. The simulator took a string
alone, answered a batch of strings as its first, and refused token ids with a 400 that vLLM
never gives (found running lm-eval 0.4.13, whose `local-completions` sends token ids unless
`tokenized_requests=False`, and batches with `batch_size` above 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from router.simulator import tokens
from router.simulator.errors import Flavor, validation_error
from router.simulator.wire import bad_request, model_check

MAX_PROMPTS = 1024  # vLLM's `VLLM_MAX_COMPLETION_PROMPTS`: the longest batch it takes


@dataclass(frozen=True, slots=True)
class Text:
    """One prompt as the engine reads it: its text (what `echo` shows and the simulated model
    answers), its tokens' text, their ids."""

    text: str
    pieces: tuple[str, ...]
    ids: tuple[int, ...]

    @property
    def tokens(self) -> int:
        return len(self.pieces)


def prompts(body: dict[str, Any], profile: Flavor) -> tuple[Text, ...]:
    """The request's prompts, in order; a 400 for a prompt the server refuses, in vLLM's
    words on the vllm profile (its renderer's, after `check_prompt`)."""
    prompt = body.get("prompt")
    if isinstance(prompt, str):
        return (_of_string(prompt),)
    if isinstance(prompt, list) and prompt:
        if all(_is_id(p) for p in prompt):
            return (_of_ids(prompt, profile),)
        if all(isinstance(p, str) for p in prompt):
            return tuple(_of_string(p) for p in prompt)
        if all(isinstance(p, list) and all(_is_id(i) for i in p) for p in prompt):
            return tuple(_of_ids(p, profile) for p in prompt)
    if isinstance(prompt, list) and not prompt and profile == "vllm":
        raise bad_request("You must pass at least one prompt")
    if prompt is None:
        message = "prompt: Field required"
        raise validation_error(message, "prompt", "missing", "Field required", body)
    message = "prompt: a string, a list of strings, of token ids or of lists of token ids."
    raise validation_error(
        message, "prompt", "string_type", "Input should be a valid string", prompt
    )


def check_prompt(prompt: object) -> None:
    """vLLM's request model's own checks of `prompt`, run before any field is read: a batch
    longer than `MAX_PROMPTS`, then a prompt missing or empty."""
    listed: list[Any] = prompt if isinstance(prompt, list) else []
    size = len(listed)
    if size > MAX_PROMPTS and not all(_is_id(p) for p in listed):
        message = (
            f"prompt list length {size} exceeds the maximum allowed count of {MAX_PROMPTS}. "
            "To increase this limit, set the VLLM_MAX_COMPLETION_PROMPTS environment variable."
        )
        raise model_check(message, "prompt")
    if prompt is None or prompt == "":
        message = "Either prompt or prompt_embeds must be provided and non-empty."
        raise model_check(message, "prompt")


def _is_id(value: object) -> bool:
    """A token id: an integer, not a boolean (JSON tells them apart)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _of_string(text: str) -> Text:
    pieces = (tokens.BOS, *tokens.pieces(text)) if tokens.count(text) else (tokens.BOS,)
    ids = (tokens.BOS_ID, *(tokens.token_id(p) for p in pieces[1:]))
    return Text(text, pieces, ids)


def _of_ids(given: list[int], profile: Flavor) -> Text:
    """A prompt of token ids; vLLM refuses an empty one, and a negative id (its model's
    `ge=0`) as a field error."""
    if profile == "vllm" and not given:
        raise bad_request("The decoder prompt cannot be empty")
    for index, token in enumerate(given):
        if token < 0:
            message = f"prompt.{index}: Input should be greater than or equal to 0"
            raise validation_error(
                message,
                f"prompt.{index}",
                "greater_than_equal",
                "Input should be greater than or equal to 0",
                token,
                ge=0,
            )
    pieces = tuple(tokens.decoded(t) for t in given)
    return Text("".join(pieces), pieces, tuple(given))
