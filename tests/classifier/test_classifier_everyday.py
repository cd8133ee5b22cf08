"""Short everyday asks: the words of a message, note, invitation or list are writing, even
with a time or a date in them; asking the assistant to send, schedule or look up is
tool_calling.

The labelling policy (`classifier/data/licences/team/README.md`): tool_calling needs the
user's private data, live data or an action in the world; drafting a text the user sends
or uses themselves is writing, and a plain list to use (packing, groceries, chores) is a
text too. Users' probes found the shipped model reading "Write an email to my boss saying I
will be late tomorrow" as tool_calling and "write a packing list for a weekend trip" as
coding. These prompts were written for this test before any team round-8 data existed
(`team_round8.jsonl`), and no row of that file shares a 5-word run with them (earlier files
share stock runs such as "write an email to my", and round 7 has "the sink is leaking
again" in a request to send). The model before round 8 got 4 of the 12 drafts and all 6
actions, the model after it 9 and 6 (the packing and to-do lists still read coding); the
families must hold at least 9 and 5, so a retraining that loses the edge fails here.
"""

from __future__ import annotations

from tests.classifier.probes import misses

DRAFTS = [
    "Write an email to my boss saying I will be late tomorrow",
    "write a packing list for a weekend trip",
    "Write a message to the team saying the meeting moved to 4pm next Tuesday",
    "write a to-do list for moving house next week",
    "make me a grocery list for tacos for six people",
    "Write a note for my kid's teacher that he has a doctor appointment tomorrow at 11",
    "write a short invitation for my daughter's 7th birthday party next sunday at 2",
    "Draft a note to my neighbour inviting them to a barbecue on Saturday at 5pm",
    "how should I word a text to my landlord that the sink is leaking again",
    "Write a thank-you card for my aunt who sent a gift last week",
    "write a list of things to do before a job interview on Monday",
    "Write a sign for the office fridge asking people to label their food by Friday",
]
ACTIONS = [
    "Send an email to my boss saying I will be late tomorrow",
    "remind me at 3pm to call the dentist",
    "schedule a meeting with Ana next Tuesday at 10",
    "add eggs and bread to my shopping list",
    "what's on my calendar tomorrow morning",
    "text Jake that I'll be there at 7",
]

MAX_DRAFT_MISSES = 3
MAX_ACTION_MISSES = 1


def test_everyday_drafts_and_lists_are_writing() -> None:
    missed = misses(DRAFTS, "writing")
    assert len(missed) <= MAX_DRAFT_MISSES, f"{len(missed)} missed: {missed}"


def test_everyday_actions_are_tool_calling() -> None:
    missed = misses(ACTIONS, "tool_calling")
    assert len(missed) <= MAX_ACTION_MISSES, f"{len(missed)} missed: {missed}"
