"""What a litellm exception says, in the provider's words: litellm's wrapping comes off, and
no body a provider sends can make the reading itself fail (found in review)."""

from __future__ import annotations

import pytest

from router.backends.litellm_words import _READ, first_line

DEEP_JSON = "AnthropicException - " + '{"a":' * 100_000 + "1" + "}" * 100_000
DEEP_BYTES = "litellm.BadRequestError: AnthropicException - b''" + "-" * 200_000 + "1"


@pytest.mark.parametrize("text", [DEEP_JSON, DEEP_BYTES], ids=["nested_json", "unary_bytes"])
def test_a_body_too_deep_to_read_is_one_line_not_an_error(text: str) -> None:
    """json's raw_decode raised RecursionError, ast.literal_eval MemoryError: the router's
    own 500 instead of the provider's 4xx."""
    said = first_line(Exception(text))
    assert said and len(said) <= 500


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            'litellm.BadRequestError: GeminiException BadRequestError - {"error": '
            '{"code": 400, "message": "Invalid JSON payload received."}}',
            "Invalid JSON payload received.",
        ),
        (
            "litellm.BadRequestError: Vertex_ai_betaException BadRequestError - "
            'b\'{"error": {"message": "Invalid value at contents"}}\'',
            "Invalid value at contents",
        ),
        (
            "litellm.Timeout: Timeout Error: OpenAIException - Request timed out.",
            "Request timed out.",
        ),
        (
            "litellm.BadRequestError: AnthropicException - "
            'b\'{"type": "error", "error": {"type": "invalid_request_error", "message": "m"}}\'',
            "m",
        ),
    ],
    ids=["gemini", "vertex_beta", "timeout", "anthropic"],
)
def test_litellms_prefixes_come_off(text: str, said: str) -> None:
    assert first_line(Exception(text)) == said


KEY = "gwlive7f3a9c2e5b1d4f60a8e2c9d0e"
SK = "sk-proj-4fA9b2C7d1E8f3G6h5J0k"


@pytest.mark.parametrize(("secret", "secrets"), [(KEY, [KEY]), (SK, [])], ids=["key", "sk"])
def test_a_key_the_read_goes_through_is_masked_when_cleaning_shortens_the_line(
    secret: str, secrets: list[str]
) -> None:
    """Read to 64 KiB and cleaned, `?a=` and its filler became `?***`, and the line, under
    the 500 characters shown, ended in the head of the key the read had cut."""
    lead = "litellm.BadRequestError: OpenAIException - ?a="
    said = " headers: authorization=" + secret
    for keep in (4, 12, len(secret) - 1):
        filler = "x" * (_READ - len(lead) - len(said) + len(secret) - keep)
        text = lead + filler + said + " more"
        assert text[:_READ].endswith(" authorization=" + secret[:keep])
        shown = first_line(Exception(text), secrets)
        assert shown == "?*** headers: ***", (keep, shown)


LONG = "x" * (_READ + 100)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (
            '{"error": {"type": "invalid_request_error", "message": "string too long. Got: '
            + LONG
            + '"}}',
            "string too long. Got: ***",
        ),
        (
            '{"type": "error", "error": {"type": "invalid_request_error", "message": "prompt '
            + "is too long, it said: "
            + LONG
            + '"}}',
            "prompt is too long, it said: ***",
        ),
        ('{"error": "too long: ' + LONG + '"}', "too long: ***"),
    ],
    ids=["openai", "anthropic", "tgi"],
)
def test_a_quoted_body_longer_than_the_read_is_read_for_its_message(body: str, said: str) -> None:
    """Read to 64 KiB, the body was JSON no more, and the client got its raw text."""
    assert first_line(Exception("litellm.BadRequestError: OpenAIException - " + body)) == said


def test_a_quoted_body_that_is_no_json_whole_is_passed_on_as_it_is() -> None:
    text = 'litellm.BadRequestError: OpenAIException - {"error": {"message": "hi'
    assert first_line(Exception(text)) == '{"error": {"message": "hi'
