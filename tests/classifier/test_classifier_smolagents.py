"""smolagents' requests, at the edges of their scope (`classifier.smolagents`), on the
classifier's view and the conversation key alone. The captured runs go through the router in
`tests/agent_apis/test_agent_smolagents.py`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from classifier import classify
from classifier.fixed import CODE_ANSWER_READING
from classifier.request import view
from classifier.smolagents import CODE_SYSTEM, FINAL_SYSTEM, TASK
from router.conversation import conversation_key

FIXTURES = Path(__file__).parents[1] / "fixtures" / "smolagents-1.26.0"
WEATHER = "What is the weather in Paris?"
PRIMES = "How many prime numbers are there below 100?"
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


KINDS = ("plan", "step", "plan-update", "step-after-update", "final-answer")
# smolagents 1.26.0, `smolagents/prompts/code_agent.yaml` `managed_agent.task` (alike in
# `toolcalling_agent.yaml` and `structured_code_agent.yaml`), rendered by `MultiStepAgent.__call__`
# (`agents.py`) for a managed agent named "helper"; then `run`'s note of `additional_args`
MANAGED = (
    "You're a helpful agent named 'helper'.\nYou have been submitted this task by your manager."
    "\n---\nTask:\n{task}\n---\nYou're helping your manager solve a wider task: so make sure to"
    " not provide a one-line answer, but give as much information as possible to give them a"
    " clear understanding of the answer.\n\nYour final_answer WILL HAVE to contain these parts:"
    "\n### 1. Task outcome (short version):\n### 2. Task outcome (extremely detailed version):"
    "\n### 3. Additional context (if relevant):\n\nPut all these in your final_answer tool,"
    " everything that you do not pass as an argument to final_answer will be lost.\nAnd even if"
    " your task resolution is not successful, please return as much context as possible, so"
    " that your manager can act upon this feedback."
)
ARGUMENTS = (
    "\nYou have been provided with these additional arguments, that you can access directly"
    " using the keys as variables:\n{'limit': 100}."
)


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def flattened(body: dict[str, Any]) -> dict[str, Any]:
    """`body` as smolagents sends it with `flatten_messages_as_text=True`: string contents."""
    out = copy.deepcopy(body)
    for message in out["messages"]:
        message["content"] = "\n".join(part["text"] for part in message["content"])
    return out


@pytest.mark.parametrize("run", ["tool", "code"])
def test_only_a_codeagents_requests_ask_for_code(run: str) -> None:
    """A CodeAgent's plan, steps and plan update (its tools as Python functions); not a
    ToolCallingAgent's, nor a final answer, which says nothing of the agent's kind."""
    kinds = ("plan", "step", "plan-update", "step-after-update", "final-answer")
    asks_code = [
        view(captured(f"{run}-{kind}.json")).fixed == CODE_ANSWER_READING for kind in kinds
    ]
    assert asks_code == ([True] * 4 + [False] if run == "code" else [False] * 5)


@pytest.mark.parametrize("name", ["code-plan.json", "code-step.json", "code-plan-update.json"])
def test_string_contents_read_as_parts_do(name: str) -> None:
    body = captured(name)
    seen, flat = view(body), view(flattened(body))
    assert (flat.latest, flat.first, flat.fixed == CODE_ANSWER_READING) == (PRIMES, "", True)
    assert (seen.latest, seen.first) == (PRIMES, "")
    assert conversation_key(flattened(body), {}, "c") == conversation_key(body, {}, "c")


@pytest.mark.parametrize("name", ["code-step.json", "code-plan-update.json", "tool-step.json"])
def test_a_developer_system_prompt_is_read_as_a_system_one(name: str) -> None:
    """Its system prompt sent as a developer message (OpenAI's APIs take either): the same
    request (`classifier.message.read_system`). Read as "system" only, a CodeAgent's step was
    tool_calling 0.52, not coding 0.97 (found in review)."""
    body = captured(name)
    developer = copy.deepcopy(body)
    developer["messages"][0]["role"] = "developer"
    assert classify(developer) == classify(body)
    assert view(developer) == view(body)
    assert conversation_key(developer, {}, "c") == conversation_key(body, {}, "c")


def test_a_tasks_images_keep_the_runs_key() -> None:
    """A task given with images (`run(task, images=...)`): its message's text, then the
    images; the plan holds the text alone."""
    step = captured("code-step.json")
    step["messages"][1]["content"].append(IMAGE)
    assert view(step).latest == PRIMES
    plan = captured("code-plan.json")
    assert conversation_key(step, {}, "c") == conversation_key(plan, {}, "c")


def test_a_later_runs_plan_update_keeps_the_first_task() -> None:
    """`run(second, reset=False)` goes on in the first run's memory: its plan update names the
    second task in its system prompt; the first task's message comes first, the second's
    merged into the observation before it."""
    update = captured("code-plan-update.json")
    system = update["messages"][0]["content"][0]
    system["text"] = system["text"].replace(PRIMES, "And below 200?")
    update["messages"][1:] = [
        {"role": "user", "content": [{"type": "text", "text": TASK + PRIMES}]},
        {"role": "assistant", "content": "Calling tools:\n[...]"},
        {"role": "user", "content": "Observation:\n25\nNew task:\nAnd below 200?"},
    ]
    seen = view(update)
    assert (seen.first, seen.latest) == ("", PRIMES)
    step = captured("code-step.json")
    assert conversation_key(update, {}, "c") == conversation_key(step, {}, "c")


@pytest.mark.parametrize(
    "system",
    [
        "You are a helpful assistant.",
        FINAL_SYSTEM + " Be brief.",  # not its whole text
        CODE_SYSTEM.rstrip(),  # not its opening line, to its break
    ],
)
def test_smolagents_words_in_another_request_are_read_as_written(system: str) -> None:
    """A "New task:", an observation, smolagents' prompts after another system prompt: a
    user's words, read and keyed as written, and no CodeAgent's step."""
    task = f"{TASK}{PRIMES}"
    observation = "Observation:\nExecution logs:\n25"
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": task},
        {"role": "assistant", "content": "primes = [n for n in range(2, 100)]"},
        {"role": "user", "content": observation},
    ]
    seen = view({"model": "auto", "messages": messages})
    assert (seen.latest, seen.first, seen.fixed == CODE_ANSWER_READING) == (
        observation,
        task,
        False,
    )
    bare = copy.deepcopy(messages)
    bare[1]["content"] = PRIMES
    assert conversation_key({"messages": messages}, {}, "c") != conversation_key(
        {"messages": bare}, {}, "c"
    )


def test_a_chat_asking_a_runs_task_is_another_conversation() -> None:
    """The run's key is its task's, marked as smolagents': not a chat's of the same words."""
    chat = {"model": "auto", "messages": [{"role": "user", "content": WEATHER}]}
    run = captured("tool-step.json")
    assert conversation_key(run, {}, "c") != conversation_key(chat, {}, "c")
    assert conversation_key(run, {}, "c") != conversation_key(run, {}, "d")


def managed(body: dict[str, Any], task: str, framed: str) -> dict[str, Any]:
    """`body` with its run's `task` given as `framed`, wherever smolagents put it."""
    text = json.dumps(body).replace(json.dumps(task)[1:-1], json.dumps(framed)[1:-1])
    return dict(json.loads(text))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("run", ["tool", "code"])
@pytest.mark.parametrize("arguments", ["", ARGUMENTS])
def test_a_managed_agents_task_is_read_inside_its_template(
    run: str, kind: str, arguments: str
) -> None:
    """Each kind of a managed agent's requests holds its template around the task its manager
    wrote: the task is read and keys the run, as a run of the task alone would."""
    task = WEATHER if run == "tool" else PRIMES
    body = captured(f"{run}-{kind}.json")
    framed = managed(body, task, MANAGED.format(task=task) + arguments)
    assert json.dumps(framed).count("You're a helpful agent named 'helper'") >= 1
    seen, alone = view(framed), view(body)
    assert (seen.latest, seen.first, seen.fixed == CODE_ANSWER_READING) == (
        alone.latest,
        "",
        alone.fixed == CODE_ANSWER_READING,
    )
    assert seen.latest == task
    assert conversation_key(framed, {}, "c") == conversation_key(body, {}, "c")


def test_smolagents_template_otherwise_is_read_as_written() -> None:
    """Without its end, or with words after it that are no `additional_args`, the text is
    the task as written."""
    body = captured("code-step.json")
    for framed in (
        MANAGED.format(task=PRIMES).split("\n---\nYou're")[0],
        MANAGED.format(task=PRIMES) + "\nAlso say why.",
    ):
        assert view(managed(body, PRIMES, framed)).latest == framed
