"""The scalar a schema's field gets: a number within its bounds (`number`), a string its
`format` or its field's name suggests (`string`).

Kept apart from `instances`, which walks a schema (`$ref`s, `anyOf` branches, objects and
arrays, the budget that ends a recursive one) and asks this module for each leaf: what a
leaf holds is decided by its own schema and name alone, and a fix to one (a rating's
range, a city's place) is no change to how a document is walked.
"""

from __future__ import annotations

import math
from typing import Any

from router.simulator.asked_tool import named_place, words

STRING_HINTS = (
    ("city", "Paris"),
    ("location", "Paris, France"),
    ("path", "src/main.py"),
    ("file", "src/main.py"),
    ("command", "ls -la"),
    ("url", "https://example.com"),
    ("email", "user@example.com"),
    ("date", "2026-01-15"),
    ("unit", "celsius"),
)
"""What a string field gets whose name has a word that starts with the hint, the first hint
that one does (`hinted`)."""

_FORMATS = {
    "date-time": "2026-01-15T09:30:00Z",
    "date": "2026-01-15",
    "time": "09:30:00",
    "email": "user@example.com",
    "uri": "https://example.com",
    "uuid": "00000000-0000-4000-8000-000000000000",
}
_LONGEST = 64  # the most characters a string's `minLength` is met with


def number(schema: dict[str, Any], integer: bool) -> int | float:
    """The middle of the range `minimum`/`exclusiveMinimum` and `maximum` give (rounded
    down for an integer), else 1, or the least the lower bound allows, within `maximum`.
    A rating asked on a scale is none of its ends: paper-qa's summaries, asked a
    `"relevance_score": 0-10`, got its lowest, 0, and paper-qa 2026.8.12 keeps no summary
    scored under 1 (`evidence_relevance_score_cutoff`, `paperqa/settings.py`), so a demo
    answer would have had no evidence (found in a live review)."""
    low, above, high = (_bound(schema, k) for k in ("minimum", "exclusiveMinimum", "maximum"))
    if above is not None:
        past = above + (1 if integer else 0.5)
        low = past if low is None else max(low, past)
    if integer and low is not None:
        low = math.ceil(low)
    if low is not None and high is not None and low <= high:
        middle = (low + high) / 2
        return math.floor(middle) if integer else middle
    value = 1.0 if low is None else low
    if high is not None and value > high:
        value = high
    return math.ceil(value) if integer else value


def _bound(schema: dict[str, Any], key: str) -> float | None:
    """A numeric bound of the schema, None when absent or not a finite number."""
    value = schema.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def string(name: str, schema: dict[str, Any], user: str, given: str = "") -> str:
    """A string its `format` suggests, else `given` (an id field's shown id, an agent's
    name), else the place the prompt names for a city or location field (`named_place`,
    given the name as written: lower-cased, `homeCity` was one word and no city's), else
    one its field's name suggests (`hinted`), else the prompt's first words; padded or cut
    to its `minLength`/`maxLength`."""
    fmt = schema.get("format")
    text = _FORMATS.get(fmt, "") if isinstance(fmt, str) else ""
    text = text or given or named_place(name, user) or hinted(name)
    text = text or " ".join(user.split(maxsplit=6)[:6]) or "example"  # not the whole prompt
    least, longest = schema.get("minLength"), schema.get("maxLength")
    if isinstance(least, int) and least > len(text):
        text = text.ljust(min(least, _LONGEST), "x")
    return text[:longest] if isinstance(longest, int) and longest >= 0 else text


def hinted(name: str) -> str:
    """What `STRING_HINTS` gives the field `name`: the value of the first hint one of its
    words (snake, kebab and camel case split: `asked_tool.words`) starts with, else "".

    A word that starts with the hint, not a name that holds it: a whole word (`file_path`,
    `homeCity`), its plural (`commands`, a list of command lines) and a compound written
    as one (`filename`, `cityname`) keep their hint. Found anywhere in the name, a hint gave
    `velocity` and `capacity` "Paris", `allocation` "Paris, France", `profile` a file's path
    and `candidate` a date (found in review)."""
    said = words(name)
    return next(
        (value for hint, value in STRING_HINTS if any(w.startswith(hint) for w in said)), ""
    )
