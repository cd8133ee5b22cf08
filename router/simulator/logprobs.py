"""Log probabilities of a completion's tokens: the legacy completions `logprobs` object (OpenAI's
and vLLM's) and vLLM's `prompt_logprobs`.

The numbers are made up, deterministically: a token's from a hash of the model's name, the
tokens before it and itself, so two prompts that begin alike share the numbers of that
beginning, as one model's do, and two models differ. A generated token is the likeliest
(greedy, as at temperature 0: lm-eval's `is_greedy` compares it with the top); a prompt's
token may rank anywhere. The alternatives are common tokens in decreasing order, their
probabilities and the token's own summing below one.

The shapes are vLLM 0.32's (`_create_completion_logprobs`, its CPU build run in review) and
OpenAI's API reference: each token's `top_logprobs` holds the token itself first, then the
`logprobs` likeliest (itself once, when it is among them), so up to `logprobs` + 1 entries;
an echoed prompt's first token has nothing before it, its logprob and top null;
`text_offset` adds up the characters of the tokens before, from 0, or on OpenAI from the end
of a prompt it does not echo.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from router.simulator import tokens

MAX_TOP = 20  # vLLM's `max_logprobs` default: the most alternatives it lists
# Alternatives to any token, in no order: a hash picks where each token's list starts.
_COMMON = (
    " the", ",", " of", ".", " and", " to", " a", " in", "\n", " is", " that",
    " for", " it", " with", " as", " was", " on", " be", " at", " by", " this", " not",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Step:
    """One token's numbers: its log probability, its rank, and the likeliest tokens in order
    (itself among them where it ranks), as many as were asked for."""

    logprob: float
    rank: int
    ranked: tuple[tuple[str, float], ...]

    def top(self, piece: str, count: int) -> dict[str, float]:
        """`top_logprobs` of the token `piece`: itself, then the `count` likeliest."""
        return {piece: self.logprob, **dict(self.ranked[:count])}


def numbers(
    model: str, pieces: Sequence[str], generated_from: int, count: int
) -> list[Step | None]:
    """Each token's numbers, `count` alternatives each: none for the first (nothing comes
    before it); those from `generated_from` on were generated, the likeliest each."""
    state = hashlib.blake2b(model.encode(), digest_size=16).digest()
    out: list[Step | None] = []
    for position, piece in enumerate(pieces):
        draws = hashlib.blake2b(state + b"\x00" + piece.encode(), digest_size=16).digest()
        out.append(_step(draws, piece, position >= generated_from, count) if position else None)
        state = draws
    return out


def _step(draws: bytes, piece: str, greedy: bool, count: int) -> Step:
    """A token's probability (above one half for a generated one, anywhere down to e^-9 for
    a prompt's), the alternatives' falling geometrically in what is left, and its rank among
    them (past the listed `MAX_TOP`, a rank drawn from the hash)."""
    u = [int.from_bytes(draws[i : i + 2], "big") / 65536 for i in range(0, 8, 2)]
    own = 0.5 + 0.48 * u[0] if greedy else math.exp(-(0.05 + 9.0 * u[0]))
    ratio = 0.3 + 0.4 * u[1]
    start = int(u[2] * len(_COMMON))
    names = [c for c in _COMMON[start:] + _COMMON[:start] if c != piece][:MAX_TOP]
    alternatives = [(1.0 - own) * (1.0 - ratio) * ratio**k for k in range(len(names))]
    above = sum(1 for p in alternatives if p > own)
    rank = above + 1 if above < len(names) else len(names) + 1 + int(u[3] * 2000)
    listed = [(name, math.log(p)) for name, p in zip(names, alternatives, strict=True)]
    if above < len(names):
        listed.insert(above, (piece, math.log(own)))
    return Step(math.log(own), rank, tuple(listed[:count]))


def legacy(
    pieces: Sequence[str], steps: Sequence[Step | None], count: int, offset: int, vllm: bool
) -> tuple[dict[str, Any], int]:
    """The `logprobs` object of the tokens `pieces` (their `steps`, `count` alternatives each),
    the first at the text offset `offset`; and the offset after the last. Its keys in the
    order each server writes them."""
    text_offset: list[int] = []
    token_logprobs: list[float | None] = []
    top: list[dict[str, float] | None] = []
    for piece, step in zip(pieces, steps, strict=True):
        text_offset.append(offset)
        offset += len(piece)
        token_logprobs.append(None if step is None else step.logprob)
        top.append(None if step is None else step.top(piece, count))
    if vllm:  # its `CompletionLogProbs` fields' order
        shaped = {"text_offset": text_offset, "token_logprobs": token_logprobs}
        return shaped | {"tokens": list(pieces), "top_logprobs": top}, offset
    shaped = {"tokens": list(pieces), "token_logprobs": token_logprobs, "top_logprobs": top}
    return shaped | {"text_offset": text_offset}, offset


def prompt_entries(
    pieces: Sequence[str], ids: Sequence[int], steps: Sequence[Step | None], count: int
) -> list[dict[str, dict[str, Any]] | None]:
    """vLLM's `prompt_logprobs` of a choice: for each prompt token but the first, itself and
    the `count` likeliest by token id, with each one's rank and text."""
    out: list[dict[str, dict[str, Any]] | None] = []
    for piece, token, step in zip(pieces, ids, steps, strict=True):
        if step is None:
            out.append(None)
            continue
        entry = {str(token): _entry(step.logprob, step.rank, piece)}
        for rank, (name, logprob) in enumerate(step.ranked[:count], 1):
            key = str(token) if name == piece else str(tokens.token_id(name))
            entry.setdefault(key, _entry(logprob, rank, name))
        out.append(entry)
    return out


def _entry(logprob: float, rank: int, text: str) -> dict[str, Any]:
    return {"logprob": logprob, "rank": rank, "decoded_token": text}
