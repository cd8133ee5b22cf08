"""A context-length refusal in Anthropic's words, for a Messages client (Claude Code).

Claude Code compacts its history only on Anthropic's own wording, matched case-insensitively:
"prompt is too long" (the prompt alone is over the window: "prompt is too long: N tokens >
M maximum") and "input length and `max_tokens` exceed context limit" (the prompt fits, the
output room it asks does not: "...: I + K > L, decrease input length or `max_tokens` and
try again", on which it lowers `max_tokens`). vLLM's, OpenAI's and the router's own words
for the same refusal ("This model's maximum context length is ...") it reads as any other
400: the session stopped at its window and never compacted (found in review).

So the message leads with Anthropic's wording, its numbers read from the refusal's own
words when they are there (`_COUNTS`, the wordings `router.upstream_errors` recognises).
An output refusal's numbers the words do not give are the router's where it has them
(`sizes`): its estimate of the prompt, and for its own refusal (nothing tried) the output
limit and the largest window it skipped; Claude Code lowers `max_tokens` only when all three
are said. When one is still not known the phrase stays as Anthropic says it and what is
known follows, never a made-up number. The original words come after it, then a note
naming the router's numbers. Chat and Responses clients keep the message as it was
(Codex reads the `code`, `context_length_exceeded`). A model's own output cap ("max_tokens
is too large: ...", `OutputCapped`) is no context limit: it keeps the provider's words.
"""

from __future__ import annotations

import re

from router.attempt_errors import ContextTooLong, OutputCapped, OutputTooLong
from router.errors import BadRequestTooLong, RouterError
from router.request_size import OUTPUT_LIMITS, Counts

PROMPT = "prompt is too long"
OUTPUT = "input length and `max_tokens` exceed context limit"
_ADVICE = "decrease input length or `max_tokens` and try again"
_NAMES = ("input length", "`max_tokens`", "context limit")  # the three numbers, as said

# Each server's numbers, in its own words (tests/router/test_context_errors.py holds them):
# `prompt` the input's tokens, `output` the output limit asked, `limit` the window.
_COUNTS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # OpenAI, vLLM: the prompt alone ("your messages resulted in", "your prompt contains
        # at least"), or with the output room asked ("you requested K output tokens and your
        # prompt contains at least N", "you requested T tokens (N in the messages, K in the
        # completion)")
        r"maximum context length is (?P<limit>\d+) tokens\. However, (?:you requested "
        r"(?P<output>\d+) output tokens and )?your (?:messages resulted in|prompt contains "
        r"at least) (?P<prompt>\d+)",
        r"maximum context length is (?P<limit>\d+) tokens\. However, you requested \d+ "
        r"tokens \((?P<prompt>\d+) in the messages, (?P<output>\d+) in the completion\)",
        # vLLM: an output limit over the window, whatever the prompt
        r"(?:max_tokens|max_completion_tokens|max_output_tokens)=(?P<output>\d+) cannot be "
        r"greater than max_model_len=(?:max_total_tokens=)?(?P<limit>\d+)",
        # vLLM before 0.10.1
        r"You passed (?P<prompt>\d+) input tokens and requested (?P<output>\d+) output "
        r"tokens\. However, the model's context length is only (?P<limit>\d+)",
        # SGLang
        r"The input \((?P<prompt>\d+) tokens\) is longer than the model's context length "
        r"\((?P<limit>\d+) tokens\)",
        r"maximum context length of (?P<limit>\d+) tokens\. You requested a total of \d+ "
        r"tokens: (?P<prompt>\d+) tokens from the input messages and (?P<output>\d+) tokens",
        # llama.cpp
        r"request \((?P<prompt>\d+) tokens\) exceeds the available context size "
        r"\((?P<limit>\d+) tokens\)",
        # TGI
        r"`inputs` tokens \+ `max_new_tokens` must be <= (?P<limit>\d+)\. Given: "
        r"(?P<prompt>\d+) `inputs` tokens and (?P<output>\d+) `max_new_tokens`",
        r"`inputs` must have less than (?P<limit>\d+) tokens\. Given: (?P<prompt>\d+)",
    )
)


def counts(message: str) -> Counts:
    """The numbers of the first wording `message` is in; none when it is in none."""
    for pattern in _COUNTS:
        found = pattern.search(message)
        if found is not None:
            named = found.groupdict()
            return Counts(*(_number(named.get(key)) for key in ("prompt", "output", "limit")))
    return Counts()


def _number(text: str | None) -> int | None:
    return None if text is None else int(text)


def is_context_refusal(error: RouterError) -> bool:
    """A prompt (or the output room it asks) over a window: a backend's, or every one's. Not
    a model's own output cap (`OutputCapped`): no smaller prompt is served, so a client is
    not told to compact, nor to fit "input length and `max_tokens`" into a context limit."""
    return isinstance(error, ContextTooLong | BadRequestTooLong) and not isinstance(
        error, OutputCapped
    )


def anthropic_words(error: RouterError) -> str:
    """The message a Messages client gets: a context refusal led by Anthropic's wording,
    any other error's as it is. One already in Anthropic's words (an Anthropic backend's)
    stays as it came."""
    message = error.message
    if not is_context_refusal(error) or message.lower().startswith((PROMPT, OUTPUT)):
        return message
    said = counts(message)
    if not _is_output(error, said):
        return f"{_prompt_lead(said)}. {message}"
    ours = error.sizes if isinstance(error, BadRequestTooLong | ContextTooLong) else Counts()
    known = Counts(*(w if w is not None else o for w, o in zip(_of(said), _of(ours), strict=True)))
    return f"{_output_lead(known)}. {message}{_note(said, known)}"


def _is_output(error: RouterError, said: Counts) -> bool:
    """Which of the two refusals this is: by the numbers when the words give them (a prompt
    that fits the window with only the output room asked over it, in vLLM's older words,
    SGLang's or TGI's, which the router reads as the prompt's), else by what the router
    made of it: the output limit named (`OutputTooLong`, its own refusal's `param`)."""
    prompt, output, limit = _of(said)
    if prompt is not None and limit is not None and prompt > limit:
        return False
    if prompt is not None and output is not None and limit is not None:
        return True
    return isinstance(error, OutputTooLong) or (
        isinstance(error, BadRequestTooLong) and error.param in OUTPUT_LIMITS["messages"]
    )


def _output_lead(known: Counts) -> str:
    """Anthropic's output refusal, in its own form when all three numbers are known: Claude
    Code lowers `max_tokens` only on "...: I + K > L" (its
    `parseMaxTokensContextOverflowError`); the phrase alone, or with the numbers known, it
    read as any 400, and the session stopped there (found in review)."""
    prompt, output, limit = _of(known)
    if prompt is not None and output is not None and limit is not None:
        return f"{OUTPUT}: {prompt} + {output} > {limit}, {_ADVICE}"
    if prompt is None and output is None and limit is None:
        return f"{OUTPUT}, {_ADVICE}"
    shown = ", ".join(f"{name} {'not known' if n is None else n}" for name, n in _named(known))
    return f"{OUTPUT} ({shown}), {_ADVICE}"


def _note(said: Counts, known: Counts) -> str:
    """After the words, which numbers of the lead are the router's rather than the words':
    its estimate of the prompt (characters, not the backend's tokenizer), and for its own
    refusal the largest window it skipped (`router.refusals`). Empty when none is."""
    ours = []
    if said.prompt is None and known.prompt is not None:
        ours.append("the input length is the router's estimate of the prompt's tokens")
    if said.limit is None and known.limit is not None:
        ours.append("the context limit is the largest window of the backends that could serve it")
    if not ours:
        return ""
    theirs = ", ".join(f"{name} {n}" for name, n in _named(said) if n is not None)
    if theirs:
        ours.append(f"the backend's refusal said {theirs}")
    text = "; ".join(ours)
    return f" ({text[0].upper()}{text[1:]}.)"


def _named(numbers: Counts) -> tuple[tuple[str, int | None], ...]:
    return tuple(zip(_NAMES, _of(numbers), strict=True))


def _of(numbers: Counts) -> tuple[int | None, int | None, int | None]:
    return numbers.prompt, numbers.output, numbers.limit


def _prompt_lead(said: Counts) -> str:
    """Anthropic's prompt refusal, with the numbers the words give."""
    prompt, limit = said.prompt, said.limit
    if prompt is not None and limit is not None:
        return f"{PROMPT}: {prompt} tokens > {limit} maximum"
    if limit is not None:
        return f"{PROMPT} for a context limit of {limit} tokens"
    if prompt is not None:
        return f"{PROMPT} at {prompt} tokens"
    return PROMPT
