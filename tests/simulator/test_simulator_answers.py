"""Pure parts: answers by intent, schema-built tool arguments, canary quality, fault specs,
the stand-in tokenizer; and the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import httpx
import openai
import pytest

from router.simulator import SimThread, faults, tokens
from router.simulator.answer import compose, rng_for
from router.simulator.canary import Case, shipped_cases
from router.simulator.instances import arguments_for
from router.simulator.prompt import Prompt, ToolSpec

MODEL = "tiny"
HTTP = httpx.Client(trust_env=False)


def test_pieces_rebuild_the_text_exactly() -> None:
    text = "Hello, world!  Two\nlines ```python\nx = 1\n``` end  "
    assert "".join(tokens.pieces(text)) == text
    assert len(tokens.pieces(text)) == tokens.count(text)


def test_tool_arguments_follow_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["f", "c"]},
            "days": {"type": "integer", "minimum": 3},
            "tags": {"type": "array", "items": {"type": "boolean"}},
            "extra": {"type": "string"},
        },
        "required": ["city", "unit", "days", "tags"],
    }
    assert arguments_for(schema, "x") == {"city": "Paris", "unit": "f", "days": 3, "tags": [True]}


def test_named_tool_choice_and_tool_results() -> None:
    tools = (ToolSpec("a", {}), ToolSpec("b", {"properties": {"q": {"type": "string"}}}))
    rng = rng_for(0, "x")
    assert compose(Prompt("find it", tools, forced_tool="b"), rng).tool_calls[0].name == "b"
    assert not compose(Prompt("x", tools, tools_disabled=True), rng).tool_calls
    assert not compose(Prompt("x", tools, after_tool_result=True), rng).tool_calls


@pytest.mark.parametrize(
    ("spec", "name", "arg"),
    [
        ("reset", "reset", None),
        ("stall:2.5", "stall", 2.5),
        (" server_error:503 ", "server_error", 503.0),
    ],
)
def test_fault_specs_parse(spec: str, name: str, arg: float | None) -> None:
    assert faults.parse(spec) == faults.Fault(name, arg)  # type: ignore[arg-type]


def test_model_suffix_only_splits_known_faults() -> None:
    assert faults.split_model("m+stall:3") == ("m", faults.Fault("stall", 3.0))
    assert faults.split_model("org/model+v2") == ("org/model+v2", None)
    with pytest.raises(faults.FaultError):
        faults.parse("stall:soon")


CASES = [
    Case("What is 6 times 7? Box it.", "math", "6*7 = 42. \\boxed{42}"),
    Case("Write add(a, b).", "coding", "def add(a, b):\n    return a + b"),
]


def answer(sim: SimThread, text: str) -> str:
    payload = {"model": MODEL, "messages": [{"role": "user", "content": text}]}
    reply = HTTP.post(sim.url + "/v1/chat/completions", json=payload).json()
    return str(reply["choices"][0]["message"]["content"])


def test_canary_prompts_get_the_reference(start_sim: Callable[..., SimThread]) -> None:
    sim = start_sim(cases=CASES)
    assert answer(sim, CASES[0].prompt) == CASES[0].reference
    assert answer(sim, CASES[1].prompt) == "```python\n" + CASES[1].reference + "\n```"


def test_quality_zero_gives_wrong_answers_at_runtime(start_sim: Callable[..., SimThread]) -> None:
    sim = start_sim(cases=CASES, quality={"math": 0.0})
    assert "\\boxed{43}" in answer(sim, CASES[0].prompt)
    assert "return a + b" in answer(sim, CASES[1].prompt)
    httpx.post(sim.url + "/sim/quality", json={"math": 1.0, "coding": 0.0})
    assert answer(sim, CASES[0].prompt) == CASES[0].reference
    compile_me = answer(sim, CASES[1].prompt).split("```python\n")[1].split("```")[0]
    with pytest.raises(SyntaxError):
        compile(compile_me, "<answer>", "exec")


def test_partial_quality_is_seeded(start_sim: Callable[..., SimThread]) -> None:
    runs = []
    for _ in range(2):
        sim = start_sim(cases=CASES, quality={"math": 0.5}, seed=11)
        runs.append([answer(sim, CASES[0].prompt) == CASES[0].reference for _ in range(20)])
    assert runs[0] == runs[1]
    assert 0 < sum(runs[0]) < 20


def test_a_long_prompts_keywords_are_read_at_its_ends(
    start_sim: Callable[..., SimThread],
) -> None:
    """The code and arithmetic rules read a long prompt's first 1,500 and last 500
    characters, as the classifier reads a request: searched whole, an 8 MB prompt took
    10-16 s (found in review). A keyword in the middle of a long text is not read; at
    either end it is."""
    sdk = openai.OpenAI(base_url=start_sim().url + "/v1", api_key="x")
    filler = "The meeting notes go on about the budget and the schedule. " * 200

    def ask(content: str) -> str:
        messages: list[Any] = [{"role": "user", "content": content}]
        reply = sdk.chat.completions.create(model=MODEL, messages=messages)
        return reply.choices[0].message.content or ""

    middle = ask(f"{filler}Also a python script. {filler}")
    assert "```" not in middle and "boxed" not in middle
    assert ask(f"{filler}{filler}Now write a python script.").startswith("Here is a solution")
    assert "\\boxed{5}" in ask(f"What is 2 + 3? {filler}{filler}")


def test_shipped_suites_load_when_evals_is_present() -> None:
    """`shipped_cases` answers no case at all when a suite does not load (the simulator stays
    up, without canary answers), and an `all` over nothing passed (found in review): every
    case the suites' files hold, each file loaded on its own, must be there."""
    from evals.suite import SHIPPED, SUFFIXES, load_file

    files = sorted(p for p in SHIPPED.rglob("*") if p.suffix in SUFFIXES and p.is_file())
    held = sum(len(load_file(f)) for f in files)
    cases = shipped_cases()
    assert held > 0 and len(cases) == held
    assert all(case.prompt and case.suite for case in cases)


def test_command_line_prints_one_ready_line() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "router.simulator", "--profile", "cloud", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line.startswith("simulator (cloud) listening on http://127.0.0.1:")
        url = line.rsplit(" ", 1)[1]
        models = httpx.get(url + "/v1/models").json()
        assert json.dumps(models["data"][0]["id"]) == '"gpt-4o"'
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("error_event:2:700", "error_event's status is one of"),
        ("stall:2:429", "only error_event, echo_credentials, .* take a second argument"),
    ],
)
def test_a_bad_second_fault_argument_is_named_for_what_it_is(spec: str, says: str) -> None:
    """`error_event:2:700` was told that only error_event takes a status (found in review)."""
    with pytest.raises(faults.FaultError, match=says):
        faults.parse(spec)
