"""Polite and help-seeking openers ("can you help me ...", "could you", "I need help with",
"would you mind", "please help") do not decide a request: what follows them does.

The public tool data (BFCL, `team_tools.jsonl`) asks for its actions politely ("Can you help
me book ..."), so the model read a chat that opens politely as a tool request: users' probes
found "Can you help me understand recursion?" read as tool_calling 0.86 and "Hi! Can you
help me?" as tool_calling 0.97. The labelling policy (`classifier/data/licences/team/
README.md`): explanations are reasoning, code help coding, math help math, drafting help
writing, fiction prose, a checkable format instruction; only an action in the world, the
user's private data or live data is tool_calling. The two users' probes and the twelve
below them were written for this test before any team round-10 data existed
(`team_round10.jsonl`), and no row of that file shares a 5-word run with them. The model
before round 10 got 7 of the 10 asks (the recursion probe, the bare greeting and the pasted
TypeError read as tool requests) and all 4 actions; the model after it 8 and 4: the greeting
still reads tool_calling (0.97 -> 0.91; a greeting with no ask has no label in the policy,
so no row teaches it, and the test asks only that it not read as a tool request) and the
TypeError 0.43. The families must hold 8 and 3, and the recursion probe must read
reasoning, so a retraining that loses the edge fails here.
"""

from __future__ import annotations

from classifier import classify
from classifier.evaluation import body
from tests.classifier.probes import misses

NOT_A_TOOL = "not tool_calling"
RECURSION = "Can you help me understand recursion?"
ASKS = [
    (RECURSION, "reasoning"),
    ("Hi! Can you help me?", NOT_A_TOOL),
    (
        "Could you help me write a python function that checks whether a word is a palindrome?",
        "coding",
    ),
    ("I need help with this integral: x times e^x dx", "math"),
    ("Would you mind explaining why the sky looks blue during the day?", "reasoning"),
    ("please help me write a cover letter for a barista job", "writing"),
    ("can you help me fix this? TypeError: 'NoneType' object is not subscriptable", "coding"),
    ("could u help me solve 3x + 7 = 22", "math"),
    ("Can you help me come up with a short story about a lighthouse keeper and a seal?", "prose"),
    (
        "Could you help me describe photosynthesis in exactly three sentences, no commas?",
        "instruction",
    ),
]
ACTIONS = [
    "Can you help me book a table for two at an Italian place tonight?",
    "Could you send a message to my sister saying I'm running late?",
    "Please help me set a reminder to pay the rent on the 1st",
    "Would you mind checking the weather in Berlin for tomorrow?",
]

MAX_ASK_MISSES = 2
MAX_ACTION_MISSES = 1


def read_as_wanted(text: str, want: str) -> bool:
    label = classify(body(text)).label
    return label != "tool_calling" if want == NOT_A_TOOL else label == want


def test_users_recursion_probe_is_reasoning() -> None:
    """An explanation asked for politely is an answer to give, not an action to take."""
    assert classify(body(RECURSION)).label == "reasoning"


def test_polite_asks_read_by_what_follows_the_opener() -> None:
    missed = [text[:40] for text, want in ASKS if not read_as_wanted(text, want)]
    assert len(missed) <= MAX_ASK_MISSES, f"{len(missed)} missed: {missed}"


def test_polite_actions_stay_tool_calling() -> None:
    missed = misses(ACTIONS, "tool_calling")
    assert len(missed) <= MAX_ACTION_MISSES, f"{len(missed)} missed: {missed}"
