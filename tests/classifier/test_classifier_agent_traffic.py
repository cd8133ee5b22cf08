"""What coding agents and developers send is `coding`; what only looks technical is not.

Coding traffic is what the router keeps local, and little of it reads like the "write a
function that..." exercises of the public coding datasets: it is pasted code with an error,
a failing test, a diff to review, a follow-up turn. Team round 5 (`team_round5.jsonl`) was
written for that shape. The prompts here were written for this test; none is in any data
file.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify
from classifier.evaluation import body

CODING = [
    "pytest output:\n\nFAILED tests/test_cart.py::test_total - assert 41.99 == 42.0\n\n"
    "cart.py:\n\ndef total(items):\n    return sum(i.price for i in items)\n\nwhat am I missing",
    "this keeps happening when I deploy\n\nError: connect ECONNREFUSED 127.0.0.1:5432\n"
    "    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)",
    "Can you look at this and tell me if it's thread safe?\n\nclass Counter:\n"
    "    def __init__(self):\n        self.n = 0\n    def inc(self):\n        self.n += 1",
    "why is this O(n^2)?\n\nfor a in items:\n    if a in seen_list:\n        dupes.append(a)\n"
    "    seen_list.append(a)",
    'segfault in this, no idea why\n\nint main() {\n  char *s;\n  strcpy(s, "hello");\n'
    '  printf("%s", s);\n}',
    "Rename the `userId` prop to `accountId` across these components and keep the tests "
    "passing.\n\nexport function Profile({ userId }) {\n  const user = useUser(userId);\n"
    "  return <Card id={userId} name={user.name} />;\n}",
    "add retries with exponential backoff to this\n\nasync def fetch(url):\n"
    "    async with httpx.AsyncClient() as c:\n        r = await c.get(url)\n"
    "        r.raise_for_status()\n        return r.json()",
    "cargo build says:\n\nerror[E0382]: borrow of moved value: `config`\n"
    "  --> src/main.rs:14:20\n\nhow do I fix it without cloning",
    "The CI job dies with exit code 137 on the integration tests, memory? here's the "
    "workflow step:\n\n- name: test\n  run: pytest -n 8 tests/integration",
    "Warum gibt mein Skript None zurück?\n\ndef finde(liste, wert):\n"
    "    for i, x in enumerate(liste):\n        if x == wert:\n            print(i)",
    "这个 SQL 为什么这么慢？\n\nSELECT * FROM orders WHERE DATE(created_at) = '2024-05-01';",
    "write tests for this\n\nfunction slugify(s) {\n"
    "  return s.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-');\n}",
    "what does this regex do: ^(?=.*\\d)(?=.*[a-z]).{8,}$",
]
LOOK_ALIKES = [
    (
        "math",
        "Here are our monthly sales: Jan 120, Feb 135, Mar 150, Apr 149, May 171. What is "
        "the average month-over-month growth rate?",
    ),
    ("reasoning", "Why does my bike chain keep slipping when I climb hills?"),
    (
        "writing",
        "Draft a short note to customers apologising that checkout was down for two hours "
        "this morning.",
    ),
    ("prose", "Write a poem about a robot that learns to garden."),
    ("math", "Let f(x) = x * 2 + 1. What is f(f(3))?"),
    ("reasoning", "Why did the Y2K problem worry people so much, and was the worry justified?"),
]


def follow_up(first: str, answer: str, latest: str) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "user", "content": first},
            {"role": "assistant", "content": answer},
            {"role": "user", "content": latest},
        ]
    }


@pytest.mark.parametrize("text", CODING)
def test_what_coding_agents_send_is_coding(text: str) -> None:
    assert classify(body(text)).label == "coding"


@pytest.mark.parametrize(("expected", "text"), LOOK_ALIKES)
def test_technical_look_alikes_keep_their_intent(expected: str, text: str) -> None:
    assert classify(body(text)).label == expected


def test_a_follow_up_turn_of_a_debugging_conversation_is_coding() -> None:
    conversation = follow_up(
        "my flask app returns 500 on /login\n\nTraceback (most recent call last):\n"
        '  File "app.py", line 31, in login\n    user = db.session.get(User, form.id)\n'
        "AttributeError: 'NoneType' object has no attribute 'id'",
        "The form is None: check that `request.form` is parsed before line 31.",
        "still the same error after your change, now on line 88",
    )
    assert classify(conversation).label == "coding"
