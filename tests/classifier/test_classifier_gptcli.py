"""gptcli's built-in assistants (`classifier.gptcli`): the `dev` assistant's fixed opening
pair is no ask, and the `bash` assistant's requests are coding, whatever they ask.

gptcli 0.4.3 (pypi `gpt-command-line`) opens every `gpt dev` request with its system prompt,
the user message "Your responses must be short and concise. Do not include explanations
unless asked." and "Understood.": read as the first ask, it keyed every dev run on a machine
as one conversation. Its `bash` assistant asks for shell commands only, yet "What is 17% of
2300?" under it went to the math cloud. The bodies are gptcli's
(`tests/fixtures/gpt-command-line-0.4.3.md`).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from classifier import classify
from classifier.asks import first_ask
from classifier.fixed import CODE_ANSWER_READING
from classifier.gptcli import BASH_SYSTEM, DEV_REPLY, DEV_SYSTEM, DEV_USER
from classifier.request import view
from classifier.rules import CODE_ANSWER
from router.conversation import conversation_key
from tests.classifier.fixed_readings import assert_decided_by
from tests.recorded import loader

FIXTURES = Path(__file__).parents[1] / "fixtures" / "gpt-command-line-0.4.3"
DEV = ["dev-math.json", "dev-haiku.json", "dev-csv.json", "dev-go.json"]

captured = loader(FIXTURES)


def test_the_fixtures_are_gptclis() -> None:
    for name in DEV:
        system, user, reply, _ = captured(name)["messages"]
        assert system["content"].startswith(DEV_SYSTEM)
        assert (user["content"], reply["content"]) == (DEV_USER, DEV_REPLY)
    assert captured("bash-percent.json")["messages"][0]["content"].startswith(BASH_SYSTEM)


@pytest.mark.parametrize("name", DEV)
def test_the_first_ask_of_a_dev_run_is_the_users(name: str) -> None:
    """The ask after the pair is the first and the latest (the view reads it once)."""
    body = captured(name)
    assert first_ask(body["messages"]) is body["messages"][3]
    seen = view(body)
    assert (seen.latest, seen.first) == (body["messages"][3]["content"], "")


def test_dev_runs_with_different_asks_have_different_keys() -> None:
    keys = {conversation_key(captured(name), {}, "c") for name in DEV}
    assert len(keys) == len(DEV)


def test_a_dev_runs_next_turn_keeps_its_key() -> None:
    first = captured("dev-math.json")
    later = copy.deepcopy(first)
    later["messages"] += [
        {"role": "assistant", "content": "391"},
        {"role": "user", "content": "and 18% of it?"},
    ]
    assert conversation_key(first, {}, "c") == conversation_key(later, {}, "c")


def test_the_dev_pair_is_passed_over_only_in_its_place() -> None:
    """Under another system prompt, or with no "Understood." after it, or as a later turn,
    the fixed user message is a user's words, read as written."""
    other = copy.deepcopy(captured("dev-math.json"))
    other["messages"][0]["content"] = "You are a helpful assistant."
    assert first_ask(other["messages"]) is other["messages"][1]
    unanswered = copy.deepcopy(captured("dev-math.json"))
    unanswered["messages"][2]["content"] = "Sure, I will keep it short."
    assert first_ask(unanswered["messages"]) is unanswered["messages"][1]
    alone = {"model": "auto", "messages": [{"role": "user", "content": DEV_USER}]}
    assert first_ask(alone["messages"]) is alone["messages"][0]


def test_the_fixed_words_typed_later_in_a_dev_run_are_read_as_written() -> None:
    """Only the second message is the pair's: the same words as a later turn's ask are the
    user's, its latest ask."""
    body = copy.deepcopy(captured("dev-math.json"))
    body["messages"] += [
        {"role": "assistant", "content": "391"},
        {"role": "user", "content": DEV_USER},
    ]
    assert view(body).latest == DEV_USER


def test_an_understood_from_the_user_is_no_reply() -> None:
    """The pair's "Understood." is the assistant's: sent as a user message after the fixed
    words, both are the user's, the first ask the fixed words."""
    body = copy.deepcopy(captured("dev-math.json"))
    body["messages"][2]["role"] = "user"
    assert first_ask(body["messages"]) is body["messages"][1]


def test_the_bash_assistant_is_coding_whatever_it_asks() -> None:
    body = captured("bash-percent.json")
    assert_decided_by(body, CODE_ANSWER_READING, CODE_ANSWER, "coding")


def test_its_ask_alone_reads_otherwise() -> None:
    """The same ask without the bash prompt, or under the dev prompt, is read by its topic."""
    alone = {"model": "auto", "messages": [{"role": "user", "content": "What is 17% of 2300?"}]}
    assert view(alone).fixed is None
    assert classify(alone).label == "math"
    assert view(captured("dev-math.json")).fixed is None


@pytest.mark.parametrize(
    "system",
    [
        "Reply briefly. " + BASH_SYSTEM,
        BASH_SYSTEM.replace("shell commands", "poems"),
        # its opening words, another ending: the prompt is matched whole
        BASH_SYSTEM.replace("You don't provide any explanations", "You explain each one"),
    ],
)
def test_only_the_bash_prompt_at_its_start_counts(system: str) -> None:
    body = copy.deepcopy(captured("bash-percent.json"))
    body["messages"][0]["content"] = system
    assert view(body).fixed is None


def test_the_general_assistant_is_read_as_it_is() -> None:
    """No fixed text: its first ask is the user's first message."""
    body = captured("general-limerick.json")
    assert first_ask(body["messages"]) is body["messages"][0]
    assert view(body).fixed is None
