"""Short asks written before any data, read one by one as a user's chat turn: the probe
tests of everyday drafting, lists and polite openers count how many the model misses."""

from __future__ import annotations

from classifier import classify
from classifier.evaluation import body


def misses(texts: list[str], want: str) -> list[str]:
    """The openings of the `texts` the classifier does not read as `want`."""
    return [text[:50] for text in texts if classify(body(text)).label != want]
