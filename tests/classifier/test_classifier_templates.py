"""`classifier.templates.framed`: the text between a fixed opening and a fixed closing."""

from __future__ import annotations

import pytest

from classifier.templates import framed


@pytest.mark.parametrize(
    ("text", "inner"),
    [("<a>x</a>", "x"), ("<a></a>", ""), ("<a><a></a></a>", "<a></a>")],
)
def test_the_text_between_is_returned(text: str, inner: str) -> None:
    assert framed(text, "<a>", "</a>") == inner


@pytest.mark.parametrize("text", ["x</a>", "<a>x", "<a>x</a> ", " <a>x</a>", ""])
def test_a_text_not_opening_and_ending_so_is_none(text: str) -> None:
    assert framed(text, "<a>", "</a>") is None


def test_a_text_whose_opening_and_closing_overlap_is_none() -> None:
    """ "ab\\n" + "\\nc" share their newline: "ab\\nc" opens and ends so, but frames nothing."""
    assert "ab\nc".startswith("ab\n") and "ab\nc".endswith("\nc")
    assert framed("ab\nc", "ab\n", "\nc") is None
    assert framed("ab\n\nc", "ab\n", "\nc") == ""


def test_a_closing_inside_the_opening_is_none() -> None:
    """A closing that is the opening's own end (genkit's "\\n```\\n" after "\\n\\n```\\n")."""
    assert framed("x\n```\n", "x\n```\n", "\n```\n") is None


def test_an_empty_closing_leaves_the_rest() -> None:
    assert framed("<a>x", "<a>", "") == "x"
