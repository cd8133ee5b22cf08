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
NOTES = (
    "Meeting notes: the library will open on Sundays from May. Volunteers are needed for the "
    "reading club. The budget for new books rose by ten percent. The roof leak is fixed."
)
ANSWER_DIRECTIVES = [
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
        "reasoning",
        "Which planet has the shortest year? (A) Venus (B) Mercury (C) Mars (D) Earth. "
        "Answer with the letter only.",
    ),
    (
        "reasoning",
        "Who painted the Night Watch? A) Vermeer B) Rembrandt C) Hals D) Steen. Respond with "
        "just the letter.",
    ),
    ("reasoning", "Is a tomato a fruit or a vegetable, botanically? One word answer."),
    (
        "reasoning",
        "Which is heavier, a kilogram of feathers or a kilogram of iron? Answer in one word.",
    ),
    (
        "reasoning",
        "Four people cross a bridge at night with one torch... Who crosses last? Give just "
        "the name.",
    ),
    ("math", "What is 15% of 80? Reply with the number only."),
    ("math", "Solve 3x - 7 = 11. Put your final answer in \\boxed{}."),
    (
        "reasoning",
        "Which element has the chemical symbol K? (a) krypton (b) potassium (c) calcium. Only "
        "the letter, please.",
    ),
    (
        "reasoning",
        "True or false: the Great Wall of China is visible from the Moon with the naked eye. "
        "Answer true or false.",
    ),
    (
        "reasoning",
        "Which came first, the printing press or the telescope? Reply with one of the two.",
    ),
]
NAMED_FORMS = [
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
]
ARBITRARY_RULES = [
    (
        "instruction",
        "Write a short story about a lost umbrella. The whole response must be in lowercase "
        "and contain no commas.",
    ),
    ("instruction", "Reply with exactly these words and nothing else: the blue heron waits"),
    ("instruction", "List three rivers in Africa as a JSON array of strings, nothing else."),
    (
        "instruction",
        "Write the numbers one to five in Italian, comma-separated, lowercase, no spaces.",
    ),
    (
        "instruction",
        "Give me a two-row markdown table of two fruits and their colours, no other text.",
    ),
    (
        "instruction",
        "Describe your ideal weekend in exactly three sentences, each starting with the word 'I'.",
    ),
    (
        "instruction",
        "Name four colours, one per line, all in capital letters, with no punctuation.",
    ),
]
# a summary is writing; a count of its words or sentences makes it instruction
SUMMARIES = [
    ("writing", "Summarise the minutes below for the newsletter.\n\n" + MINUTES),
    ("instruction", "Write a summary of these minutes in under 40 words.\n\n" + MINUTES),
    ("instruction", "Summarise the notes below in at most 25 words.\n\n" + NOTES),
    ("instruction", "Sum up these notes in two sentences, no more.\n\n" + NOTES),
    (
        "instruction",
        "Turn the notes below into exactly three bullet points of under ten words each.\n\n"
        + NOTES,
    ),
    ("instruction", "Write a 30-word summary of the following.\n\n" + NOTES),
    (
        "instruction",
        "Condense this into one sentence that contains the word 'library' twice.\n\n" + NOTES,
    ),
    (
        "instruction",
        "Give me a summary of these notes in fewer than 20 words, all lowercase.\n\n" + NOTES,
    ),
    ("writing", "Summarise the notes below for our members' newsletter.\n\n" + NOTES),
    (
        "writing",
        "Turn these notes into a friendly announcement for the community board.\n\n" + NOTES,
    ),
    ("writing", "Write a short summary of the following for the town council.\n\n" + NOTES),
    ("writing", "Can you turn these meeting notes into an email to the volunteers?\n\n" + NOTES),
    ("writing", "Draft a press release based on these notes.\n\n" + NOTES),
    ("writing", "Rewrite these notes as a warm thank-you message to the volunteers.\n\n" + NOTES),
]
EDGES = {
    "an answer directive keeps a question reasoning or math": ANSWER_DIRECTIVES,
    "a poem in a named form stays prose": NAMED_FORMS,
    "arbitrary rules on the whole text make instruction": ARBITRARY_RULES,
    "a count makes a summary instruction; without one it is writing": SUMMARIES,
}
SHARE = 0.8


@pytest.mark.parametrize("edge", EDGES)
def test_the_shipped_model_draws_the_policy_edges(edge: str) -> None:
    """Each edge is a family of prompts, and the model must draw it for most of them: a
    single prompt near an edge sits within a few hundredths of a probability, and every
    retraining moved one of them across (the previous model drew the answer-directive
    edge for 8 of its 13 prompts while passing the one prompt tested then)."""
    cases = EDGES[edge]
    missed = [(want, text[:60]) for want, text in cases if classify(body(text)).label != want]
    assert len(missed) <= (1 - SHARE) * len(cases), missed
