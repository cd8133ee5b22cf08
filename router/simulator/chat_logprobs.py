"""Chat completions' `logprobs` (`choices[].logprobs.content`): each generated token's log
probability and the likeliest tokens in its place, as vLLM and OpenAI write them, whole and
streamed; and what each refuses of `logprobs` and `top_logprobs`.

The simulator answered `logprobs: null` whatever was asked, where guidance always asks
`logprobs: true, top_logprobs: 5` (found running it through the router).

vLLM 0.32 (`ChatCompletionLogProbs`, `_create_chat_logprobs`; its CPU build run in review,
tests/vllm/captures/chat_logprobs*.json): each token `{"token", "logprob", "bytes",
"top_logprobs"}`, `bytes` its UTF-8, `top_logprobs` the first `top_logprobs` of the sampled
token then the likeliest (a greedy token is the likeliest: the top ones in order), `[]` for
0, its default; `logprobs` is `{"content": […]}`. The tokens are the model's, not the text a
`stop` string let them show. Streamed, the role chunk has `logprobs: null` and each later
chunk its own tokens', a tool call's too; a token that shows nothing (held back for a `stop`
string, a tool call's text its parser has not shown, `chat_deltas`) still gets a chunk, its
delta empty, "to ensure all tokens are included". vLLM lists the EOS token too, in the
finish chunk; the simulator, which counts none, lists none.
OpenAI puts `"refusal": null` beside `content` and lists no tool call's tokens; streamed, its
role chunk has `{"content": [], "refusal": null}`, each chunk after it its tokens' (`[]` beside
a tool call's), the finish chunk `logprobs: null` (streams its clients recorded).

Refusals. vLLM's request model (`check_logprobs`, run among `checks.check_chat`'s):
`top_logprobs` a number, at least 0 or -1, and not above 0 without `logprobs`; its sampling
parameters then refuse more than `logprobs.MAX_TOP` (-1: the whole vocabulary). OpenAI:
`logprobs` a boolean, `top_logprobs` an integer of at least 0 (`openai_refusals.CHAT`), at most
`OPENAI_MAX_TOP` and only with `logprobs` (its words as a client's conformance test measured
them, of a model that lists at most 5).

The numbers are `router.simulator.logprobs`'s, a choice's tokens following the last user
message: the same question gets the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

from router.simulator.completion_logprobs import bounded
from router.simulator.errors import Flavor
from router.simulator.generation import Ask, Choice, hermes_pieces
from router.simulator.logprobs import Step, numbers
from router.simulator.wire import Meta, bad_request, model_check, parameter_error

OPENAI_MAX_TOP = 20  # OpenAI's most alternatives per token (its chat API reference)
ASKED = "top_logprobs"  # the `Ask.extra` key of the alternatives asked per token


def check_vllm(body: dict[str, Any]) -> None:
    """vLLM's request model's check of `top_logprobs`, in its order and words."""
    top = body.get("top_logprobs")
    if top is None:
        return
    if not isinstance(top, int | float):
        raise parameter_error("vllm", "`top_logprobs` must be an integer.", "top_logprobs", top)
    if top < 0 and top != -1:
        message = "`top_logprobs` must be a positive value or -1."
        raise parameter_error("vllm", message, "top_logprobs", top)
    if (top == -1 or top > 0) and not body.get("logprobs"):
        message = "when using `top_logprobs`, `logprobs` must be set to true."
        raise model_check(message, "top_logprobs")


def asked(body: dict[str, Any], profile: Flavor) -> dict[str, int]:
    """`Ask.extra` for the alternatives listed per token: none where no `logprobs` were asked.
    The fields' kinds are checked before (`check_vllm`, `openai_refusals.refuse_chat`)."""
    top = body.get("top_logprobs")
    wanted = 0 if top is None else int(top)
    if profile == "vllm":
        if not body.get("logprobs"):
            return {}
        return {ASKED: bounded(wanted, "sample", "logprobs") or 0}
    if not body.get("logprobs"):
        if wanted > 0:
            message = "The 'top_logprobs' parameter is only allowed when 'logprobs' is enabled."
            raise bad_request(message, "top_logprobs")
        return {}
    if wanted > OPENAI_MAX_TOP:
        message = (
            f"Invalid value for 'top_logprobs': must be less than or equal to {OPENAI_MAX_TOP}."
        )
        raise bad_request(message, "top_logprobs")
    return {ASKED: wanted}


@dataclass(slots=True)
class Listed:
    """One choice's generated tokens with their numbers, listed chunk by chunk: each chunk
    the next tokens, the finish what is left. Where no `logprobs` were asked (`count`
    None), every chunk's are None and no chunk is added for them."""

    pieces: tuple[str, ...] = ()
    steps: tuple[Step, ...] = ()
    count: int | None = None  # alternatives per token
    cloud: bool = False
    at: int = 0

    def take(self, size: int) -> dict[str, Any] | None:
        """The `logprobs` of the next `size` tokens (fewer where fewer are left)."""
        if self.count is None:
            return None
        end = min(self.at + size, len(self.pieces))
        pairs = zip(self.pieces[self.at : end], self.steps[self.at : end], strict=True)
        self.at = end
        content = [_token(piece, step, self.count) for piece, step in pairs]
        return {"content": content} | ({"refusal": None} if self.cloud else {})

    def rest(self) -> dict[str, Any] | None:
        return self.take(len(self.pieces))

    def quiet(self, size: int, per_chunk: int) -> Iterator[dict[str, Any] | None]:
        """The `logprobs` of vLLM's chunks with an empty delta for the next `size` tokens,
        which showed nothing: `per_chunk` tokens each (none where none were asked)."""
        for begin in range(0, size if self.count is not None else 0, per_chunk):
            yield self.take(min(per_chunk, size - begin))

    def before_finish(self) -> int:
        """Of the tokens left, how many vLLM lists in chunks of their own before the finish
        chunk, which lists its last step's (`per_chunk` 1: the last token)."""
        return max(len(self.pieces) - self.at - 1, 0)


def listed(meta: Meta, ask: Ask, choice: Choice) -> Listed:
    """A choice's tokens and numbers, where `logprobs` were asked for: the text's tokens, or
    on vLLM the tool calls' as the model wrote them (OpenAI lists none of a call)."""
    count = ask.extra.get(ASKED)
    if count is None:
        return Listed()
    cloud = meta.flavor != "vllm"
    if choice.tool_calls:
        pieces: tuple[str, ...] = () if cloud else tuple(hermes_pieces(choice.tool_calls))
    else:  # the tokens themselves, not the text a `stop` string let them show
        shown = tuple(choice.pieces())
        written = choice.written[: len(choice.head)]
        pieces = written + shown[len(written) :]
    # the question first: its numbers follow from it; it is no token of the answer. Only the
    # first token has no numbers (nothing comes before it): the rest all have some
    steps = cast(list[Step], numbers(meta.model, (ask.prompt.user, *pieces), 1, count)[1:])
    return Listed(pieces, tuple(steps), count, cloud)


def whole(meta: Meta, ask: Ask, choice: Choice) -> dict[str, Any] | None:
    """A whole reply's choice's `logprobs`: all its tokens'."""
    return listed(meta, ask, choice).rest()


def _token(piece: str, step: Step, count: int) -> dict[str, Any]:
    top = [_alternative(name, logprob) for name, logprob in step.ranked[:count]]
    return _alternative(piece, step.logprob) | {"top_logprobs": top}


def _alternative(piece: str, logprob: float) -> dict[str, Any]:
    return {"token": piece, "logprob": logprob, "bytes": list(piece.encode(errors="replace"))}
