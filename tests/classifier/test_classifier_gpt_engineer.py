"""gpt-engineer's prompts ask for code whatever the program is about, and its improve ask is
the request after the project's files (`classifier.gpt_engineer`).

gpt-engineer 0.3.1 opens its code-generation system prompt with its `roadmap` preprompt and
sends the user's project prompt as the user turn: read by its topic, "Request: a haiku
generator" was prose 0.986 and went to the cloud; under its `clarify` preprompt "a program
that computes the n-th prime number" was math 0.51 (found running gpt-engineer against the
router). Its improve ask put the project's files first, and they keyed every request on one
project as one conversation. The bodies are the ones it sent
(`tests/fixtures/gpt-engineer-0.3.1.md`).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from classifier import classify
from classifier.fixed import CODE_ANSWER_READING
from classifier.gpt_engineer import OPENINGS, ROADMAP
from classifier.request import view
from classifier.rules import CODE_ANSWER
from router.conversation import conversation_key, prompt_text
from tests import recorded
from tests.classifier.fixed_readings import assert_decided_by

FIXTURES = recorded.FIXTURES / "gpt-engineer-0.3.1"
CAPTURED = [
    "generate-haiku.json",
    "generate-todo.json",
    "clarify-first.json",
    "clarify-loop.json",
    "entrypoint.json",
    "improve.json",
]
HAIKU = "Request: a haiku generator\n"
IMPROVE_ASK = (
    "Request: add a --verbose flag to main.py that prints the operands before the result\n"
)
# The openings of the system prompts before 0.3.0, as their preprompts and steps wrote them
OLD_PROMPTS = {
    # 0.0.7's `generate` (its `roadmap` from 0.0.9 on)
    "0.0.7-generate": ROADMAP + "Make sure that every detail of the architecture is, in the end,"
    " implemented as code.\n\nThink step by step and reason yourself to the right decisions",
    # 0.0.7's `qa`, 0.0.9's `clarify`
    "0.0.9-clarify": "You will read instructions and not carry them out, only seek to clarify"
    " them.\nSpecifically you will first summarise a list of super short bullets of areas that"
    " need clarification.\n",
    # 0.0.9's to 0.2.9's entrypoint prompt
    "0.2.6-entrypoint": "You will get information about a codebase that is currently on disk in"
    " the current folder.\nFrom this you will answer with code blocks that includes all the"
    " necessary unix terminal commands to:\na) install dependencies\n",
    # 0.1.0's to 0.2.9's `improve`
    "0.2.6-improve": "Act as an expert software developer.\nAlways use best practices when"
    " coding.\nWhen you edit or add code, respect and use existing conventions, libraries,"
    " etc.\n\nTake requests for changes to the supplied code, and then you MUST\n1. (planning)"
    " Think step-by-step and explain the needed changes.",
}


def captured(name: str) -> dict[str, Any]:
    return recorded.body(FIXTURES / name)


def asked(name: str, ask: str) -> dict[str, Any]:
    """The captured `name` with its one user message's words in place of the recorded
    ones."""
    body = copy.deepcopy(captured(name))
    body["messages"][1]["content"] = ask
    return body


def clarified_generate() -> dict[str, Any]:
    """The last request of a clarified run (`clarified_gen`): the generate system prompt,
    the clarify loop's turns and their last reply, then `generate` with the file format."""
    loop = captured("clarify-loop.json")
    generate = captured("generate-todo.json")
    system = generate["messages"][0]["content"]
    after_roadmap = system[len(ROADMAP) :].split("\nUseful to know:\n", 1)[0]
    messages = [generate["messages"][0], *loop["messages"][1:]]
    messages += [
        {"role": "assistant", "content": "Assumptions: todos are kept in todos.json."},
        {"role": "user", "content": after_roadmap},
    ]
    return {**loop, "messages": messages}


def coding_by_rule(body: dict[str, Any]) -> None:
    """`body` is a code answer, coding by `CODE_ANSWER`."""
    assert_decided_by(body, CODE_ANSWER_READING, CODE_ANSWER, "coding")


@pytest.mark.parametrize("name", CAPTURED)
def test_every_captured_request_is_coding_by_the_rule(name: str) -> None:
    coding_by_rule(captured(name))


@pytest.mark.parametrize(
    ("name", "ask"),
    [
        ("generate-haiku.json", HAIKU),  # prose 0.986 read by its topic
        ("generate-haiku.json", "Request: a short story generator\n"),  # prose 0.99
        ("clarify-first.json", "a program that computes the n-th prime number\n"),  # math 0.51
        ("clarify-first.json", "a haiku generator\n"),
    ],
)
def test_a_projects_topic_does_not_route_it(name: str, ask: str) -> None:
    body = asked(name, ask)
    assert view(body).latest == ask
    coding_by_rule(body)


def test_a_clarified_runs_generate_request_is_coding() -> None:
    coding_by_rule(clarified_generate())


@pytest.mark.parametrize("version", OLD_PROMPTS)
def test_older_versions_openings_ask_for_code(version: str) -> None:
    body = asked("generate-haiku.json", HAIKU)
    body["messages"][0]["content"] = OLD_PROMPTS[version]
    coding_by_rule(body)


@pytest.mark.parametrize(
    "system",
    [
        None,
        "You are a helpful assistant.",
        # the roadmap's lines, not at the prompt's start
        "You are a poet.\n" + ROADMAP,
        # its first line alone
        "You will get instructions for code to write.\n",
        # Aider's edit prompts, of mid-2023 and of today: not gpt-engineer's improve
        "Act as an expert software developer.\nAlways use best practices when coding.\nWhen you"
        " edit or add code, respect and use existing conventions, libraries, etc.\n\nTake"
        " requests for changes to the supplied code.\nIf the request is ambiguous, ask"
        " questions.\n",
        "Act as an expert software developer.\nAlways use best practices when coding.\nRespect"
        " and use existing conventions, libraries, etc that are already present in the code"
        " base.\n",
    ],
)
def test_a_haiku_request_without_gpt_engineers_prompt_stays_prose(system: str | None) -> None:
    head = [] if system is None else [{"role": "system", "content": system}]
    body = {"model": "auto", "messages": [*head, {"role": "user", "content": HAIKU}]}
    assert view(body).fixed != CODE_ANSWER_READING
    assert classify(body).label == "prose"


def test_the_roadmap_typed_as_the_users_ask_is_read_as_written() -> None:
    body = {"model": "auto", "messages": [{"role": "user", "content": ROADMAP + HAIKU}]}
    assert view(body).fixed != CODE_ANSWER_READING


def test_the_openings_are_the_preprompts() -> None:
    """Each opening is a prefix of a system prompt gpt-engineer 0.3.1 sent, or of one of the
    older versions' above."""
    sent = [captured(name)["messages"][0]["content"] for name in CAPTURED]
    for opening in OPENINGS:
        assert any(text.startswith(opening) for text in [*sent, *OLD_PROMPTS.values()])


def files_ask(files: str, ask: str) -> str:
    """The improve mode's one user message: the files' fenced block (`FilesDict.to_chat`),
    a blank line, the request (`Prompt.to_langchain_content`)."""
    return f"```\n{files}```\n\n{ask}"


def project(lines: int) -> str:
    """One file of `lines` numbered lines, as `to_chat` writes it."""
    body = "".join(f"{n} def f{n}(items):\n" for n in range(1, lines + 1))
    return f"File: app.py\n{body}\n"


def test_the_improve_ask_is_the_request_after_the_files() -> None:
    body = captured("improve.json")
    seen = view(body)
    assert (seen.latest, seen.first) == (IMPROVE_ASK, "")
    assert prompt_text(body) == IMPROVE_ASK.rstrip()
    empty = asked("improve.json", files_ask("", IMPROVE_ASK))  # no files on disk
    assert view(empty).latest == IMPROVE_ASK


def test_improve_asks_on_one_project_are_keyed_by_their_requests() -> None:
    """Files past the key's 2,048 characters: each request its own conversation, and the
    improve loop's retry after a reply (same first message) the same one."""
    files = project(200)
    asks = ["Request: add type hints\n", "Request: write a README for newcomers\n"]
    bodies = [asked("improve.json", files_ask(files, ask)) for ask in asks]
    keys = [conversation_key(body, {}, "c") for body in bodies]
    assert keys[0] != keys[1]
    retry = copy.deepcopy(bodies[0])
    retry["messages"] += [
        {"role": "assistant", "content": "```diff\n--- app.py\n+++ app.py\n```"},
        {"role": "user", "content": "Some previously produced diffs were not on the format"},
    ]
    assert conversation_key(retry, {}, "c") == keys[0]
    assert view(retry).first == asks[0]


@pytest.mark.parametrize(
    "change",
    ["no-system", "other-system", "second-user", "no-request"],
)
def test_files_and_a_request_elsewhere_are_read_as_sent(change: str) -> None:
    """Only gpt-engineer's improve ask is cut: its first message after the roadmap's system
    prompt, the fenced files then "Request: "."""
    text = files_ask(project(3), IMPROVE_ASK)
    body = asked("improve.json", text)
    messages = body["messages"]
    if change == "no-system":
        del messages[0]
    elif change == "other-system":
        messages[0]["content"] = "You are a helpful assistant."
    elif change == "second-user":
        messages[1:1] = [
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": "hi"},
        ]
    else:
        messages[1]["content"] = text.replace("Request: ", "Please: ")
    assert view(body).latest == messages[-1]["content"]
