"""Legacy OpenAI Completions (`/v1/completions`), as vLLM and OpenAI serve it."""

from __future__ import annotations

from typing import Any

from router.simulator import tokens
from router.simulator.answer import Prompt
from router.simulator.chat import usage
from router.simulator.errors import Flavor
from router.simulator.generation import Ask, Generation
from router.simulator.wire import DONE, Frame, Meta, bad_request, int_field, sse

DEFAULT_MAX_TOKENS = 16  # both vLLM and OpenAI default to 16 on this endpoint


class CompletionsApi:
    id_prefix = "cmpl-"
    call_prefix = "call_"

    def flavor(self, profile: Flavor) -> Flavor:
        return profile

    def parse(self, body: dict[str, Any], profile: Flavor) -> Ask:
        prompt = body.get("prompt")
        if isinstance(prompt, list) and prompt and all(isinstance(p, str) for p in prompt):
            prompt = prompt[0]
        if not isinstance(prompt, str):
            raise bad_request("prompt: Field required (a string).", "prompt")
        model = body.get("model")
        if not isinstance(model, str):
            raise bad_request("model: Input should be a valid string.", "model")
        options = body.get("stream_options")
        max_tokens = int_field(body, "max_tokens", 1)
        return Ask(
            model=model,
            prompt=Prompt(user=prompt),
            prompt_tokens=tokens.count(prompt) + 1,
            max_tokens=DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens,
            ignore_eos=bool(body.get("ignore_eos")),
            n=int_field(body, "n", 1) or 1,
            stream=bool(body.get("stream")),
            include_usage=isinstance(options, dict) and bool(options.get("include_usage")),
        )

    def body(self, meta: Meta, gen: Generation, ask: Ask) -> dict[str, Any]:
        choices = [
            {
                "index": i,
                "text": choice.text,
                "logprobs": None,
                "finish_reason": choice.finish,
            }
            | ({"stop_reason": None, "prompt_logprobs": None} if meta.flavor == "vllm" else {})
            for i, choice in enumerate(gen.choices)
        ]
        return {
            "id": meta.id,
            "object": "text_completion",
            "created": meta.created,
            "model": meta.model,
            "choices": choices,
            "service_tier": None,
            "system_fingerprint": None if meta.flavor == "vllm" else "fp_sim0001",
            "usage": usage(gen, meta.flavor),
        }

    def frames(self, meta: Meta, gen: Generation, ask: Ask) -> list[Frame]:
        head = {"id": meta.id, "object": "text_completion", "created": meta.created}
        head["model"] = meta.model

        def chunk(index: int, text: str, finish: str | None) -> bytes:
            choice = {"index": index, "text": text, "logprobs": None, "finish_reason": finish}
            if meta.flavor == "vllm":
                choice["stop_reason"] = None
            obj = head | {"choices": [choice]}
            if ask.include_usage:
                obj["usage"] = None
            return sse(obj)

        frames: list[Frame] = []
        longest = max((len(c.pieces) for c in gen.choices), default=0)
        for step in range(longest):
            for index, choice in enumerate(gen.choices):
                if step < len(choice.pieces):
                    frames.append((chunk(index, choice.pieces[step], None), True))
        frames += [(chunk(i, "", c.finish), False) for i, c in enumerate(gen.choices)]
        if ask.include_usage:
            frames.append((sse(head | {"choices": [], "usage": usage(gen, meta.flavor)}), False))
        frames.append(DONE)
        return frames
