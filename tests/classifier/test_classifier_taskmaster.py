"""Taskmaster's planning prompts are instruction by one rule, whatever the user asked, and its
research prompt is read by the query inside (`classifier.taskmaster`).

Read as written (Taskmaster 0.43.1 against the router), its templates and the project's
task list decided: add-task's rate-limiting ask was writing 0.461 (cloud), and once the
project held tasks every add-task was coding 0.83-0.99, "Draft a blog post announcing the
launch" too; a research question read the project's tasks with it ("Prove that the square
root of 2 is irrational." writing 0.55 where alone it is math 0.98). The bodies are the ones
Taskmaster sent (`tests/fixtures/task-master-ai-0.43.1.md`).
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from classifier import classify
from classifier.fixed import TASK_RECORD_READING
from classifier.request import view
from classifier.rules import TASK_RECORD
from classifier.taskmaster import ADD_TASK, EXPAND, PARSE_PRD, RESEARCH, UPDATE_TASK, WITHIN
from router.config import DEFAULT_ROUTES
from tests import recorded
from tests.classifier.fixed_readings import assert_decided_by, assert_explained_by

FIXTURES = recorded.FIXTURES / "task-master-ai-0.43.1"
PLANNING = [
    "parse-prd.json",
    "parse-prd-lmstudio.json",
    "expand.json",
    "add-task.json",
    "add-task-tasks.json",
    "add-task-responses.json",
    "update-task.json",
]
QUERY = (
    "What is the best way to generate collision-free 6-character short codes in Python with SQLite?"
)
ASK = re.compile(r'request: ".*?"')
LANGUAGE = " \n\n Always respond in English."

captured = recorded.loader(FIXTURES)


def route(label: str) -> str:
    """The backend the default routes send `label` to first."""
    return DEFAULT_ROUTES[label][0]


def alone(ask: str) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": "user", "content": ask}]}


def task_record_by_rule(body: dict[str, Any]) -> None:
    """`body` is instruction by `TASK_RECORD`, routed local."""
    intent = assert_decided_by(body, TASK_RECORD_READING, TASK_RECORD, "instruction", 0.97)
    assert route(intent.label) == "local"
    assert_explained_by(body, TASK_RECORD, "instruction")


def asking(name: str, ask: str) -> dict[str, Any]:
    """The recorded add-task `name` with the user's ask `ask` in its prompt."""
    body = captured(name)
    message = body["messages"][-1]
    message["content"] = ASK.sub(lambda _: f'request: "{ask}"', message["content"], count=1)
    assert ask in message["content"]
    return body


def researching(name: str, query: str) -> dict[str, Any]:
    """The recorded research request `name` with `query` in place of its query, in either
    API's shape (a string, or one `input_text` part)."""
    body = captured(name)
    message = (body.get("messages") or body["input"])[-1]
    content = message["content"]
    if isinstance(content, str):
        message["content"] = content.replace(QUERY, query, 1)
    else:
        content[0]["text"] = content[0]["text"].replace(QUERY, query, 1)
    return body


@pytest.mark.parametrize("name", PLANNING)
def test_every_planning_request_is_a_task_record_by_the_rule(name: str) -> None:
    """Found: parse-prd coding 0.809, expand instruction 0.548, add-task writing 0.461 (cloud)
    and 0.553 over the Responses API (cloud), update-task instruction 0.711."""
    task_record_by_rule(captured(name))


@pytest.mark.parametrize(
    "ask",
    [
        "Draft a blog post announcing the launch of short",
        "Estimate how many 6-character base62 codes we can issue before a 1% collision chance",
        "Add rate limiting to the Flask redirect endpoint",
    ],
)
def test_what_the_user_asks_does_not_route_add_task(ask: str) -> None:
    """With the project's five tasks, every add-task was coding (0.93-0.97), the blog post
    and the estimate too; with one, the rate limit was writing (cloud)."""
    task_record_by_rule(asking("add-task-tasks.json", ask))
    task_record_by_rule(asking("add-task.json", ask))


def test_another_response_language_is_taskmasters_too() -> None:
    body = captured("expand.json")
    system = body["messages"][0]["content"]
    assert system.endswith(LANGUAGE)
    body["messages"][0]["content"] = system[: -len(LANGUAGE)] + " \n\n Always respond in Deutsch."
    task_record_by_rule(body)


@pytest.mark.parametrize("name", ["research.json", "research-responses.json"])
def test_the_captured_research_request_is_read_by_its_query(name: str) -> None:
    body = captured(name)
    assert view(body).latest == QUERY
    assert view(body).fixed is None
    intent = classify(body)
    assert (intent.label, intent.source) == ("coding", "model")
    assert intent.label == classify(alone(QUERY)).label


@pytest.mark.parametrize(
    ("query", "label"),
    [
        ("Prove that the square root of 2 is irrational.", "math"),
        ("Write a short poem about the launch of our URL shortener.", "prose"),
        ("Write a Python function that retries a sqlite3 insert on a unique violation.", "coding"),
    ],
)
@pytest.mark.parametrize("name", ["research.json", "research-responses.json"])
def test_a_research_query_is_read_as_asked_alone(name: str, query: str, label: str) -> None:
    """Read with the project's tasks, the proof was writing 0.55 and the poem writing 0.84;
    alone they are math and prose, for the cloud, and a coding question stays local."""
    body = researching(name, query)
    assert view(body).latest == query
    assert classify(body).label == classify(alone(query)).label == label


def test_a_research_query_without_project_context_is_read_alone() -> None:
    """With no context gathered, Taskmaster leaves out its "# Project Context" section."""
    body = captured("research.json")
    text = body["messages"][-1]["content"]
    start, end = text.index("\n\n\n# Project Context"), text.index("\n\n\n# Instructions")
    body["messages"][-1]["content"] = text[:start] + text[end:]
    assert view(body).latest == QUERY


def test_a_query_past_the_bound_is_read_as_written() -> None:
    """The query's end is looked for within `WITHIN` characters: a research prompt whose
    "# Project Context" lies past it is read whole, not cut at its instructions (which would
    read the project's context as the query)."""
    body = researching("research.json", "How? " * (WITHIN // 5 + 1))
    assert view(body).latest.startswith("# Research Query\n\n")


def test_the_bodies_are_taskmasters() -> None:
    """Its texts, quoted from Taskmaster 0.43.1's templates, where it puts them: one system
    message ending with its language line, then one user message."""
    for name, opening in [
        ("parse-prd.json", PARSE_PRD),
        ("expand.json", EXPAND),
        ("add-task.json", ADD_TASK),
        ("update-task.json", UPDATE_TASK),
        ("research.json", RESEARCH),
    ]:
        system, user = captured(name)["messages"]
        assert system["role"] == "system" and system["content"].startswith(opening)
        assert system["content"].endswith(LANGUAGE)
        assert user["role"] == "user"
    assert captured("parse-prd.json")["response_format"] == {"type": "json_object"}
    assert captured("add-task-responses.json")["text"]["format"]["type"] == "json_schema"
    user = captured("research.json")["messages"][1]["content"]
    assert user.startswith(f"# Research Query\n\n{QUERY}\n\n\n# Project Context\n\n")


def test_its_texts_elsewhere_are_read_as_written() -> None:
    """Only Taskmaster's prompts whole, where it sends them: without its language line, with
    turns before the ask, or a research prompt with words after its instructions."""
    plan = captured("add-task.json")
    unlined = copy.deepcopy(plan)
    unlined["messages"][0]["content"] = unlined["messages"][0]["content"][: -len(LANGUAGE)]
    assert view(unlined).fixed is None
    chat = copy.deepcopy(plan)
    chat["messages"][1:1] = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello! How can I help?"},
    ]
    assert view(chat).fixed is None
    research = captured("research.json")
    more = copy.deepcopy(research)
    more["messages"][1]["content"] += "\nAlso, what is 17 * 23?"
    assert view(more).latest != QUERY
    other = recorded.with_system(research, "You are a helpful assistant." + LANGUAGE)
    assert view(other).latest != QUERY
    pasted = copy.deepcopy(research)
    del pasted["messages"][0]
    assert view(pasted).latest != QUERY


# The other planning templates' system texts as Taskmaster 0.43.1 renders them (their
# openings quoted from its sources, the rest cut short), none captured live
OTHER_PLANS = [
    "You are an AI assistant helping with task breakdown. Generate exactly 4 subtasks based on"
    " the provided prompt and context.\n\nIMPORTANT: Your response MUST be a JSON object",
    "You are an AI assistant helping with task breakdown. Generate an appropriate number of"
    " subtasks based on the provided prompt and context.\n\nIMPORTANT: Your response MUST be",
    "You are an AI assistant with research capabilities analyzing and breaking down software"
    ' development tasks.\n\nIMPORTANT: Your response MUST be a JSON object with a "subtasks"',
    "You are an AI assistant helping to update a subtask. You will be provided with the"
    " subtask's existing details, context about its parent and sibling tasks, and a user"
    " request string.\n\nYour Goal: Based *only* on the user's request",
    "You are an AI assistant helping to append additional information to a software"
    " development task. You will be provided with the task's existing details, context, and a"
    " user request string.\n\nYour Goal: Based *only* on the user's request",
    "You are an AI assistant helping to update software development tasks based on new"
    " context.\nYou will be given a set of tasks and a prompt describing changes or new"
    " implementation details.",
    "You are an expert software architect and project manager analyzing task complexity. Your"
    " analysis should consider implementation effort, technical challenges, dependencies, and"
    " testing requirements.\n\nIMPORTANT: For each task, provide an analysis object",
    "You are an expert software project manager who helps adjust task complexity while"
    " maintaining clarity and actionability.",
    "You are an expert project manager who creates task breakdowns that match complexity levels.",
]


@pytest.mark.parametrize("system", OTHER_PLANS)
def test_its_other_planning_prompts_are_task_records_too(system: str) -> None:
    """expand after a complexity report and with research, update-subtask, update-task's
    append mode, update, analyze-complexity, scope up or down and its subtasks."""
    body = {
        "model": "auto",
        "messages": [
            {"role": "system", "content": system + LANGUAGE},
            {"role": "user", "content": "Draft a blog post announcing the launch of short"},
        ],
    }
    task_record_by_rule(body)


@pytest.mark.parametrize("system", OTHER_PLANS[-2:])
def test_a_scope_prompt_is_taskmasters_only_whole(system: str) -> None:
    """The scope prompts are one sentence, the whole system text: with more, a user's."""
    body = {
        "model": "auto",
        "messages": [
            {"role": "system", "content": system + " Then write a poem." + LANGUAGE},
            {"role": "user", "content": "Draft a blog post announcing the launch of short"},
        ],
    }
    assert view(body).fixed is None
