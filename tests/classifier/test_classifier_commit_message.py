"""Commit-message generators (`classifier.commit_message`): opencommit's example pair is no
ask, and opencommit's and aicommits' requests are coding, whatever the diff changes.

opencommit 3.3.10 opens every request with its system prompt, an example diff of
`src/server.ts` and its commit message: read as the first ask, the example keyed every
commit of a caller as one conversation, and a LaTeX diff's cloud pin held later Python
fixes. Read by the diff's topic, aicommits' poem-only commit was prose and went to the
cloud, opencommit's LaTeX proof math. The bodies are the clients'
(`tests/fixtures/opencommit-3.3.10.md`, `tests/fixtures/aicommits-3.4.0.md`).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from classifier import classify, explain
from classifier.asks import first_ask
from classifier.commit_message import AICOMMITS_SYSTEMS, EXAMPLE_DIFF, OPENCOMMIT_SYSTEM
from classifier.fixed import COMMIT_MESSAGE, COMMIT_MESSAGE_READING
from classifier.request import view
from router.conversation import conversation_key
from tests.classifier.fixed_readings import assert_judged_by
from tests.recorded import loader

FIXTURES = Path(__file__).parents[1] / "fixtures"
OPENCOMMIT = [
    "fix-stats.json",
    "docs-readme.json",
    "proof-new.json",
    "proof-math.json",
    "gitmoji.json",
    "commitlint.json",
]
AICOMMITS = [
    "title-stats.json",
    "title-poem.json",
    "title-sqrt2-conventional.json",
    "title-sqrt2-gitmoji.json",
    "title-conventional-body.json",
    "body.json",
]

opencommit = loader(FIXTURES / "opencommit-3.3.10")
aicommits = loader(FIXTURES / "aicommits-3.4.0")


def test_the_fixtures_are_the_clients() -> None:
    for name in OPENCOMMIT:
        system, example, reply, _ = opencommit(name)["messages"]
        assert system["content"].startswith(OPENCOMMIT_SYSTEM)
        assert (example["content"], reply["role"]) == (EXAMPLE_DIFF, "assistant")
    for name in AICOMMITS:
        system, _ = aicommits(name)["messages"]
        assert system["content"].startswith(AICOMMITS_SYSTEMS)


@pytest.mark.parametrize("name", OPENCOMMIT)
def test_the_first_ask_of_an_opencommit_request_is_its_diff(name: str) -> None:
    """The staged diff after the example pair is the first and the latest ask."""
    body = opencommit(name)
    assert first_ask(body["messages"]) is body["messages"][3]
    seen = view(body)
    assert (seen.latest, seen.first) == (body["messages"][3]["content"], "")
    assert not seen.harness_cut  # no agent's texts: a commit message is no agent's session


def test_opencommit_requests_with_different_diffs_have_different_keys() -> None:
    keys = {conversation_key(opencommit(name), {}, "c") for name in OPENCOMMIT}
    assert len(keys) == len(OPENCOMMIT)


def test_the_example_diff_is_read_as_written_out_of_its_place() -> None:
    """Under another system prompt, with no reply after it, or pasted into a chat, the
    example diff is a user's words."""
    other = copy.deepcopy(opencommit("fix-stats.json"))
    other["messages"][0]["content"] = "You are a helpful assistant."
    assert first_ask(other["messages"]) is other["messages"][1]
    setup = opencommit("commitlint-setup.json")  # the setup request asks by the example
    assert first_ask(setup["messages"]) is setup["messages"][1]
    changed = copy.deepcopy(opencommit("fix-stats.json"))
    changed["messages"][1]["content"] = EXAMPLE_DIFF + "\n+// one more line"
    assert first_ask(changed["messages"]) is changed["messages"][1]
    pasted = {"model": "auto", "messages": [{"role": "user", "content": EXAMPLE_DIFF}]}
    assert first_ask(pasted["messages"]) is pasted["messages"][0]


@pytest.mark.parametrize(
    ("client", "name"),
    [(opencommit, name) for name in [*OPENCOMMIT, "commitlint-setup.json"]]
    + [(aicommits, name) for name in AICOMMITS],
)
def test_a_commit_message_request_is_coding_whatever_its_diff(client: object, name: str) -> None:
    body = client(name)  # type: ignore[operator]
    assert_judged_by(body, COMMIT_MESSAGE_READING, COMMIT_MESSAGE, "coding")


def test_explain_names_the_rule_commit_message() -> None:
    """What an operator reads in `explain`, written out: the rule's name and reason."""
    for body in (opencommit("fix-stats.json"), aicommits("title-poem.json")):
        assert explain(body)["rule"] == (
            "commit_message: opencommit's or aicommits' prompt: a commit message for a git"
            " diff, whatever the diff changes"
        )


def test_their_diffs_alone_read_otherwise() -> None:
    """Without the clients' prompts, the poem's diff and the proof's are read by their
    topic: the rule, not the diff, makes them coding."""
    for body in (aicommits("title-poem.json"), opencommit("proof-math.json")):
        alone = {"model": "auto", "messages": [body["messages"][-1]]}
        assert view(alone).fixed is None
        assert classify(alone).label != "coding"


@pytest.mark.parametrize(
    "system",
    [
        "Reply briefly. " + OPENCOMMIT_SYSTEM,
        "Please. " + AICOMMITS_SYSTEMS[0],
        AICOMMITS_SYSTEMS[0].replace("git commit message title", "poem title"),
        "You are to act as an author of a poem in git.",
        "Write a commit message for this diff.",  # anyone's words: no generic pattern
    ],
)
def test_only_the_clients_prompts_at_their_start_count(system: str) -> None:
    body = copy.deepcopy(aicommits("title-poem.json"))
    body["messages"][0]["content"] = system
    assert view(body).fixed is None
