"""The runner against the simulator on 127.0.0.1 (vLLM's chat completions on the wire).

The simulator answers a shipped case's prompt with its reference (`canary.py`); tests script
other answers with `POST /sim/replies` and faults with the `x-sim-fault` header.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx

from evals import results
from evals.applicability import Capabilities, answer_budget
from evals.endpoint import Endpoint, ask, request_body
from evals.runner import run_cases
from evals.suite import Case, case_from_dict
from tests.evals.shipped_cases import SHIPPED_CASES, pick
from tests.harness import Running, simulator

MODEL = "fake-model"  # what the `sim` fixture serves


def endpoint(server: Running, **extra: Any) -> Endpoint:
    return Endpoint(server.url, MODEL, **extra)


def sent(server: Running) -> list[dict[str, Any]]:
    """The bodies the simulator was sent, oldest first."""
    bodies: list[dict[str, Any]] = server.stats()["recent_requests"]
    return bodies


async def test_reference_answers_pass_and_requests_carry_case_settings() -> None:
    cases = pick("smf.coding.easy.01", "smf.tool_calling.easy.01", "smf.math.hard.01")
    # with an API key set the simulator refuses (401) a request without `Bearer sk-test`
    with simulator(model=MODEL, keep_requests=8, api_key="sk-test") as server:
        out = await run_cases(cases, endpoint(server, api_key="sk-test"), concurrency=2)
        bodies = {b["messages"][0]["content"]: b for b in sent(server)}
        generated = server.stats()["generation_tokens"]
    assert [r.status for r in out] == ["pass", "pass", "pass"]
    assert [r.id for r in out] == [c.id for c in cases]
    tool_body = bodies[cases[1].prompt]
    assert tool_body["tools"] == cases[1].tools
    assert tool_body["max_tokens"] == cases[1].max_tokens
    assert tool_body["chat_template_kwargs"] == {"enable_thinking": False}
    assert "tools" not in bodies[cases[0].prompt]
    assert out[0].latency_s is not None and (out[0].completion_tokens or 0) > 0
    assert sum(r.completion_tokens or 0 for r in out) == generated  # the usage it reported


async def test_thinking_switch_and_extra_body(sim: Running) -> None:
    case = pick("smf.math.hard.01")
    extra = {"chat_template_kwargs": {"foo": 1}, "seed": 7}
    await run_cases(case, endpoint(sim, extra_body=extra), thinking=True)
    await run_cases(case, endpoint(sim), thinking=None)
    on, omitted = sent(sim)
    assert on["chat_template_kwargs"] == {"foo": 1, "enable_thinking": True} and on["seed"] == 7
    assert "chat_template_kwargs" not in omitted


async def test_wrong_answers_fail_with_kinds(sim: Running) -> None:
    coding, reasoning = pick("smf.coding.easy.01", "smf.reasoning.easy.01")
    wrong = {coding.prompt: "def broken(:\n    pass", reasoning.prompt: "I would rather not say."}
    sim.control("replies", wrong)
    out = await run_cases([coding, reasoning], endpoint(sim))
    assert [(r.status, r.failure_kind) for r in out] == [
        ("fail", "syntax_error"),
        ("fail", "mismatch"),
    ]
    assert out[1].answer == "I would rather not say."


async def test_transport_problems_are_errors_not_failures(sim: Running) -> None:
    """An overloaded backend's 503, a reply cut to half its JSON, and one never sent."""
    cases = pick("smf.tool_calling.easy.01", "smf.tool_calling.easy.02", "smf.tool_calling.easy.03")
    # only the reply never sent waits out its timeout: the others' is long enough for a
    # loaded CI machine (0.5 s for all three read a slow 503 as a timeout there)
    faults = (("server_error:503", 30.0), ("malformed_chunk", 30.0), ("no_response", 0.5))
    out = [
        (await run_cases([case], endpoint(sim, headers={"x-sim-fault": fault}), timeout_s=wait))[0]
        for case, (fault, wait) in zip(cases, faults, strict=True)
    ]
    assert [(r.status, r.failure_kind) for r in out] == [
        ("error", "transport"),
        ("error", "transport"),
        ("error", "timeout"),
    ]
    assert out[0].detail.startswith("HTTP 503")
    assert out[1].detail == "reply is not JSON"
    assert out[2].detail == "no reply within 0.5s"
    assert sim.stats()["by_fault"] == {"server_error": 1, "malformed_chunk": 1, "no_response": 1}


async def test_an_answer_the_server_stopped_is_an_error_not_a_failure(sim: Running) -> None:
    """vLLM's engine dropping a request (`finish_reason: "abort"`: shutdown, sleep mode,
    scale-down) sends the answer so far: it was graded, the model failed for the server's
    restart, and the canary closed a gate on it (found in review). vLLM's "error" is the
    same; the simulator does not send it, so its reply is bent through `ask_one`."""
    math, tool = pick("smf.math.hard.01", "smf.tool_calling.easy.01")
    aborting = endpoint(sim, headers={"x-sim-fault": "abort"})
    out = await run_cases([math, tool], aborting)
    assert [(r.status, r.failure_kind) for r in out] == [("error", "transport")] * 2
    assert out[0].detail == "the answer was stopped (finish_reason 'abort')"

    async with httpx.AsyncClient(timeout=30, trust_env=False) as client:

        async def failed(body: dict[str, Any]) -> Any:
            reply = await ask(client, endpoint(sim), body)  # the simulator's own reply
            reply["choices"][0]["finish_reason"] = "error"
            return reply

        (errored,) = await run_cases([math], endpoint(sim), ask_one=failed)
    assert (errored.status, errored.failure_kind) == ("error", "transport")
    assert errored.detail == "the answer was stopped (finish_reason 'error')"
    assert (await run_cases([math], endpoint(sim)))[0].status == "pass"  # unfaulted: graded


async def test_a_finish_reason_that_is_no_text_costs_its_case_not_the_run(sim: Running) -> None:
    """`finish_reason: ["stop"]` raised TypeError (a list is no set member) out of the task
    group: every case of the run was lost, a canary round failed whole (found in review).
    It is a malformed completion now, an error; a null one is still graded."""
    cases = pick("smf.math.hard.01", "smf.reasoning.easy.01", "smf.coding.easy.01")
    odd: dict[str, Any] = {cases[0].prompt: ["stop"], cases[1].prompt: {"type": "stop"}}

    async with httpx.AsyncClient(timeout=30, trust_env=False) as client:

        async def bent(body: dict[str, Any]) -> Any:
            reply = await ask(client, endpoint(sim), body)  # the simulator's own reply
            reason = odd.get(body["messages"][-1]["content"])  # None for the third case
            reply["choices"][0]["finish_reason"] = reason
            return reply

        out = await run_cases(cases, endpoint(sim), ask_one=bent)
    assert [(r.status, r.failure_kind) for r in out] == [
        ("error", "transport"),
        ("error", "transport"),
        ("pass", None),
    ]
    assert out[0].detail == "malformed completion: finish_reason is list"
    assert out[1].detail == "malformed completion: finish_reason is dict"


def test_the_runner_knows_the_finish_reasons_the_router_treats_as_stopped() -> None:
    from evals.endpoint import UNFINISHED
    from router.reply_checks import UNFINISHED as ROUTER_UNFINISHED

    assert UNFINISHED == ROUTER_UNFINISHED


async def test_unreachable_endpoint_is_an_error() -> None:
    with simulator(model=MODEL) as server:
        url = server.url
    out = await run_cases(pick("smf.math.hard.01"), Endpoint(url, MODEL), timeout_s=5)
    assert out[0].status == "error" and "Connect" in out[0].detail


async def test_gated_and_unsupported_cases_are_not_applicable(sim: Running) -> None:
    vision = case_from_dict(
        {
            "id": "v",
            "prompt": "see",
            "evaluator": "text_match",
            "expected": "cat",
            "requires_modalities": ["image"],
        }
    )
    judge = case_from_dict({"id": "j", "prompt": "rate", "evaluator": "llm_judge"})
    out = await run_cases([vision, judge], endpoint(sim))
    assert [r.status for r in out] == ["n/a", "n/a"]
    assert "modality image" in out[0].detail and "unsupported evaluator" in out[1].detail
    assert sim.stats()["requests"] == 0


async def test_a_case_that_cannot_be_graded_is_an_error_not_a_failure(sim: Running) -> None:
    """A structural_count case with a unit we do not know failed the model (`mismatch`),
    lowering its pass rate for the suite's mistake (found in review). The loader refuses
    such a case now; one built in code still errs."""
    sim.control("replies", {"two bullets": "one\ntwo"})
    unit = {"unit": "bullet"}
    odd = Case("odd", "odd", "s", "easy", "two bullets", "structural_count", 2, metadata=unit)
    (out,) = await run_cases([odd], endpoint(sim))
    assert (out.status, out.failure_kind) == ("error", "case")
    assert out.detail == "the case cannot be graded: unknown unit 'bullet' " + (
        "(known: line, paragraph, stanza, sentence, word)"
    )
    assert sent(sim)[0]["messages"][-1]["content"] == "two bullets"  # it was asked


async def test_a_templated_smf_bench_case_is_not_applicable_and_never_sent(sim: Running) -> None:
    templated = case_from_dict(
        {"id": "perf", "evaluator": "performance", "prompt_template": "context_scaling"}
    )
    (out,) = await run_cases([templated], endpoint(sim))
    assert out.status == "n/a" and "prompt_template" in out.detail
    assert sim.stats()["requests"] == 0


async def _until_held(server: Running, count: int) -> None:
    """Wait (yielding to the runner on this loop) until `count` requests are held."""
    held, deadline = 0, time.monotonic() + 10
    while time.monotonic() < deadline:
        held = (await asyncio.to_thread(server.stats))["held"]
        assert held <= count, f"{held} requests held at once"
        if held == count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never {count} requests held at once (last {held})")


async def test_concurrency_is_bounded_and_used(sim: Running) -> None:
    """Every request is held until released: three must be held at once (the bound is
    used) before a round is let go, and never more (the bound holds)."""
    sim.control("faults", {"fault": "hold"})
    cases = [c for c in SHIPPED_CASES if c.suite in ("math", "reasoning")][:12]
    run = asyncio.create_task(run_cases(cases, endpoint(sim), concurrency=3))
    for _ in range(4):  # twelve cases, three at a time
        await _until_held(sim, 3)
        sim.control("release", {})
    out = await asyncio.wait_for(run, 30)
    assert [r.status for r in out] == ["pass"] * 12
    assert sim.stats()["peak_in_flight"] == 3
    assert sim.completions() == 12


async def test_sandboxed_programs_run_at_most_one_per_cpu(monkeypatch: Any) -> None:
    """Up to six sandboxes ran at once whatever the box, each against a 10 s wall clock: on
    2 cores correct programs timed out at the default --concurrency 8 (found in review)."""
    import threading
    import weakref

    from evals import runner
    from evals.sandbox import RunOutcome

    monkeypatch.setattr(runner, "SANDBOX_SLOTS", 2)
    monkeypatch.setattr(runner, "_SLOTS", weakref.WeakKeyDictionary())
    lock, inside, peak = threading.Lock(), [0], [0]
    paired, crowded = threading.Event(), threading.Event()

    def observed(program: str) -> RunOutcome:
        with lock:
            inside[0] += 1
            peak[0] = max(peak[0], inside[0])
            if inside[0] >= 2:
                paired.set()
            if inside[0] > 2:
                crowded.set()
        paired.wait(30)  # the first waits for a second: both slots are used
        crowded.wait(0.3)  # time for a third to start, were it let in
        with lock:
            inside[0] -= 1
        return RunOutcome(0, False, True, "", "", 0.1, True)

    async def correct(body: dict[str, Any]) -> Any:
        return {
            "choices": [{"message": {"role": "assistant", "content": "def f():\n    return 1"}}]
        }

    cases = [
        case_from_dict(
            {"id": f"u{i}", "prompt": f"f {i}", "evaluator": "unit_test", "expected": "f()"}
        )
        for i in range(6)
    ]
    out = await run_cases(
        cases, Endpoint("http://unused", "m"), concurrency=8, execute=observed, ask_one=correct
    )
    assert [r.status for r in out] == ["pass"] * 6
    assert peak[0] == 2


async def test_a_malformed_reply_costs_its_case_not_the_run(sim: Running) -> None:
    """A null message or content sent as parts crashed the parser, and the task group then
    cancelled every other case: the canary recorded nothing (found in review). Servers
    that send such replies are not ones the simulator plays: its replies are bent on the
    way, through the runner's own `ask_one` seam, before the runner parses them."""
    cases = pick(
        "smf.math.hard.01",
        "smf.reasoning.easy.01",
        "smf.coding.easy.01",
        "smf.tool_calling.easy.02",
    )

    async with httpx.AsyncClient(timeout=30, trust_env=False) as client:

        async def odd(body: dict[str, Any]) -> Any:
            reply = await ask(client, endpoint(sim), body)  # the simulator's own reply
            prompt = body["messages"][-1]["content"]
            if prompt == cases[0].prompt:
                reply["choices"][0]["message"] = None
            elif prompt == cases[1].prompt:
                text = reply["choices"][0]["message"]["content"]
                reply["choices"][0]["message"]["content"] = [{"type": "text", "text": text}]
            elif prompt == cases[3].prompt:
                reply = {"unexpected": True}
            return reply

        out = await run_cases(cases, endpoint(sim), ask_one=odd)
    assert [r.status for r in out] == ["error", "pass", "pass", "error"]
    assert "message is NoneType" in out[0].detail
    assert out[3].failure_kind == "transport" and "malformed completion" in out[3].detail
    assert sim.completions() == 4


async def test_half_a_surrogate_pair_in_a_reply_is_replaced_not_kept(
    sim: Running, tmp_path: Path
) -> None:
    """A reply escaping half an emoji (`"\\ud83d"`, a model cut mid-pair) kept it in the
    answer: `eval run --out` then failed to encode the file after the whole run (found in
    review). The simulator's JSON encoder cannot send one, so its reply is bent on the way,
    through the runner's `ask_one` seam, as `json.loads` would have parsed it."""
    math, tool = pick("smf.math.hard.01", "smf.tool_calling.easy.01")

    async with httpx.AsyncClient(timeout=30, trust_env=False) as client:

        async def cut(body: dict[str, Any]) -> Any:
            reply = await ask(client, endpoint(sim), body)  # the simulator's own reply
            message = reply["choices"][0]["message"]
            if message.get("content"):
                message["content"] += json.loads('" \\ud83d"')
            for call in message.get("tool_calls") or []:
                call["function"]["arguments"] += json.loads('"\\ud83d"')
            return reply

        out = await run_cases([math, tool], endpoint(sim), ask_one=cut)
    assert [r.status for r in out] == ["pass", "pass"]
    assert out[0].answer is not None and out[0].answer.endswith(" \ufffd")
    assert out[1].tool_calls[0]["function"]["arguments"].endswith("\ufffd")
    path = tmp_path / "run.json"
    results.write(path, results.to_document(out, {}))
    assert results.read(path)["cases"][0]["answer"] == out[0].answer


async def test_a_grader_that_raises_costs_its_case_not_the_run(sim: Running) -> None:
    def broken(program: str) -> Any:
        raise RuntimeError("grader bug")

    cases = pick("smf.coding.easy.01", "smf.math.hard.01")
    out = await run_cases(cases, endpoint(sim), execute=broken)
    assert [(r.status, r.detail) for r in out] == [
        ("error", "grading failed: RuntimeError"),
        ("pass", out[1].detail),
    ]


async def test_a_backend_extra_body_never_overrides_the_case(sim: Running) -> None:
    """Over HTTP the canary let `extra_body: {max_tokens: 4096}` undo the cut to fit a
    window and a default temperature change what the case is graded at (found in review)."""
    (case,) = pick("smf.math.hard.01")
    extra = {"max_tokens": 4096, "temperature": 0.7, "seed": 7}
    await run_cases([case], endpoint(sim, extra_body=extra))
    (body,) = sent(sim)
    assert (body["max_tokens"], body["temperature"]) == (case.max_tokens, case.temperature)
    assert body["seed"] == 7


async def test_a_backend_max_completion_tokens_default_never_overrides_the_case(
    sim: Running,
) -> None:
    """Only `max_tokens` was dropped from the backend's `extra_body`: a default
    `max_completion_tokens: 4096` went along, and vLLM (which reads it before `max_tokens`)
    answered past the case's limit and the cut to fit a context window (found in review)."""
    (case,) = pick("smf.math.hard.01")
    extra = {"max_completion_tokens": 4096}
    await run_cases(
        [case], endpoint(sim, extra_body=extra), capabilities=Capabilities(context_window=1024)
    )
    (body,) = sent(sim)
    assert "max_completion_tokens" not in body
    assert (
        body["max_tokens"]
        == answer_budget(case, Capabilities(context_window=1024))
        < case.max_tokens
    )


def test_content_parts_without_text_strings_are_skipped_not_fatal() -> None:
    from evals.endpoint import parse_answer

    payload = {"choices": [{"message": {"content": [{"text": 5}, {"type": "text", "text": "ok"}]}}]}
    answer, _ = parse_answer(payload)
    assert answer.content == "ok"


def test_openais_own_api_gets_the_case_limit_as_max_completion_tokens() -> None:
    """Its reasoning models refuse `max_tokens`: every canary case against such a cloud
    backend was a 400, so its quality was never judged (found in review). A backend's own
    `max_tokens` default does not go along with it."""
    case = pick("smf.math.hard.01")[0]
    openai = Endpoint("https://api.openai.com/v1", "gpt-5", extra_body={"max_tokens": 4096})
    body = request_body(case, openai, thinking=None)
    assert body["max_completion_tokens"] == case.max_tokens and "max_tokens" not in body
    vllm = request_body(case, Endpoint("http://spark:8888/v1", "laguna"), thinking=None)
    assert vllm["max_tokens"] == case.max_tokens and "max_completion_tokens" not in vllm
