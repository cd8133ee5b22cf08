"""A context-length refusal in Anthropic's words, for a Messages client (Claude Code).

Claude Code compacts its history only on Anthropic's own wording, matched case-insensitively:
"prompt is too long" (the prompt alone is over the window: "prompt is too long: N tokens >
M maximum") and "input length and `max_tokens` exceed context limit" (the prompt fits, the
output room it asks does not: "...: I + K > L, decrease input length or `max_tokens` and
try again", on which it lowers `max_tokens`). vLLM's, OpenAI's and the router's own words
for the same refusal ("This model's maximum context length is ...") it reads as any other
400: the session stopped at its window and never compacted (found in review).

So the message leads with Anthropic's wording, its numbers read from the refusal's own
words when they are there (`_COUNTS`, the wordings `router.upstream_errors` recognises);
when one is not known the phrase stays as Anthropic says it and what is known follows,
never a made-up number. The original words come after it. Chat and Responses clients keep
the message as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from router.errors import BadRequestTooLong, ContextTooLong, OutputTooLong, RouterError
from router.request_size import OUTPUT_LIMITS

PROMPT = "prompt is too long"
OUTPUT = "input length and `max_tokens` exceed context limit"
_ADVICE = "decrease input length or `max_tokens` and try again"

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


@dataclass(frozen=True, slots=True)
class Counts:
    """What a refusal's words say, each None when they do not."""

    prompt: int | None = None
    output: int | None = None
    limit: int | None = None


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
    """A prompt (or the output room it asks) over a window: a backend's, or every one's."""
    return isinstance(error, ContextTooLong | BadRequestTooLong)


def anthropic_words(error: RouterError) -> str:
    """The message a Messages client gets: a context refusal led by Anthropic's wording,
    any other error's as it is. One already in Anthropic's words (an Anthropic backend's)
    stays as it came."""
    message = error.message
    if not is_context_refusal(error) or message.lower().startswith((PROMPT, OUTPUT)):
        return message
    return f"{_lead(error, counts(message))}. {message}"


def _lead(error: RouterError, known: Counts) -> str:
    """Which of the two refusals this is: by the numbers when the words give them (a prompt
    that fits the window with only the output room asked over it, in vLLM's older words,
    SGLang's or TGI's, which the router reads as the prompt's), else by what the router
    made of it: the output limit named (`OutputTooLong`, its own refusal's `param`)."""
    prompt, output, limit = known.prompt, known.output, known.limit
    prompt_over = prompt is not None and limit is not None and prompt > limit
    if not prompt_over and prompt is not None and output is not None and limit is not None:
        return f"{OUTPUT}: {prompt} + {output} > {limit}, {_ADVICE}"
    names_output = isinstance(error, OutputTooLong) or (
        isinstance(error, BadRequestTooLong) and error.param in OUTPUT_LIMITS["messages"]
    )
    if names_output and not prompt_over:
        said = (
            ("input length", prompt),
            ("`max_tokens`", output),
            ("context limit", limit),
        )
        if all(n is None for _, n in said):
            return f"{OUTPUT}, {_ADVICE}"
        shown = ", ".join(f"{name} {'not known' if n is None else n}" for name, n in said)
        return f"{OUTPUT} ({shown}), {_ADVICE}"
    if prompt is not None and limit is not None:
        return f"{PROMPT}: {prompt} tokens > {limit} maximum"
    if limit is not None:
        return f"{PROMPT} for a context limit of {limit} tokens"
    if prompt is not None:
        return f"{PROMPT} at {prompt} tokens"
    return PROMPT
