"""Typing upstream errors: the same condition gets the same kind, whether it came as an HTTP
status or in-band after the 200, and whatever the backend calls it."""

from __future__ import annotations

import orjson
import pytest

from router.attempt_errors import Overloaded, RateLimited, ServerError
from router.retry_after import retry_after
from router.upstream_errors import classify_error, in_band, parse_body

OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def test_anthropics_529_over_http_is_an_overload_as_it_is_in_band() -> None:
    """In-band it was `overloaded`; over HTTP a generic 502 `server_error`, which opens the
    circuit and reached Claude Code as `api_error` (found in review)."""
    over_http = classify_error(529, orjson.dumps(OVERLOADED), {}, "claude")
    mid_stream = in_band("messages", OVERLOADED["error"], "claude")
    assert isinstance(over_http, Overloaded) and isinstance(mid_stream, Overloaded)
    assert over_http.kind == mid_stream.kind == "overloaded"


@pytest.mark.parametrize(
    ("name", "typed"),
    [
        ("Service Unavailable", Overloaded),  # vLLM's Messages errors: the phrase itself
        ("ServiceUnavailableError", Overloaded),  # vLLM's chat errors
        ("rate_limit_exceeded", RateLimited),
        ("Too Many Requests", RateLimited),
        ("InternalServerError", ServerError),
    ],
)
def test_an_in_band_error_is_typed_by_its_name_however_it_is_spelt(name: str, typed: type) -> None:
    """vLLM's native Messages endpoint names a busy engine `Service Unavailable`, with a
    space and no numeric code: it was read as a 500 that opens the circuit (found in review)."""
    error = in_band("messages", {"type": name, "message": "The engine is currently busy"}, "b")
    assert type(error) is typed


@pytest.mark.parametrize(
    ("error", "typed"),
    [
        ({"type": "server_error", "code": None, "message": "Overloaded"}, Overloaded),
        ({"code": "server_error", "message": "The engine is currently busy"}, Overloaded),
        ({"type": "server_error", "code": None, "message": "boom"}, ServerError),
        # a code of its own names the error: the type's generic words are not read
        ({"type": "server_error", "code": "engine_dead", "message": "overloaded"}, ServerError),
        ({"type": "api_error", "message": "Overloaded"}, ServerError),  # Anthropic's own names
    ],
)
def test_an_error_named_only_server_error_is_read_by_its_words(
    error: dict[str, object], typed: type
) -> None:
    """OpenAI's chat error chunk names an overload by its generic `type` alone, `code: null`;
    read by the code only, it was a 502 where the same over HTTP is a 503 (found in review)."""
    assert type(in_band("chat", error, "b")) is typed


NOW = 1_796_266_102.0  # Thu, 03 Dec 2026 02:48:22 GMT


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("30", 30.0),
        ("Thu, 03 Dec 2026 02:48:52 GMT", 30.0),  # RFC 9110's other form: was dropped
        ("Thursday, 03-Dec-26 02:48:52 GMT", 30.0),  # the obsolete RFC 850 form
        ("Thu, 03 Dec 2026 02:47:22 GMT", 0.0),  # already past: retry now
        ("Fri, 03 Dec 2027 02:48:22 GMT", 3600.0),  # a year: capped as any wait
        ("soon", None),
        ("Thu, 99 Dec 2026 02:48:52 GMT", None),
    ],
)
def test_a_retry_after_date_is_read_as_the_seconds_until_it(
    header: str, seconds: float | None
) -> None:
    """A 429 whose Retry-After was a date reached the client with none, so its SDK retried
    on its own short backoff what the backend asked to wait for (found in review)."""
    assert retry_after({"retry-after": header}, now=NOW) == seconds


def test_an_error_whose_message_ends_in_the_head_of_a_key_has_it_masked() -> None:
    """The upstream cut its own message in the key it repeats: only a text the router cut
    was checked for that, and an envelope's or an in-band message showed the key's first
    20 characters (found in re-review)."""
    key = "gwlive7f3a9c2e5b1d4f60a8e2c9d0e"
    said = {"message": "proxy echo: authorization=" + key[:20], "type": "invalid_request_error"}
    over_http = classify_error(400, orjson.dumps({"error": said}), {}, "b", secrets=[key])
    mid_stream = in_band("chat", said, "b", [key])
    for error in (over_http, mid_stream):
        assert error.body()["error"]["message"] == "proxy echo: authorization=***"


def test_a_reply_parsed_whole_has_nothing_of_its_end_masked() -> None:
    """A JSON string read whole before the cut (white space came after it) is no text the
    cut went through: its last word was masked as though it were."""
    assert parse_body(b'"upstream said no"', truncated=True) == {
        "error": {"message": "upstream said no"}
    }
