"""The labelling policy's edges, as the shipped model must draw them.

The intents are the smf-bench suite names, and every smf-bench quality suite is graded
deterministically, so a checkable requirement alone cannot mean `instruction`: a puzzle or
calculation that only says how to present its final answer keeps its intent, and a poem in
a named literary form stays prose (`classifier/data/licences/team/README.md`, round 4).
Arbitrary requirements on a whole text, or content that is only a vehicle for the format,
stay instruction. The prompts here were written for this test; none is in any data file.
"""

from __future__ import annotations

import pytest

from classifier import classify
from classifier.evaluation import body

MINUTES = (
    "Minutes, 3 March. Present: Dana, Raj, Eli, Mo. The bake sale raised 412 euros. The hall "
    "roof repair is delayed until April because the contractor is ill. Raj will ask the "
    "council about the parking permits. Next meeting on the 7th."
)
EDGES = [
    (
        "reasoning",
        "Three friends, Ana, Bilal and Chen, finished a race. Ana was not last, and Chen "
        "crossed the line right after Bilal. Who won? Put only the name inside \\boxed{}.",
    ),
    (
        "reasoning",
        "Which gas makes up most of Earth's atmosphere? (A) oxygen (B) nitrogen (C) argon "
        "(D) carbon dioxide. Reply with only the letter.",
    ),
    ("math", "What is 17% of 2,340? Give only the number, rounded to one decimal place."),
    (
        "prose",
        "Write a haiku about a train station at night: three lines of 5, 7 and 5 syllables. "
        "Output only the haiku.",
    ),
    (
        "prose",
        "Compose an acrostic poem whose lines begin with the letters of OCEAN, one line per "
        "letter, exactly five lines, nothing else.",
    ),
    (
        "instruction",
        "Write a short story about a lost umbrella. The whole response must be in lowercase "
        "and contain no commas.",
    ),
    ("instruction", "Reply with exactly these words and nothing else: the blue heron waits"),
    # a summary is writing; a count of its words or sentences makes it instruction
    ("writing", "Summarise the minutes below for the newsletter.\n\n" + MINUTES),
    ("instruction", "Write a summary of these minutes in under 40 words.\n\n" + MINUTES),
]


@pytest.mark.parametrize(("expected", "text"), EDGES)
def test_the_shipped_model_draws_the_policy_edges(expected: str, text: str) -> None:
    assert classify(body(text)).label == expected
