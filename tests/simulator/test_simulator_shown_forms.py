"""Forms a prompt shows by example outside JSON asked for by name: a list of strings, and an
example object between markers, each answered in that form.

gpt-researcher 0.15.1 asks its sub-queries as "You must respond with a list of strings in the
following format: ["query 1", "query 2", "query 3"]. The response should contain ONLY the
list." and MetaGPT 0.8.2 shows its PRD's answer between `[CONTENT]` and `[/CONTENT]` under
"## format example" and asks "Format: output wrapped inside [CONTENT][/CONTENT] like format
example, nothing else.". The simulator answered prose (a Python block for MetaGPT's), so in
demo mode gpt-researcher stopped at `'str' object has no attribute 'append'` and MetaGPT gave
up after six tries of its first action (found in a live review). The bodies are the ones
they sent (`tests/fixtures/gpt-researcher-0.15.1.md`, `tests/fixtures/metagpt-0.8.2.md`),
through the official SDK; the answers are read as the apps read them.

The asks are recognised by their words, not by the apps: a sentence asking for the answer
as a list in a form shown (`lead_in.list_asked`), markers of any name around an object that a
heading or a sentence asking for the output names (`shown_forms.wrapped_examples`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import openai
import pytest

from router.simulator import SimThread
from router.simulator.prompted import asked_json
from tests import recorded

MODEL = "tiny"
GPTR = recorded.loader(recorded.FIXTURES / "gpt-researcher-0.15.1")
METAGPT = recorded.loader(recorded.FIXTURES / "metagpt-0.8.2")
# MetaGPT 0.8.2's `extract_content_from_output`: what lies between the markers
CONTENT = re.compile(r"\[CONTENT\]([\s\S]*)\[/CONTENT\]")
SHOWN = re.compile(r"\[CONTENT\]\n(\{.*?\})\n\[/CONTENT\]", re.S)  # the prompt's example


def gptr_queries(content: str) -> list[str]:
    """What gpt-researcher takes from the answer: the JSON it holds (it uses json_repair,
    which reads prose as a string; the list must be whole JSON here)."""
    queries = json.loads(content)
    assert isinstance(queries, list)
    return queries


def metagpt_example(body: dict[str, Any]) -> dict[str, Any]:
    """The object MetaGPT shows between its markers in the user message."""
    found = SHOWN.search(body["messages"][-1]["content"])
    assert found is not None
    return dict(json.loads(found.group(1)))


def streamed(sdk: openai.OpenAI, body: dict[str, Any]) -> str:
    """The text of a streamed chat answer, as MetaGPT collects it."""
    chunks = sdk.chat.completions.create(**body)
    return "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices)


def kinds_match(value: Any, example: Any) -> bool:
    """`value` is of `example`'s kind throughout: strings, lists of the first item's kind
    (an empty example list stays empty), objects with the same keys in order."""
    if isinstance(example, dict):
        same = isinstance(value, dict) and list(value) == list(example)
        return same and all(kinds_match(value[key], example[key]) for key in example)
    if isinstance(example, list):
        items = isinstance(value, list) and (bool(value) == bool(example))
        return items and all(kinds_match(item, example[0]) for item in value)
    return type(value) is type(example)


def ask(sdk: openai.OpenAI, content: str, **fields: Any) -> str:
    messages: Any = [{"role": "user", "content": content}]
    reply = sdk.chat.completions.create(model=MODEL, messages=messages, **fields)
    return reply.choices[0].message.content or ""


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_gpt_researchers_sub_queries_get_a_list_of_three(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """The whole answer is a JSON list of strings, as many as the format shows (three), each
    a few words of the simulator's own (the example's are placeholders); the same body gets
    the same answer."""
    sdk = openai.OpenAI(base_url=start_sim(profile=profile).url + "/v1", api_key="x")
    body = GPTR("subqueries.json") | {"model": MODEL}
    content = sdk.chat.completions.create(**body).choices[0].message.content or ""
    queries = gptr_queries(content)
    assert len(queries) == 3 and all(isinstance(q, str) and q.strip() for q in queries)
    assert not set(queries) & {"query 1", "query 2", "query 3"}
    assert sdk.chat.completions.create(**body).choices[0].message.content == content


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_metagpts_prd_gets_its_example_between_the_markers(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """Streamed as MetaGPT asks it: the answer is the markers and an object between them,
    nothing else, with the example's keys in its order and values of its kinds (strings,
    lists of strings, the requirement pool a list of lists of strings), so the model
    MetaGPT builds from its nodes (`str`, `List[str]`, `List[List[str]]`) takes it."""
    sdk = openai.OpenAI(base_url=start_sim(profile=profile).url + "/v1", api_key="x")
    body = METAGPT("write-prd.json") | {"model": MODEL}
    content = streamed(sdk, body)
    assert content.startswith("[CONTENT]\n{") and content.endswith("}\n[/CONTENT]"), content
    found = CONTENT.search(content)
    assert found is not None
    answer, example = json.loads(found.group(1)), metagpt_example(body)
    assert kinds_match(answer, example), answer
    assert answer["Product Goals"] and answer["Requirement Pool"][0]
    assert answer["Project Name"] != example["Project Name"]  # no placeholder copied
    assert streamed(sdk, body) == content


@pytest.mark.parametrize(
    "content",
    [
        'Return a JSON array of strings, e.g. ["first tag", "second tag"]',
        'Reply with a list of keywords like ["alpha", "beta"] and nothing else.',
        'Give your answer as a list in this format: ["step one", "step two", "step three"]',
    ],
)
def test_a_list_of_strings_asked_in_a_form_shown_is_answered_so(
    start_sim: Callable[..., SimThread], content: str
) -> None:
    """Other words for the same ask: a JSON array, a list "like" one shown, "in this
    format"; the answer holds as many strings as shown."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    shown = json.loads(content[content.index("[") : content.index("]") + 1])
    answer = json.loads(ask(sdk, content))
    assert isinstance(answer, list) and len(answer) == len(shown)
    assert all(isinstance(item, str) and item not in shown for item in answer)


def test_markers_of_any_name_asked_for_wrap_the_answer(
    start_sim: Callable[..., SimThread],
) -> None:
    """Markers named otherwise, asked for by a sentence naming the output, get the same
    answer between them; a nested object keeps its keys, a number and a boolean stay."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    example = {"verdict": "ok", "score": 3, "final": True, "notes": [{"line": "a note"}]}
    prompt = (
        f"Review the change.\n\n[RESULT]\n{json.dumps(example)}\n[/RESULT]\n\n"
        "Write your output between [RESULT] and [/RESULT] as above."
    )
    content = ask(sdk, prompt)
    assert content.startswith("[RESULT]\n") and content.endswith("\n[/RESULT]")
    answer = json.loads(content[len("[RESULT]\n") : -len("\n[/RESULT]")])
    assert kinds_match(answer, example) and (answer["score"], answer["final"]) == (3, True)


@pytest.mark.parametrize(
    "content",
    [
        'Sort this list of strings: ["pear", "apple"]',
        'Why does my code print ["a", "b"] instead of a list of numbers?',
        'Here is my config:\n[SETTINGS]\n{"debug": true}\n[/SETTINGS]\nWhat does it change?',
        'Explain this log line: [INFO] {"event": "start"} [/INFO]',
    ],
)
def test_a_list_or_markers_the_user_shows_ask_for_no_form(
    start_sim: Callable[..., SimThread], content: str
) -> None:
    """A list the user shows to have something done to it, and an object between markers
    that no heading or sentence asks the output of, get the usual answer."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    answer = ask(sdk, content)
    assert not answer.lstrip().startswith(("[", "{")), answer
    assert asked_json(content, "") is None


def test_json_mode_holds_the_answer_to_an_object(start_sim: Callable[..., SimThread]) -> None:
    """Under `response_format: json_object` a list is no answer and markers are not JSON:
    the list's ask gets the usual JSON object, the marked example its object bare."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    mode: Any = {"type": "json_object"}
    listed = ask(
        sdk, 'Respond with a list of strings in this format: ["a", "b"]', response_format=mode
    )
    assert isinstance(json.loads(listed), dict)
    marked = '## format example\n[CONTENT]\n{"name": "x"}\n[/CONTENT]\nFollow the format example.'
    assert list(json.loads(ask(sdk, marked, response_format=mode))) == ["name"]


def test_the_scans_are_bounded() -> None:
    """A text is read for lists and markers within `prompted`'s bounds: 64 decoded values,
    256 KiB."""
    listed = 'Respond with a list of strings in this format: ["a", "b"]'
    assert asked_json(listed, "") is not None
    assert asked_json('["x"] ' * 64 + listed, "") is None  # past its 64 tries
    assert asked_json(" " * 300_000 + listed, "") is None  # past its length
    marked = '## format example\n[CONTENT]\n{"name": "x"}\n[/CONTENT]'
    found = asked_json(marked, "")
    assert found is not None and (found.example, found.tag) == ({"name": "x"}, "CONTENT")
    assert asked_json("[A]{} " * 64 + marked, "") is None


@pytest.mark.parametrize(
    "content",
    [
        'Reply with a list of pairs in this format: [["a", "b"], ["c", "d"]]',
        'Return the list in JSON like {"required": ["x"], "kind": "list"}',
    ],
)
def test_a_list_inside_other_json_is_no_form(content: str) -> None:
    """A list of strings written inside other JSON (a pair in a list of pairs, a schema's
    `"required": [...]`, as ragas's prompts hold) is not the answer's form itself."""
    found = asked_json(content, "")
    assert found is None or not isinstance(found.example, list)
