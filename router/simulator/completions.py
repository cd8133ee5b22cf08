"""Legacy OpenAI Completions (`/v1/completions`), as vLLM and OpenAI serve it.

vLLM's `echo` (its `serving_completion`): the prompt comes back before the generated text,
in the whole choice and in a stream's first chunk of each choice; with `max_tokens: 0` the
prompt alone (`echo_without_generation`: an lm-eval-style request for the prompt's log
probabilities), the engine then generating one token it counts in the usage but does not
show, so `finish_reason` is that token's, "length". The cloud profile reads no `echo`, as
before: which of OpenAI's models serve `echo` with `max_tokens: 0` is not clear from what its
clients report (gpt-3.5-turbo-instruct refuses `echo` with `logprobs`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from router.simulator import tokens
from router.simulator.answer import Prompt
from router.simulator.chat import VLLM_FINGERPRINT, usage
from router.simulator.checks import check_stream_options, stop_strings
from router.simulator.errors import Flavor
from router.simulator.generation import Ask, Generation
from router.simulator.structured import FREE, check_count, format_constraint
from router.simulator.wire import (
    DONE,
    Frame,
    Meta,
    bad_request,
    check_stops,
    greedy_n,
    int_field,
    interleave,
    required,
    sse,
)

DEFAULT_MAX_TOKENS = 16  # both vLLM and OpenAI default to 16 on this endpoint


class CompletionsApi:
    name = "completions"
    id_prefix = "cmpl-"
    call_prefix = "call_"

    def flavor(self, profile: Flavor) -> Flavor:
        return profile

    def parse(self, body: dict[str, Any], profile: Flavor) -> Ask:
        if profile == "vllm":
            check_count(body, "completions")
        check_stream_options(body, profile)
        prompt = body.get("prompt")
        if isinstance(prompt, list) and prompt and all(isinstance(p, str) for p in prompt):
            prompt = prompt[0]
        if not isinstance(prompt, str):
            required(body, "prompt", str, "prompt: Field required (a string).")
            raise bad_request("prompt: Field required (a string).", "prompt")
        required(body, "model", str, "model: Input should be a valid string.")
        options = body.get("stream_options")
        max_tokens, alone = _max_tokens(body, profile)
        check_stops(body, "stop", profile)
        n = int_field(body, "n", 1, profile) or 1
        greedy_n(profile, body, n)
        stop = stop_strings(body, profile)
        # vLLM's completions honour a `response_format`; OpenAI's have no such field
        constraint = format_constraint(body, profile) if profile == "vllm" else FREE
        return Ask(
            model=body["model"],
            prompt=Prompt(
                user=prompt, output_schema=constraint.schema, output_choice=constraint.choice
            ),
            prompt_tokens=tokens.count(prompt) + 1,
            max_tokens=max_tokens,
            ignore_eos=bool(body.get("ignore_eos")),
            n=n,
            stream=bool(body.get("stream")),
            include_usage=isinstance(options, dict) and bool(options.get("include_usage")),
            stop=stop,
            refusal=constraint.refusal,
            extra=_echo(body, profile, prompt, alone),
        )

    def body(self, meta: Meta, gen: Generation, ask: Ask) -> dict[str, Any]:
        vllm = meta.flavor == "vllm"
        choices = [
            {
                "index": i,
                "text": shown(ask, choice.text),
                "logprobs": None,
                "finish_reason": choice.finish,
            }
            | (dict.fromkeys(_VLLM_CHOICE) | {"stop_reason": choice.stop_reason} if vllm else {})
            for i, choice in enumerate(gen.choices)
        ]
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


def _max_tokens(body: dict[str, Any], profile: Flavor) -> tuple[int, bool]:
    """The tokens to generate, and whether the answer is the echoed prompt alone: vLLM takes
    `max_tokens: 0` with `echo` and generates one token then (its sampling parameters'
    `max_tokens=1`); any other limit below 1 it refuses."""
    limit = body.get("max_tokens")
    if profile == "vllm" and body.get("echo") is True and type(limit) is int and limit == 0:
        return 1, True
    given = int_field(body, "max_tokens", 1, profile)
    return (DEFAULT_MAX_TOKENS if given is None else given), False


def _echo(body: dict[str, Any], profile: Flavor, prompt: str, alone: bool) -> dict[str, Any]:
    """What `shown` reads: the prompt vLLM echoes, and whether it is all it shows."""
    if profile != "vllm" or body.get("echo") is not True:
        return {}
    return {"echo": prompt, "echo_alone": alone}


def shown(ask: Ask, text: str) -> str:
    """A choice's text as the client reads it (or a stream's first piece of it): after the
    echoed prompt, or the prompt alone (`_max_tokens`)."""
    echoed = ask.extra.get("echo")
    if not isinstance(echoed, str):
        return text
    return echoed if ask.extra.get("echo_alone") else echoed + text


_VLLM_CHOICE = ("stop_reason", "token_ids", "prompt_logprobs", "prompt_token_ids", "routed_experts")
_VLLM_TAIL = ("kv_transfer_params", "ec_transfer_params", "metrics")


def _cloud_frames(meta: Meta, gen: Generation, ask: Ask) -> Iterator[Frame]:
    """OpenAI's stream: `usage: null` on every chunk when usage was asked for, then a chunk
    per choice with its finish_reason."""
    head = {"id": meta.id, "object": "text_completion", "created": meta.created}
    head["model"] = meta.model

    def chunk(index: int, text: str, finish: str | None) -> bytes:
        choice = {"index": index, "text": text, "logprobs": None, "finish_reason": finish}
        obj = head | {"choices": [choice]}
        if ask.include_usage:
            obj["usage"] = None
        return sse(obj)

    per_choice = [gen.deltas(c) for c in gen.choices]
    for index, delta, _ in interleave(per_choice):
        yield chunk(index, delta, None), True
    for index, choice in enumerate(gen.choices):
        yield chunk(index, "", choice.finish), False
    if ask.include_usage:
        yield sse(head | {"choices": [], "usage": usage(gen, meta.flavor)}), False
    yield DONE


def _vllm_frames(meta: Meta, gen: Generation, ask: Ask) -> Iterator[Frame]:
    """vLLM's stream: no `usage` key on chunks, the last token carries the finish_reason
    and the `stop` string that ended it (a natural end gets a chunk of its own), the usage
    chunk has no `*_details`."""
    head = {"id": meta.id, "object": "text_completion", "created": meta.created}
    head["model"] = meta.model

    def chunk(index: int, text: str, finish: str | None, stop: str | None = None) -> bytes:
        choice = {"index": index, "text": text, "logprobs": None, "finish_reason": finish}
        choice |= {"stop_reason": stop, "prompt_token_ids": None, "token_ids": None}
        return sse(head | {"choices": [choice]})

    per_choice = [gen.deltas(c) for c in gen.choices]
    spoke: set[int] = set()
    for index, delta, final in interleave(per_choice):
        if index not in spoke:  # a choice's first chunk carries what `echo` echoes
            delta = shown(ask, delta)
        spoke.add(index)
        choice = gen.choices[index]
        if final and not choice.own_finish:
            yield chunk(index, delta, choice.finish, choice.stop_reason), True
        else:
            yield chunk(index, delta, None), True
    for index, choice in enumerate(gen.choices):
        if choice.own_finish or index not in spoke:  # end of sequence, or an abort
            yield chunk(index, "", choice.finish), False
    if ask.include_usage:
        totals = {k: v for k, v in usage(gen, "vllm").items() if not k.endswith("_details")}
        tail = {"choices": [], "usage": totals, "system_fingerprint": VLLM_FINGERPRINT}
        yield sse(head | tail), False
    yield DONE
