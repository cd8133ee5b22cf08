"""The official `openai` SDK against a real router on 127.0.0.1 with simulated backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import httpx
import openai
import pytest

from tests.harness import Running, RunningRouter, config_for, router, scrape, wait_until

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


def test_plain_chat_is_routed_and_explained(client: openai.OpenAI) -> None:
    raw = client.chat.completions.with_raw_response.create(
        model="auto",
        messages=[{"role": "user", "content": "Write a Python function that reverses a list."}],
    )
    completion = raw.parse()
    assert raw.headers["x-smf-intent"] == "coding"
    assert raw.headers["x-smf-backend"] == "local"
    assert raw.headers["x-smf-attempts"] == "1"
    assert float(raw.headers["x-smf-confidence"]) > 0
    assert completion.model == "local-model"  # the backend model that served
    assert completion.choices[0].message.content
    assert completion.usage is not None and completion.usage.completion_tokens > 0


def test_math_goes_to_cloud(client: openai.OpenAI) -> None:
    raw = client.chat.completions.with_raw_response.create(
        model="auto",
        messages=[
            {"role": "user", "content": "Solve for x: 3x + 7 = 22. Put the answer in \\boxed{}."}
        ],
    )
    assert raw.headers["x-smf-intent"] == "math"
    assert raw.headers["x-smf-backend"] == "cloud"
    assert raw.parse().model == "cloud-model"


def test_streaming_relays_chunks_and_strips_the_usage_chunk_nobody_asked_for(
    client: openai.OpenAI,
) -> None:
    chunks = list(
        client.chat.completions.create(
            model="local",
            stream=True,
            messages=[{"role": "user", "content": "Tell me a short story."}],
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text
    assert all(c.choices for c in chunks), "a usage chunk reached a client that did not ask for it"
    assert chunks[-1].choices[0].finish_reason in ("stop", "length")


def test_streaming_with_usage_when_asked(client: openai.OpenAI) -> None:
    chunks = list(
        client.chat.completions.create(
            model="local",
            stream=True,
            stream_options={"include_usage": True},
            messages=[{"role": "user", "content": "Say hello."}],
        )
    )
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens > 0


def test_streamed_tool_calls_reassemble(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model="auto",
        stream=True,
        tools=TOOLS,  # type: ignore[arg-type]
        tool_choice="required",
        messages=[{"role": "user", "content": "What's the weather in Paris?"}],
    )
    name, arguments = "", ""
    for chunk in stream:
        for choice in chunk.choices:
            for call in choice.delta.tool_calls or []:
                name += call.function.name or "" if call.function else ""
                arguments += call.function.arguments or "" if call.function else ""
    assert name == "get_weather"
    assert "city" in json.loads(arguments)


def test_non_streamed_tool_call(client: openai.OpenAI) -> None:
    raw = client.chat.completions.with_raw_response.create(
        model="auto",
        tools=TOOLS,
        messages=[{"role": "user", "content": "Weather in Oslo please"}],  # type: ignore[arg-type]
    )
    assert raw.headers["x-smf-intent"] == "tool_calling"
    message = raw.parse().choices[0].message
    assert message.tool_calls and message.tool_calls[0].function.name == "get_weather"


def test_a_call_forced_by_the_deprecated_function_call_is_tool_calling(
    client: openai.OpenAI,
) -> None:
    """`functions` and `function_call` are passed upstream, but the classifier did not read
    them: a forced call was routed as the prose its text reads as (found in review)."""
    raw = client.chat.completions.with_raw_response.create(
        model="auto",
        functions=[TOOLS[0]["function"]],
        function_call={"name": "get_weather"},
        messages=[{"role": "user", "content": "Hello, tell me a poem"}],
    )
    assert raw.headers["x-smf-intent"] == "tool_calling"


async def test_async_client_plain_and_stream(proxy: RunningRouter) -> None:
    client = openai.AsyncOpenAI(base_url=proxy.url, api_key="none", max_retries=0)
    completion = await client.chat.completions.create(
        model="auto", messages=[{"role": "user", "content": "Write a haiku about autumn."}]
    )
    assert completion.choices[0].message.content
    stream = await client.chat.completions.create(
        model="auto",
        stream=True,
        messages=[{"role": "user", "content": "Write a haiku about rain."}],
    )
    pieces = [c.choices[0].delta.content or "" async for c in stream if c.choices]
    assert "".join(pieces)
    await client.close()


def test_unknown_fields_pass_through_untouched(
    backends: dict[str, Running], client: openai.OpenAI
) -> None:
    client.chat.completions.create(
        model="local",
        messages=[{"role": "user", "content": "hi"}],
        seed=7,
        response_format={"type": "json_object"},
        extra_body={
            "chat_template_kwargs": {"enable_thinking": False},
            "top_k": 5,
            "repetition_penalty": 1.1,
        },
    )
    last = backends["local"].stats()["last_request"]  # harness keeps it (keep_requests=1)
    assert last["seed"] == 7 and last["top_k"] == 5 and last["repetition_penalty"] == 1.1
    assert last["response_format"] == {"type": "json_object"}
    assert last["chat_template_kwargs"] == {"enable_thinking": False}
    assert last["model"] == "local-model"


def test_legacy_completions_pass_through(client: openai.OpenAI) -> None:
    completion = client.completions.create(model="local", prompt="def fib(n):", max_tokens=8)
    assert completion.choices[0].text


def test_models_lists_auto_routes_and_backends(client: openai.OpenAI) -> None:
    ids = {m.id for m in client.models.list()}
    assert {"auto", "coding", "math", "local", "cloud"} <= ids


def test_explain_says_where_without_sending(
    proxy: RunningRouter, backends: dict[str, Running]
) -> None:
    before = backends["cloud"].completions()
    response = httpx.post(
        f"{proxy.root}/v1/router/explain",
        json={
            "model": "auto",
            "messages": [{"role": "user", "content": "Integrate x^2 from 0 to 3."}],
        },
    )
    assert response.status_code == 200
    plan = response.json()
    assert plan["intent"]["label"] == "math"
    assert [b["backend"] for b in plan["backends"]] == ["cloud", "local"]
    assert backends["cloud"].completions() == before


def test_explain_says_a_rule_decided_and_shows_no_model_reading_for_no_evidence(
    proxy: RunningRouter,
) -> None:
    """A request the model read nothing in was explained with the model's guess for it
    (`asdf`: instruction 0.997) beside intent unknown (found in review)."""
    ask = {"model": "auto", "messages": [{"role": "user", "content": "Hello, tell me a poem"}]}
    forced = httpx.post(
        f"{proxy.root}/v1/router/explain", json={**ask, "tools": TOOLS, "tool_choice": "required"}
    ).json()
    assert (forced["intent"]["source"], forced["classifier"]["rule"]) == (
        "rule",
        "tool_choice forces a call",
    )
    assert forced["classifier"]["model_intent"] == "prose"  # the model's reading, overridden
    ask["messages"] = [{"role": "user", "content": "asdf"}]
    nothing = httpx.post(f"{proxy.root}/v1/router/explain", json=ask).json()["classifier"]
    assert (nothing["source"], nothing["model_intent"], nothing["top_intents"]) == (
        "default",
        "unknown",
        [],
    )


def test_explain_of_a_completions_body_shows_the_classification_used(
    proxy: RunningRouter,
) -> None:
    """It explained the raw body, which has no messages: the classifier section said
    something other than the intent the plan was made with (found in review)."""
    body = {"api": "completions", "model": "auto", "prompt": ["Integrate x^2 from 0 to 3."]}
    plan = httpx.post(f"{proxy.root}/v1/router/explain", json=body).json()
    assert plan["intent"]["label"] == "math"
    assert plan["classifier"]["intent"] == plan["intent"]["label"]
    assert plan["classifier"]["read"]["latest_chars"] > 0


def test_explain_skips_an_odd_content_part_instead_of_failing(proxy: RunningRouter) -> None:
    """A part whose `type` was a list answered 500 with a traceback in the log (found in
    review); the rest of the message is still read."""
    ask = {"type": "text", "text": "Integrate x^2 from 0 to 3."}
    body = {"model": "auto", "messages": [{"role": "user", "content": [{"type": ["text"]}, ask]}]}
    response = httpx.post(f"{proxy.root}/v1/router/explain", json=body)
    assert response.status_code == 200
    plan = response.json()
    assert plan["intent"]["label"] == plan["classifier"]["intent"] == "math"


def test_a_completions_prompt_is_classified_from_its_text_not_its_repr(
    proxy: RunningRouter,
) -> None:
    """Token ids were classified from their Python repr ("[755, 10134, ...]" read as math,
    sent to the cloud; found in review); a batch of strings was read with its brackets."""

    def explained(prompt: object) -> dict[str, Any]:
        body = {"api": "completions", "model": "auto", "prompt": prompt}
        response = httpx.post(f"{proxy.root}/v1/router/explain", json=body)
        assert response.status_code == 200
        result: dict[str, Any] = response.json()
        return result

    for ids in ([755, 10134, 2120, 1161], [[755, 10134], [9906, 1917]]):
        plan = explained(ids)
        assert plan["intent"]["confidence"] == 0.0
        assert plan["route"] == "coding"  # the default route
        assert plan["classifier"]["read"]["latest_chars"] == 0
    ask = "Write a haiku about the first snow of winter"
    assert explained([ask])["intent"] == explained(ask)["intent"]
    assert explained(["Hi", ask])["classifier"]["read"]["latest_chars"] == len(f"Hi\n{ask}")


def test_health_and_readiness(proxy: RunningRouter) -> None:
    """Ready once the start's recall of canary gates is over (milliseconds on an empty
    ledger, but after `/healthz` already answers)."""
    assert httpx.get(f"{proxy.root}/healthz").status_code == 200
    assert wait_until(lambda: httpx.get(f"{proxy.root}/readyz").json() == {"status": "ready"})


def test_metrics_count_requests(proxy: RunningRouter, client: openai.OpenAI) -> None:
    client.chat.completions.create(model="local", messages=[{"role": "user", "content": "ping"}])
    text = httpx.get(f"{proxy.root}/metrics").text
    assert "smf_router_requests_total" in text


def test_a_request_without_text_takes_the_default_route_even_with_min_confidence_0(
    backends: dict[str, Running], tmp_path: Path
) -> None:
    """With `classifier.min_confidence: 0` an image-only request (confidence 0, source
    `default`, placeholder label `writing`) went to the writing route, cloud first, instead
    of `default_route` (found in review). It is reported as intent `unknown`, not as the
    placeholder `writing`, in the header, the metrics and the ledger (found in review)."""
    settings = {"min_confidence": 0, "default_route": "coding"}
    cfg = config_for(backends, tmp_path, classifier=settings)
    with router(cfg) as running:
        client = openai.OpenAI(base_url=running.url, api_key="none", max_retries=0)
        image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
        raw = client.chat.completions.with_raw_response.create(
            model="auto", messages=[{"role": "user", "content": [image]}]
        )
        labels = {"intent": "unknown", "route": "coding", "backend": "local", "tier": "local"}
        series = {**labels, "outcome": "ok", "stream": "false"}
        counted = wait_until(  # the record, and its count, finish after the reply
            lambda: scrape(running.root).get("smf_router_requests_total", **series) == 1
        )
    assert raw.headers["x-smf-confidence"] == "0.000"
    assert raw.headers["x-smf-intent"] == "unknown"
    assert raw.headers["x-smf-route"] == "coding"
    assert raw.headers["x-smf-backend"] == "local"
    assert raw.parse().model == "local-model"
    assert counted
    with duckdb.connect() as con:
        rows = con.execute(
            "SELECT intent, intent_source, route, backend FROM read_parquet(?)",
            [f"{tmp_path}/ledger/**/*.parquet"],
        ).fetchall()
    assert rows == [("unknown", "default", "coding", "local")]


def _requests_by_outcome(proxy: RunningRouter, outcome: str) -> float:
    samples = scrape(proxy.root).samples
    return sum(
        value
        for (name, labels), value in samples.items()
        if name == "smf_router_requests_total" and ("outcome", outcome) in labels
    )


def test_a_backends_refusal_of_the_clients_request_counts_as_the_clients_error(
    backends: dict[str, Running], proxy: RunningRouter, client: openai.OpenAI
) -> None:
    """A backend's 400 passes through as the client's (README): the dashboards' failed
    requests by outcome showed it as the upstream's failure, beside real outages."""
    before = {o: _requests_by_outcome(proxy, o) for o in ("client_error", "upstream_error")}
    backends["local"].control("faults", {"fault": "bad_request"})
    try:
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(
                model="local", messages=[{"role": "user", "content": "x"}]
            )
    finally:
        backends["local"].control("faults", {"fault": None})
    after = {o: _requests_by_outcome(proxy, o) for o in ("client_error", "upstream_error")}
    assert (after["client_error"] - before["client_error"], after["upstream_error"]) == (
        1,
        before["upstream_error"],
    )


def test_a_refusal_after_a_fallback_counts_as_the_upstreams_error(
    backends: dict[str, Running], proxy: RunningRouter, client: openai.OpenAI
) -> None:
    """Local failed, and the cloud refused what local would have served (a parameter it
    does not take): the request failed because a backend was down, not for the client's
    mistake, and the dashboards showed no upstream error at all (found in review)."""
    before = {o: _requests_by_outcome(proxy, o) for o in ("client_error", "upstream_error")}
    backends["local"].control("faults", {"fault": "server_error"})
    backends["cloud"].control("faults", {"fault": "bad_request"})
    try:
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(
                model="coding", messages=[{"role": "user", "content": "x"}]
            )
    finally:
        for server in backends.values():
            server.control("faults", {"fault": None})
    after = {o: _requests_by_outcome(proxy, o) for o in ("client_error", "upstream_error")}
    assert (after["client_error"], after["upstream_error"] - before["upstream_error"]) == (
        before["client_error"],
        1,
    )
