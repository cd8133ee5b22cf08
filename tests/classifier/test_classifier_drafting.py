"""Asking for the words of a message is writing; asking to send it is tool_calling.

The labelling policy (`classifier/data/licences/team/README.md`): tool_calling needs the
user's private data, live data or an action in the world; drafting a message the user
sends themselves is writing. Before team round 7 (`team_round7.jsonl`) the classifier read
most drafting requests as tool_calling: 3 of these 12. The prompts were written for this
test before any round-7 data existed; none is in a data file. The shipped model gets 10 of
the 12 drafts and all 6 actions; the families must hold at least 9 and 5, so a retraining
that loses the edge fails here while one prompt may still move.
"""

from __future__ import annotations

from tests.classifier.probes import misses

DRAFTS = [
    "Draft an email to my team saying the daily standup moves to 10am from next Monday.",
    "Draft a message to my neighbour asking them to keep the noise down after 11pm.",
    "Compose a text to my sister wishing her luck on her exam tomorrow.",
    "Draft a Slack message telling the team the deploy is delayed until Thursday.",
    "Can you write a WhatsApp message inviting my cousins to a barbecue on Saturday?",
    "Help me reply to a recruiter on LinkedIn: thank them, say I am not looking right now.",
    "Write a text I can send my boss saying I am sick and will not come in today.",
    "Draft a polite reminder to a client whose invoice is two weeks overdue.",
    "Compose a Teams message congratulating Priya on her promotion.",
    'Draft a reply to this email: "Hi, can we move our call to Wednesday?" Say yes, 3pm works.',
    "Schreib eine kurze Nachricht an meinen Vermieter, dass der Wasserhahn tropft.",
    "Redacta un mensaje para mi jefe pidiendo el viernes libre.",
]
ACTIONS = [
    "Send a Slack message to the team that the deploy is delayed until Thursday.",
    "Text my sister good luck for her exam tomorrow.",
    "Check my inbox for the invoice from Acme and forward it to accounting.",
    "Reply to Tom's last email and tell him Wednesday 3pm works.",
    "Email the client a reminder that their invoice is two weeks overdue.",
    "Post in the #general channel that the office is closed Friday.",
]


MAX_DRAFT_MISSES = 3
MAX_ACTION_MISSES = 1


def test_drafting_a_message_is_writing() -> None:
    missed = misses(DRAFTS, "writing")
    assert len(missed) <= MAX_DRAFT_MISSES, f"{len(missed)} missed: {missed}"


def test_sending_a_message_is_tool_calling() -> None:
    missed = misses(ACTIONS, "tool_calling")
    assert len(missed) <= MAX_ACTION_MISSES, f"{len(missed)} missed: {missed}"
