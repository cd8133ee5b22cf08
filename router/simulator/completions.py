"""Legacy OpenAI Completions (`/v1/completions`), as vLLM and OpenAI serve it.

Each prompt of the request (`completion_prompts`: a string, token ids, or a batch of either)
gets `n` choices, numbered in order (vLLM's `index = prompt * n + k`). vLLM's `echo` (its
`serving_completion`): the prompt comes back before the generated text, in the whole choice
and in a stream's first chunk of each choice (with the prompt's `prompt_token_ids`); with
`max_tokens: 0` the prompt alone (`echo_without_generation`: an lm-eval-style request for
the prompt's log probabilities), the engine then generating one token it counts in the
usage but does not show, so `finish_reason` is that token's, "length". `logprobs: N` gets
the legacy `logprobs` object (`router.simulator.logprobs`), with `echo` the prompt's tokens
first; vLLM then fills each choice's `prompt_logprobs` too (its `prompt_logprobs` field asks
for them alone). The simulator answered `logprobs: null` whatever was asked, and lm-eval's
multiple-choice scoring crashed reading it (found running lm-eval 0.4.13).

The cloud profile serves it, as OpenAI does, for a completions model only
(`router.openai_models`: gpt-3.5-turbo-instruct, davinci-002, babbage-002); a chat model, its
default gpt-4o among them, gets OpenAI's 404 (`errors.chat_model_on_completions`). It reads
no `echo`, as before, but refuses it beside `logprobs` as OpenAI's gpt-3.5-turbo-instruct
does ("Setting 'echo' and 'logprobs' at the same time is not supported for this model.", as
its clients quote it; lm-eval scores prompts only on babbage-002 and davinci-002); OpenAI
lists at most 5 alternatives per token (its API reference; it answered 5 to a request for
100, openai-python#38).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from router.simulator import logprobs
from router.simulator.chat import VLLM_FINGERPRINT, usage
from router.simulator.checks import check_stream_options, stop_strings
from router.simulator.completion_logprobs import asked_counts, echoes
from router.simulator.completion_prompts import Text, check_prompt, prompts
from router.simulator.errors import Flavor
from router.simulator.generation import Ask, Choice, Generation
from router.simulator.prompt import Prompt
from router.simulator.structured import FREE, Constraint, check_count, format_constraint
from router.simulator.wire import (
    DONE,
    Frame,
    Meta,
    check_stops,
    choice_count,
    greedy_n,
    int_field,
    interleave,
    required,
    sse,
)

DEFAULT_MAX_TOKENS = 16  # both vLLM and OpenAI default to 16 on this endpoint


@dataclass(frozen=True, slots=True)
class Shown:
    """What a reply shows beside each choice's generated text, as the request asked."""

    prompts: tuple[Text, ...]
    n: int = 1
    echo: bool = False  # vLLM's `echo` (the cloud profile reads none)
    alone: bool = False  # `echo` with `max_tokens: 0`: the prompt, nothing after it
    logprobs: int | None = None  # alternatives per token in `logprobs`; None: no such object
    prompt_logprobs: int | None = None  # vLLM's `prompt_logprobs` of each choice

    def prompt(self, index: int) -> Text:
        """The prompt the choice numbered `index` answers."""
        return self.prompts[index // self.n]


class CompletionsApi:
    name = "completions"
    id_prefix = "cmpl-"
    call_prefix = "call_"

    def flavor(self, profile: Flavor) -> Flavor:
        return profile

    def parse(self, body: dict[str, Any], profile: Flavor) -> Ask:
        # vLLM's request model's checks first (the last it defines runs first)
        if profile == "vllm":
            check_prompt(body.get("prompt"))
        check_stream_options(body, profile)
        counts = asked_counts(body, profile)
        if profile == "vllm":
            check_count(body, "completions")
        said = prompts(body, profile)
        required(body, "model", str, "model: Input should be a valid string.")
        options = body.get("stream_options")
        max_tokens, alone = _max_tokens(body, profile)
        check_stops(body, "stop", profile)
        n = choice_count(body, profile)
        greedy_n(profile, body, n)
        stop = stop_strings(body, profile)
        # vLLM's completions honour a `response_format`; OpenAI's have no such field
        constraint = format_constraint(body, profile) if profile == "vllm" else FREE
        asked = [(_prompt(t, constraint), t.tokens) for t in said]
        echo = profile == "vllm" and echoes(body, profile)
        shown = Shown(said, n, echo, echo and alone, counts[0], counts[1])
        return Ask(
            model=body["model"],
            prompt=asked[0][0],
            prompt_tokens=sum(size for _, size in asked),
            max_tokens=max_tokens,
            ignore_eos=bool(body.get("ignore_eos")),
            n=n,
            stream=bool(body.get("stream")),
            include_usage=isinstance(options, dict) and bool(options.get("include_usage")),
            stop=stop,
            refusal=constraint.refusal,
            extra={"shown": shown},
            batch=tuple(asked) if len(asked) > 1 else (),
        )

    def body(self, meta: Meta, gen: Generation, ask: Ask) -> dict[str, Any]:
        vllm = meta.flavor == "vllm"
        shown: Shown = ask.extra["shown"]
        choices = [_choice(meta, shown, i, choice) for i, choice in enumerate(gen.choices)]
        out = {
            "id": meta.id,
            "object": "text_completion",
            "created": meta.created,
            "model": meta.model,
            "choices": choices,
            "service_tier": None,
            "system_fingerprint": VLLM_FINGERPRINT if vllm else "fp_sim0001",
            "usage": usage(gen, meta.flavor),
        }
        return out | (dict.fromkeys(_VLLM_TAIL) if vllm else {})

    def frames(self, meta: Meta, gen: Generation, ask: Ask) -> Iterator[Frame]:
        if meta.flavor == "vllm":
            return _vllm_frames(meta, gen, ask)
        return _cloud_frames(meta, gen, ask)


def _prompt(text: Text, constraint: Constraint) -> Prompt:
    """What the simulated model reads of one prompt, and the output it must take."""
    return Prompt(user=text.text, output_schema=constraint.schema, output_choice=constraint.choice)


def _max_tokens(body: dict[str, Any], profile: Flavor) -> tuple[int, bool]:
    """The tokens to generate, and whether the answer is the echoed prompt alone: vLLM takes
    `max_tokens: 0` with `echo` and generates one token then (its sampling parameters'
    `max_tokens=1`); any other limit below 1 it refuses."""
    limit = body.get("max_tokens")
    if profile == "vllm" and echoes(body, profile) and type(limit) is int and limit == 0:
        return 1, True
    given = int_field(body, "max_tokens", 1, profile)
    return (DEFAULT_MAX_TOKENS if given is None else given), False


_VLLM_CHOICE = ("stop_reason", "token_ids", "prompt_logprobs", "prompt_token_ids", "routed_experts")
_VLLM_TAIL = ("kv_transfer_params", "ec_transfer_params", "metrics")


def _choice(meta: Meta, shown: Shown, index: int, choice: Choice) -> dict[str, Any]:
    """One whole choice: the prompt echoed before its text, its log probabilities."""
    book = _Book(meta, shown, index, choice)
    text, lp = book.chunk(tuple(choice.pieces()), first=True)
    out = {"index": index, "text": text, "logprobs": lp, "finish_reason": choice.finish}
    if meta.flavor != "vllm":
        return out
    out |= dict.fromkeys(_VLLM_CHOICE) | {"stop_reason": choice.stop_reason}
    return out | {"prompt_logprobs": book.prompt_entries()}


class _Book:
    """What one choice's chunks show beside its generated text, chunk after chunk: the
    prompt echoed in the first, and each chunk's tokens' log probabilities, their text
    offsets running on from the last chunk's (vLLM's `next_text_offsets`). The numbers are
    worked out once, and only when asked for: a stream's first token costs no more than
    before."""

    def __init__(self, meta: Meta, shown: Shown, index: int, choice: Choice) -> None:
        self.vllm = meta.flavor == "vllm"
        self.shown, self.said = shown, shown.prompt(index)
        self.pieces: tuple[str, ...] = self.said.pieces  # the prompt's, then the choice's
        self.steps: list[logprobs.Step | None] = []
        if shown.logprobs is not None or shown.prompt_logprobs is not None:
            self.pieces += tuple(choice.pieces())
            count = max(shown.logprobs or 0, shown.prompt_logprobs or 0)
            self.steps = logprobs.numbers(meta.model, self.pieces, len(self.said.pieces), count)
        self.at = len(self.said.pieces)  # where the next generated token is in `pieces`
        # vLLM counts offsets from 0; OpenAI from the end of the prompt it does not show
        self.offset = 0 if self.vllm or shown.echo else len(self.said.text)

    def chunk(self, pieces: tuple[str, ...], first: bool) -> tuple[str, dict[str, Any] | None]:
        """A chunk's text and `logprobs` for the generated tokens `pieces` (of a delta, or all
        of them); the first of a choice's chunks echoes the prompt before them, or alone
        (`max_tokens: 0`), where `echo` asks."""
        text, begin, end = "".join(pieces), self.at, self.at + len(pieces)
        if first and self.shown.echo:
            text = self.said.text if self.shown.alone else self.said.text + text
            begin = 0
            end = self.at if self.shown.alone else end
        self.at += len(pieces)
        if self.shown.logprobs is None:
            return text, None
        lp, self.offset = logprobs.legacy(
            self.pieces[begin:end], self.steps[begin:end], self.shown.logprobs, self.offset,
            self.vllm,
        )  # fmt: skip
        return text, lp

    def prompt_entries(self) -> list[dict[str, dict[str, Any]] | None] | None:
        """vLLM's `prompt_logprobs` of the choice, where they were asked for."""
        if self.shown.prompt_logprobs is None:
            return None
        size = len(self.said.pieces)
        return logprobs.prompt_entries(
            self.said.pieces, self.said.ids, self.steps[:size], self.shown.prompt_logprobs
        )

    def ending(self) -> dict[str, Any] | None:
        """The `logprobs` of a chunk that carries no token (a finish of its own): empty, as
        OpenAI's last chunk has them, where they were asked for."""
        if self.shown.logprobs is None:
            return None
        return logprobs.legacy((), (), 0, self.offset, self.vllm)[0]


def _cloud_frames(meta: Meta, gen: Generation, ask: Ask) -> Iterator[Frame]:
    """OpenAI's stream: `usage: null` on every chunk when usage was asked for, then a chunk
    per choice with its finish_reason."""
    head = {"id": meta.id, "object": "text_completion", "created": meta.created}
    head["model"] = meta.model
    shown: Shown = ask.extra["shown"]
    books = [_Book(meta, shown, i, choice) for i, choice in enumerate(gen.choices)]

    def chunk(index: int, text: str, lp: dict[str, Any] | None, finish: str | None) -> bytes:
        choice = {"index": index, "text": text, "logprobs": lp, "finish_reason": finish}
        obj = head | {"choices": [choice]}
        if ask.include_usage:
            obj["usage"] = None
        return sse(obj)

    per_choice = [gen.groups(c) for c in gen.choices]
    for index, group, _ in interleave(per_choice):
        text, lp = books[index].chunk(group, first=False)
        yield chunk(index, text, lp, None), True
    for index, choice in enumerate(gen.choices):
        yield chunk(index, "", books[index].ending(), choice.finish), False
    if ask.include_usage:
        yield sse(head | {"choices": [], "usage": usage(gen, meta.flavor)}), False
    yield DONE


def _vllm_frames(meta: Meta, gen: Generation, ask: Ask) -> Iterator[Frame]:
    """vLLM's stream: no `usage` key on chunks, the last token carries the finish_reason
    and the `stop` string that ended it (a natural end gets a chunk of its own), the usage
    chunk has no `*_details`; a choice's first chunk echoes the prompt and its token ids
    where `echo` asks."""
    head = {"id": meta.id, "object": "text_completion", "created": meta.created}
    head["model"] = meta.model
    shown: Shown = ask.extra["shown"]
    books = [_Book(meta, shown, i, choice) for i, choice in enumerate(gen.choices)]

    def chunk(index: int, said: tuple[str, dict[str, Any] | None], finish: str | None,
              stop: str | None = None, ids: list[int] | None = None) -> bytes:  # fmt: skip
        text, lp = said
        choice = {"index": index, "text": text, "logprobs": lp, "finish_reason": finish}
        choice |= {"stop_reason": stop, "prompt_token_ids": ids, "token_ids": None}
        return sse(head | {"choices": [choice]})

    per_choice = [gen.groups(c) for c in gen.choices]
    spoke: set[int] = set()
    for index, group, final in interleave(per_choice):
        first = index not in spoke  # a choice's first chunk carries what `echo` echoes
        said = books[index].chunk(group, first)
        ids = list(shown.prompt(index).ids) if first and shown.echo else None
        spoke.add(index)
        choice = gen.choices[index]
        if final and not choice.own_finish:
            yield chunk(index, said, choice.finish, choice.stop_reason, ids), True
        else:
            yield chunk(index, said, None, None, ids), True
    for index, choice in enumerate(gen.choices):
        if choice.own_finish or index not in spoke:  # end of sequence, or an abort
            yield chunk(index, ("", books[index].ending()), choice.finish), False
    if ask.include_usage:
        totals = {k: v for k, v in usage(gen, "vllm").items() if not k.endswith("_details")}
        tail = {"choices": [], "usage": totals, "system_fingerprint": VLLM_FINGERPRINT}
        yield sse(head | tail), False
    yield DONE
