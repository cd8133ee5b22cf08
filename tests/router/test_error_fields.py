"""`router.error_fields`: which fields of an error body are the error's own, one rule for a
whole reply and for one read only in part (`router.cut_error_body`), which had written the
rule again for itself (found in re-review)."""

from __future__ import annotations

import orjson
import pytest

from router.cut_error_body import cut_fields
from router.error_fields import FIELDS, error_fields

BODIES = {  # whole replies, as text: a key may come twice
    "openai": '{"error": {"message": "m", "type": "invalid_request_error", "param": "messages",'
    ' "code": "context_length_exceeded"}}',
    "vllm": '{"error": {"message": "m", "type": "BadRequestError", "param": null, "code": 400}}',
    "anthropic": '{"type": "error", "error": {"type": "not_found_error", "message": "m"}}',
    "flat": '{"object": "error", "message": "m", "type": "BadRequestError", "param": null,'
    ' "code": 400}',
    "tgi": '{"error": "Input validation error", "error_type": "validation"}',
    "null-error": '{"error": null, "message": "m", "type": "t"}',
    "two-errors": '{"error": {"message": "a", "type": "t"}, "error": {"message": "b"}}',
    "string-then-object": '{"error": "a", "error": {"type": "t"}}',
    "object-then-string": '{"error": {"type": "t"}, "error": "b"}',
    "details": '{"error": {"message": "2 errors", "details": [{"type": "x"}], "type": "t"}}',
    "fastapi": '{"detail": [{"type": "missing", "msg": "Field required"}]}',
}


@pytest.mark.parametrize("name", BODIES)
def test_a_reply_read_in_part_has_the_fields_it_would_have_whole(name: str) -> None:
    """Read whole by the walk over its tokens, a reply has the fields `error_fields` finds
    in it parsed (of them, the four names the walk reads)."""
    text = BODIES[name]
    own = {key: value for key, value in error_fields(orjson.loads(text)).items() if key in FIELDS}
    shaped = {"type": "invalid_request_error", "param": None, "code": None} | own
    assert cut_fields(text) == (shaped if own else None)


@pytest.mark.parametrize(
    ("name", "fields"),
    [
        ("anthropic", {"type": "not_found_error", "message": "m"}),
        ("flat", {"message": "m", "type": "BadRequestError", "code": 400, "param": None}),
        ("tgi", {"message": "Input validation error"}),
        ("null-error", {"message": "m", "type": "t"}),
        ("two-errors", {"message": "b"}),
        ("fastapi", {}),
    ],
)
def test_the_errors_own_fields_are_its_object_its_string_or_the_flat_ones(
    name: str, fields: dict[str, object]
) -> None:
    assert error_fields(orjson.loads(BODIES[name])) == fields
