"""Each server's context refusal, as a Messages client reads it (`context_refusal`): led by
Anthropic's words, with the numbers the server's own words give and no other, then the
server's words. The wordings are the ones `router.upstream_errors` recognises (module
docstring there; tests/router/test_context_errors.py holds whole bodies)."""

from __future__ import annotations

import pytest

from router.attempt_errors import ContextTooLong, OutputTooLong, Rejected
from router.errors import BadRequestTooLong
from router.refusals import named_as_sent
from router.request_size import Counts
from router.translate.context_refusal import anthropic_words

ADVICE = "decrease input length or `max_tokens` and try again"


@pytest.mark.parametrize(
    ("said", "lead"),
    [
        (  # OpenAI
            "This model's maximum context length is 8192 tokens. However, your messages "
            "resulted in 9000 tokens. Please reduce the length of the messages.",
            "prompt is too long: 9000 tokens > 8192 maximum",
        ),
        (  # vLLM before 0.10.1, flat: prompt plus output over the window, the prompt fits
            "This model's maximum context length is 4096 tokens. However, you requested "
            "4596 tokens (4096 in the messages, 500 in the completion). Please reduce the "
            "length of the messages or completion.",
            f"input length and `max_tokens` exceed context limit: 4096 + 500 > 4096, {ADVICE}",
        ),
        (  # vLLM
            "This model's maximum context length is 2048 tokens. However, you requested 100 "
            "output tokens and your prompt contains at least 1949 input tokens, for a total "
            "of at least 2049 tokens.",
            f"input length and `max_tokens` exceed context limit: 1949 + 100 > 2048, {ADVICE}",
        ),
        (  # vLLM, older
            "You passed 900 input tokens and requested 200 output tokens. However, the "
            "model's context length is only 1024 tokens, resulting in a maximum input "
            "length of 824 tokens.",
            f"input length and `max_tokens` exceed context limit: 900 + 200 > 1024, {ADVICE}",
        ),
        (  # SGLang
            "The input (43028 tokens) is longer than the model's context length (40960 tokens).",
            "prompt is too long: 43028 tokens > 40960 maximum",
        ),
        (
            "Requested token count exceeds the model's maximum context length of 65536 "
            "tokens. You requested a total of 67298 tokens: 50914 tokens from the input "
            "messages and 16384 tokens for the completion.",
            f"input length and `max_tokens` exceed context limit: 50914 + 16384 > 65536, {ADVICE}",
        ),
        (  # llama.cpp
            "request (9412 tokens) exceeds the available context size (8192 tokens), try "
            "increasing it",
            "prompt is too long: 9412 tokens > 8192 maximum",
        ),
        (  # TGI
            "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. "
            "Given: 4000 `inputs` tokens and 200 `max_new_tokens`",
            f"input length and `max_tokens` exceed context limit: 4000 + 200 > 4096, {ADVICE}",
        ),
        (
            "Input validation error: `inputs` must have less than 1024 tokens. Given: 1100",
            "prompt is too long: 1100 tokens > 1024 maximum",
        ),
        (  # Ollama: no numbers a client could use
            "prompt too long; exceeded max context length by 12 tokens",
            "prompt is too long",
        ),
    ],
)
def test_a_backends_prompt_refusal_leads_with_anthropics_words(said: str, lead: str) -> None:
    error = ContextTooLong(said, backend="b", param="messages")
    assert anthropic_words(error) == f"{lead}. {said}"


def test_an_output_refusal_names_only_the_numbers_its_words_give() -> None:
    said = "max_tokens=4000 cannot be greater than max_model_len=2048. Please request fewer."
    error = OutputTooLong(said, backend="b", param="max_tokens")
    assert anthropic_words(error) == (
        "input length and `max_tokens` exceed context limit (input length not known, "
        f"`max_tokens` 4000, context limit 2048), {ADVICE}. {said}"
    )


def test_anthropics_own_words_and_other_errors_stay_as_they_came() -> None:
    anthropic = "prompt is too long: 210118 tokens > 200000 maximum"
    assert anthropic_words(ContextTooLong(anthropic, backend="claude")) == anthropic
    other = Rejected("bad tool", backend="b", status=400, upstream={})
    assert anthropic_words(other) == "bad tool"


def test_the_routers_own_refusals_keep_the_phrases_without_numbers() -> None:
    prompt = BadRequestTooLong("This request is longer ...", param="messages")
    assert anthropic_words(prompt) == "prompt is too long. This request is longer ..."
    output = BadRequestTooLong("This request's prompt ...", param="max_tokens")
    assert anthropic_words(output) == (
        f"input length and `max_tokens` exceed context limit, {ADVICE}. This request's prompt ..."
    )


def test_the_routers_own_output_refusal_says_its_numbers_in_anthropics_form() -> None:
    """Nothing tried: its estimate, the `max_tokens` asked and the largest window skipped
    (`router.refusals`), the form Claude Code lowers `max_tokens` on; a note says whose."""
    said = "This request's prompt ..."
    output = BadRequestTooLong(said, param="max_tokens", sizes=Counts(631, 1500, 1600))
    assert anthropic_words(output) == (
        f"input length and `max_tokens` exceed context limit: 631 + 1500 > 1600, {ADVICE}. "
        f"{said} (The input length is the router's estimate of the prompt's tokens; the "
        "context limit is the largest window of the backends that could serve it.)"
    )
    # OpenAI clients keep the words
    assert output.body()["error"]["message"] == said


def test_the_routers_estimate_completes_a_backends_output_refusal() -> None:
    said = "max_tokens=4000 cannot be greater than max_model_len=2048. Please request fewer."
    error = named_as_sent(
        OutputTooLong(said, backend="b", param="max_tokens"), "messages", {"max_tokens": 4000}, 631
    )
    assert anthropic_words(error) == (
        f"input length and `max_tokens` exceed context limit: 631 + 4000 > 2048, {ADVICE}. "
        f"{said} (The input length is the router's estimate of the prompt's tokens; the "
        "backend's refusal said `max_tokens` 4000, context limit 2048.)"
    )
    assert error.message == said


def test_an_estimate_leaves_a_refusal_whose_words_say_the_prompt_as_it_was() -> None:
    said = (
        "This model's maximum context length is 2048 tokens. However, you requested 100 "
        "output tokens and your prompt contains at least 1949 input tokens, for a total "
        "of at least 2049 tokens."
    )
    error = named_as_sent(ContextTooLong(said, backend="b"), "messages", {"max_tokens": 100}, 9)
    assert anthropic_words(error) == (
        f"input length and `max_tokens` exceed context limit: 1949 + 100 > 2048, {ADVICE}. {said}"
    )
