"""vLLM's own surface: health, models, metrics names, error bodies, capacity and queueing."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable

import httpx
import pytest

from router.simulator import SimThread

MODEL = "tiny"
HTTP = httpx.Client(trust_env=False)


def chat(sim: SimThread, text: str = "Hi", **extra: object) -> httpx.Response:
    payload = {"model": MODEL, "messages": [{"role": "user", "content": text}], **extra}
    return HTTP.post(sim.url + "/v1/chat/completions", json=payload, timeout=30)


def gauges(sim: SimThread) -> dict[str, float]:
    out = {}
    for line in HTTP.get(sim.url + "/metrics").text.splitlines():
        if line.startswith("vllm:") and "finished_reason" not in line:
            name, value = line.split("{")[0], line.rsplit(" ", 1)[1]
            out[name] = float(value)
    return out


def test_health_is_200_with_an_empty_body(vllm: SimThread) -> None:
    resp = HTTP.get(vllm.url + "/health")
    assert (resp.status_code, resp.content) == (200, b"")


def test_head_and_wrong_methods_are_answered_as_fastapi_does(vllm: SimThread) -> None:
    """A HEAD got the 405's body after its headers, which a keep-alive client then read as
    the start of its next response (found in review). vLLM (FastAPI) sends the length of
    the body it would send, no body, and `allow` on a 405."""
    with httpx.Client(trust_env=False, timeout=5) as client:  # one keep-alive connection
        head = client.head(vllm.url + "/health")
        assert (head.status_code, head.headers["allow"], head.content) == (405, "GET", b"")
        assert head.headers["content-length"] == str(len(b'{"detail":"Method Not Allowed"}'))
        health = client.get(vllm.url + "/health")  # the next response on that connection
        assert (health.status_code, health.content) == (200, b"")
        wrong = client.get(vllm.url + "/v1/chat/completions")
        assert (wrong.status_code, wrong.headers["allow"]) == (405, "POST")
        assert wrong.json() == {"detail": "Method Not Allowed"}
        missing = client.head(vllm.url + "/v1/nothing-here")
        assert (missing.status_code, missing.content) == (404, b"")
        assert "allow" not in missing.headers
        assert client.get(vllm.url + "/version").json() == {"version": "0.32.0"}


def test_models_card_carries_max_model_len(vllm: SimThread) -> None:
    card = HTTP.get(vllm.url + "/v1/models").json()["data"][0]
    assert (card["id"], card["owned_by"], card["max_model_len"]) == (MODEL, "vllm", 512)


def test_metrics_names_types_and_counters(vllm: SimThread) -> None:
    chat(vllm, max_tokens=5)
    text = HTTP.get(vllm.url + "/metrics").text
    assert "# TYPE vllm:num_requests_running gauge" in text
    assert "# TYPE vllm:prompt_tokens_total counter" in text
    values = gauges(vllm)
    for name in (
        "vllm:num_requests_running",
        "vllm:num_requests_waiting",
        "vllm:kv_cache_usage_perc",
    ):
        assert values[name] == 0.0
    assert values["vllm:generation_tokens_total"] == 5.0
    assert values["vllm:prompt_tokens_total"] > 0
    assert (
        'vllm:request_success_total{engine="0",finished_reason="length",model_name="tiny"} 1.0'
        in text
    )


def test_context_length_is_a_400_even_when_streaming(vllm: SimThread) -> None:
    resp = chat(vllm, " ".join(["weather"] * 700), stream=True)
    assert resp.status_code == 400
    assert resp.json()["error"]["message"].startswith(
        "This model's maximum context length is 512 tokens. However, your prompt contains "
        "at least 513 input tokens"
    )


def test_prompt_plus_max_tokens_over_the_window_is_cut_not_refused(vllm: SimThread) -> None:
    resp = chat(vllm, " ".join(["weather"] * 400), max_tokens=200, ignore_eos=True)
    assert resp.status_code == 200
    body = resp.json()
    assert body["choices"][0]["finish_reason"] == "length"
    assert body["usage"]["total_tokens"] == 512


def test_max_tokens_alone_over_the_window_names_max_tokens(vllm: SimThread) -> None:
    error = chat(vllm, max_tokens=600).json()["error"]
    assert (error["param"], error["code"]) == ("max_tokens", 400)


@pytest.mark.parametrize(
    ("payload", "param", "kind"),
    [
        ({"model": MODEL}, "body.messages", "Bad Request"),  # fails the request model
        (
            {"model": MODEL, "messages": [{"role": "user", "content": "x"}], "temperature": -1},
            "temperature",
            "BadRequestError",  # fails a sampling-parameter check
        ),
    ],
)
def test_invalid_bodies_are_bad_requests(
    vllm: SimThread, payload: dict[str, object], param: str, kind: str
) -> None:
    resp = HTTP.post(vllm.url + "/v1/chat/completions", json=payload)
    assert resp.status_code == 400
    assert resp.json()["error"]["param"] == param
    assert resp.json()["error"]["type"] == kind


def test_unknown_model_is_404_not_found_error(vllm: SimThread) -> None:
    resp = HTTP.post(
        vllm.url + "/v1/chat/completions",
        json={"model": "nope", "messages": [{"role": "user", "content": "x"}]},
    )
    assert resp.status_code == 404
    assert resp.json()["error"]["type"] == "NotFoundError"
    assert resp.json()["error"]["code"] == 404


def test_invalid_json_and_unknown_paths(vllm: SimThread) -> None:
    bad = HTTP.post(vllm.url + "/v1/chat/completions", content=b"{nope")
    assert bad.status_code == 400
    assert HTTP.get(vllm.url + "/v1/nothing").json() == {"detail": "Not Found"}


def test_api_key_is_enforced_like_vllm(start_sim: Callable[..., SimThread]) -> None:
    sim = start_sim(api_key="secret")
    payload = {"model": MODEL, "messages": [{"role": "user", "content": "x"}]}
    denied = HTTP.post(sim.url + "/v1/chat/completions", json=payload)
    assert (denied.status_code, denied.json()) == (401, {"error": "Unauthorized"})
    allowed = HTTP.post(
        sim.url + "/v1/chat/completions", json=payload, headers={"authorization": "Bearer secret"}
    )
    assert allowed.status_code == 200


def wait_for(check: Callable[[], bool], seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_capacity_runs_max_num_seqs_and_queues_the_rest(
    start_sim: Callable[..., SimThread],
) -> None:
    sim = start_sim(max_num_seqs=2, tokens_per_s=20)
    statuses: list[int] = []
    workers = [
        threading.Thread(
            target=lambda: statuses.append(chat(sim, max_tokens=20, ignore_eos=True).status_code)
        )
        for _ in range(6)
    ]
    for worker in workers:
        worker.start()
    seen = wait_for(lambda: gauges(sim)["vllm:num_requests_waiting"] == 4.0)
    values = gauges(sim)
    for worker in workers:
        worker.join(timeout=60)
    assert seen
    assert values["vllm:num_requests_running"] == 2.0
    assert 0 < values["vllm:kv_cache_usage_perc"] <= 1
    assert statuses == [200] * 6
    assert gauges(sim)["vllm:num_requests_running"] == 0.0


def test_max_queued_refuses_with_503(start_sim: Callable[..., SimThread]) -> None:
    sim = start_sim(max_num_seqs=1, max_queued=1, ttft_s=30)
    client = httpx.Client(timeout=httpx.Timeout(5, read=0.3))
    payload = {"model": MODEL, "messages": [{"role": "user", "content": "x"}]}
    occupy = [
        threading.Thread(target=lambda: _ignore_timeout(client, sim, payload)) for _ in range(2)
    ]
    for thread in occupy:
        thread.start()
    assert wait_for(lambda: gauges(sim)["vllm:num_requests_waiting"] == 1.0)
    refused = HTTP.post(sim.url + "/v1/chat/completions", json=payload)
    assert refused.status_code == 503
    assert refused.json()["error"]["type"] == "Service Unavailable"  # as vLLM 0.32 says it
    for thread in occupy:
        thread.join(timeout=10)
    client.close()
    assert wait_for(lambda: gauges(sim)["vllm:num_requests_waiting"] == 0.0)


def _ignore_timeout(client: httpx.Client, sim: SimThread, payload: dict[str, object]) -> None:
    with contextlib.suppress(httpx.ReadTimeout):
        client.post(sim.url + "/v1/chat/completions", json=payload)


def test_a_body_nested_too_deep_is_invalid_json(vllm: SimThread) -> None:
    """A body nested past both parsers' depth: Python's RecursionError, read for where the
    body went wrong, was a 500; it is vLLM's 400 for a body that is not JSON."""
    deep = HTTP.post(vllm.url + "/v1/chat/completions", content=b'{"a": ' + b"[" * 5000)
    assert deep.status_code == 400
    assert "'type': 'json_invalid'" in deep.json()["error"]["message"]
