#!/usr/bin/env python3
"""Capture exactly what a running vLLM server sends, byte for byte, as test fixtures.

Usage: .venv/bin/python scripts/vllm-cpu/capture.py BASE_URL OUT_DIR [MODEL]
(BASE_URL on 127.0.0.1, e.g. one started by scripts/vllm-cpu/serve.sh; MODEL default `tiny`).
Each case becomes OUT_DIR/<name>.json: the request, the status, every response header, and
the body as raw text (`body_raw`), plus the parsed JSON (`body`) or the SSE data lines
(`events`). The simulator and the router are checked against these files.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from capture_shapes import shape_cases  # beside this script, on its path

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
USER = [{"role": "user", "content": "What is the weather like in Paris today?"}]
LONG = [{"role": "user", "content": " ".join(["weather"] * 700)}]  # > 512 tokens
MID = [{"role": "user", "content": " ".join(["weather"] * 400)}]  # < 512, + max_tokens > 512
CHAT = "/v1/chat/completions"
NAMED = {"type": "function", "function": {"name": "get_weather"}}


def chat(model: str, **kw: Any) -> dict[str, Any]:
    return {"model": model, "messages": USER, "temperature": 0, **kw}


def cases(model: str) -> dict[str, tuple[str, str, dict[str, Any] | None]]:
    """name -> (method, path, body). Bodies use ignore_eos so lengths are exact."""
    exact = {"max_tokens": 5, "ignore_eos": True}
    stream = {"stream": True, "stream_options": {"include_usage": True}}
    return {
        "health": ("GET", "/health", None),
        "models": ("GET", "/v1/models", None),
        "version": ("GET", "/version", None),
        "chat": ("POST", "/v1/chat/completions", chat(model, **exact)),
        "chat_stream_usage": ("POST", "/v1/chat/completions", chat(model, **exact, **stream)),
        "chat_stream_plain": (
            "POST", "/v1/chat/completions", chat(model, **exact, stream=True),
        ),
        "chat_finish_length_window": (
            "POST", "/v1/chat/completions",
            {"model": model, "messages": MID, "max_tokens": 200, "ignore_eos": True},
        ),
        "chat_n2": (
            "POST", "/v1/chat/completions", chat(model, **exact, n=2, seed=1, temperature=1.0),
        ),
        "error_n2_greedy": ("POST", "/v1/chat/completions", chat(model, **exact, n=2)),
        "chat_extras": (
            "POST", "/v1/chat/completions",
            chat(model, **exact, chat_template_kwargs={"enable_thinking": False},
                 top_k=1, repetition_penalty=1.0, not_a_field="x"),
        ),
        "tool_named": (
            "POST", "/v1/chat/completions",
            chat(model, max_tokens=40, tools=[TOOL], tool_choice=NAMED),
        ),
        "tool_named_stream": (
            "POST", "/v1/chat/completions",
            chat(model, max_tokens=40, tools=[TOOL], tool_choice=NAMED, **stream),
        ),
        # chat log probabilities (guidance asks `logprobs: true, top_logprobs: 5`): whole,
        # streamed, tokens a long `stop` string holds back, a named call's tokens, the bound
        "chat_logprobs": (
            "POST", "/v1/chat/completions", chat(model, **exact, logprobs=True, top_logprobs=2),
        ),
        "chat_logprobs_stream": (
            "POST", "/v1/chat/completions",
            chat(model, **exact, logprobs=True, top_logprobs=2, **stream),
        ),
        "chat_logprobs_stop_stream": (
            "POST", "/v1/chat/completions",
            chat(model, **exact, logprobs=True, stop=["z" * 100], **stream),
        ),
        "tool_named_logprobs_stream": (
            "POST", "/v1/chat/completions",
            chat(model, max_tokens=40, tools=[TOOL], tool_choice=NAMED, logprobs=True, **stream),
        ),
        "chat_error_top_logprobs_too_many": (
            "POST", "/v1/chat/completions", chat(model, **exact, logprobs=True, top_logprobs=21),
        ),
        "completions": (
            "POST", "/v1/completions",
            {"model": model, "prompt": "Hello", "temperature": 0, **exact},
        ),
        "completions_stream": (
            "POST", "/v1/completions",
            {"model": model, "prompt": "Hello", "temperature": 0, **exact, **stream},
        ),
        # lm-eval's loglikelihood request (a multiple-choice question's choice), and the
        # other ways a completions request asks for log probabilities or sends its prompts
        "completions_echo_logprobs": (
            "POST", "/v1/completions",
            {"model": model, "prompt": "The capital of France is Paris", "max_tokens": 1,
             "logprobs": 1, "echo": True, "temperature": 0},
        ),
        "completions_echo_logprobs_stream": (
            "POST", "/v1/completions",
            {"model": model, "prompt": "Hello there", "temperature": 0, "logprobs": 1,
             "echo": True, **exact, **stream},
        ),
        "completions_logprobs": (
            "POST", "/v1/completions",
            {"model": model, "prompt": "Hello", "temperature": 0, "logprobs": 2, **exact},
        ),
        "completions_prompt_logprobs": (
            "POST", "/v1/completions",
            {"model": model, "prompt": "Hello there", "max_tokens": 1, "prompt_logprobs": 2},
        ),
        "completions_prompts": (
            "POST", "/v1/completions",
            {"model": model, "prompt": ["Hello", "Hello there"], "temperature": 0, **exact},
        ),
        "completions_token_ids": (
            "POST", "/v1/completions",
            {"model": model, "prompt": [[297, 12, 55], [40, 41]], "max_tokens": 1,
             "logprobs": 1, "echo": True, "temperature": 0},
        ),
        "completions_error_logprobs_too_many": (
            "POST", "/v1/completions",
            {"model": model, "prompt": "Hello", "max_tokens": 1, "logprobs": 30},
        ),
        "completions_error_no_prompt": ("POST", "/v1/completions", {"model": model, **exact}),
        "completions_error_no_prompts": (
            "POST", "/v1/completions", {"model": model, "prompt": [], **exact},
        ),
        "error_context_length": (
            "POST", "/v1/chat/completions", {"model": model, "messages": LONG, "max_tokens": 8},
        ),
        "error_context_length_stream": (
            "POST", "/v1/chat/completions",
            {"model": model, "messages": LONG, "max_tokens": 8, **stream},
        ),
        "error_max_tokens_too_large": ("POST", "/v1/chat/completions", chat(model, max_tokens=600)),
        "error_max_completion_tokens_too_large": (
            "POST", "/v1/chat/completions", chat(model, max_completion_tokens=600),
        ),
        "error_unknown_model": ("POST", "/v1/chat/completions", chat("nope", max_tokens=5)),
        "error_missing_messages": ("POST", "/v1/chat/completions", {"model": model}),
        "error_bad_temperature": (
            "POST", "/v1/chat/completions", chat(model, max_tokens=5, temperature=-1),
        ),
        "error_invalid_json": ("POST", "/v1/chat/completions", None),
        "responses": (
            "POST", "/v1/responses",
            {"model": model, "input": "Hello", "max_output_tokens": 5, "temperature": 0},
        ),
        "responses_stream": (
            "POST", "/v1/responses",
            {"model": model, "input": "Hello", "max_output_tokens": 5, "temperature": 0,
             "stream": True},
        ),
        "messages": (
            "POST", "/v1/messages",
            {"model": model, "max_tokens": 5, "messages": USER, "temperature": 0},
        ),
        "messages_stream": (
            "POST", "/v1/messages",
            {"model": model, "max_tokens": 5, "messages": USER, "temperature": 0, "stream": True},
        ),
        "messages_count_tokens": (
            "POST", "/v1/messages/count_tokens", {"model": model, "messages": USER},
        ),
        "messages_count_tokens_error_missing_messages": (
            "POST", "/v1/messages/count_tokens", {"model": model},
        ),
        "messages_error_unknown_model": (
            "POST", "/v1/messages", {"model": "nope", "max_tokens": 5, "messages": USER},
        ),
        "messages_error_context_length": (
            "POST", "/v1/messages", {"model": model, "max_tokens": 5, "messages": LONG},
        ),
        "messages_error_missing_max_tokens": (
            "POST", "/v1/messages", {"model": model, "messages": USER},
        ),
        "messages_error_invalid_json": ("POST", "/v1/messages", None),
        "messages_error_max_tokens_too_large": (
            "POST", "/v1/messages", {"model": model, "max_tokens": 32000, "messages": USER},
        ),
        "responses_error_max_output_tokens_too_large": (
            "POST", "/v1/responses", {"model": model, "input": "Hello", "max_output_tokens": 600},
        ),
        "responses_error_context_length": (
            "POST", "/v1/responses",
            {"model": model, "input": LONG[0]["content"], "max_output_tokens": 5},
        ),
        "tokenize": ("POST", "/tokenize", {"model": model, "messages": USER}),
        **structured_cases(model),
        **shape_cases(model),
    }  # fmt: skip


def structured_cases(model: str) -> dict[str, tuple[str, str, dict[str, Any] | None]]:
    """Structured output: vLLM's own `structured_outputs` field, the older `guided_json`
    (an unknown field to 0.32, ignored), and the malformed requests it refuses: in its
    request model (400), or in its engine, which a stream reports after its 200."""
    schema = TOOL["function"]["parameters"]
    rf = {"type": "json_schema", "json_schema": {"name": "answer", "schema": {"type": "nonsense"}}}
    no_schema = {"type": "json_schema", "json_schema": {"name": "answer"}}
    not_object = {"type": "json_schema", "json_schema": {"name": "answer", "schema": "string"}}
    two = {"json": schema, "choice": ["yes", "no"]}
    fmt = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    stream = {"stream": True, "stream_options": {"include_usage": True}}
    return {
        "structured_outputs_json": (
            "POST", CHAT, chat(model, max_tokens=5, structured_outputs={"json": schema}),
        ),
        "structured_outputs_choice": (
            "POST", CHAT, chat(model, max_tokens=5, structured_outputs={"choice": ["yes", "no"]}),
        ),
        "guided_json_ignored": (
            "POST", CHAT, chat(model, max_tokens=5, ignore_eos=True, guided_json=schema),
        ),
        "error_json_schema_without_schema": (
            "POST", CHAT, chat(model, max_tokens=5, response_format=no_schema),
        ),
        "error_json_schema_not_object": (
            "POST", CHAT, chat(model, max_tokens=5, response_format=not_object),
        ),
        "error_json_schema_invalid": ("POST", CHAT, chat(model, max_tokens=5, response_format=rf)),
        "error_json_schema_invalid_stream": (
            "POST", CHAT, chat(model, max_tokens=5, response_format=rf, **stream),
        ),
        "error_structured_outputs_bad_json": (
            "POST", CHAT, chat(model, max_tokens=5, structured_outputs={"json": "{not json"}),
        ),
        "error_structured_outputs_two": (
            "POST", CHAT, chat(model, max_tokens=5, structured_outputs=two),
        ),
        "error_structured_outputs_with_named_tool": (
            "POST", CHAT,
            chat(model, max_tokens=5, structured_outputs={"json": schema}, tools=[TOOL],
                 tool_choice=NAMED),
        ),
        "completions_error_structured_outputs_two": (
            "POST", "/v1/completions",
            {"model": model, "prompt": "Hello", "max_tokens": 5, "structured_outputs": two},
        ),
        "responses_error_json_schema_without_schema": (
            "POST", "/v1/responses",
            {"model": model, "input": "Hello", "max_output_tokens": 5,
             "text": {"format": {"type": "json_schema", "name": "answer"}}},
        ),
        # tools with tool_choice "auto" beside a constraint: the constraint holds the whole
        # output, so the hermes parser finds no call in it (OpenAI calls the tool first)
        "structured_with_tools_auto": (
            "POST", CHAT,
            chat(model, max_tokens=5, tools=[TOOL], tool_choice="auto", response_format=fmt),
        ),
        "structured_with_tools_auto_stream": (
            "POST", CHAT,
            chat(model, max_tokens=5, tools=[TOOL], tool_choice="auto", response_format=fmt,
                 **stream),
        ),
        "responses_structured_with_tools_auto": (
            "POST", "/v1/responses",
            {"model": model, "input": USER[0]["content"], "max_output_tokens": 5,
             "temperature": 0, "tools": [{"type": "function", **TOOL["function"]}],
             "tool_choice": "auto",
             "text": {"format": {"type": "json_schema", "name": "answer", "schema": schema}}},
        ),
        "responses_error_structured_outputs_and_format": (
            "POST", "/v1/responses",
            {"model": model, "input": "Hello", "max_output_tokens": 5,
             "structured_outputs": {"json": schema}, "text": {"format": {"type": "json_object"}}},
        ),
    }  # fmt: skip


def sse_events(raw: str) -> list[Any]:
    """The `data:` payloads of an SSE body, JSON-decoded where they are JSON."""
    events: list[Any] = []
    for line in raw.splitlines():
        if line.startswith("data:"):
            data = line[5:].strip()
            try:
                events.append(json.loads(data))
            except json.JSONDecodeError:
                events.append(data)
        elif line.startswith("event:"):
            events.append({"_event": line[6:].strip()})
    return events


def capture(
    client: httpx.Client, method: str, path: str, body: dict[str, Any] | None,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:  # fmt: skip
    headers = headers or {}
    content = b"{not json" if body is None and method == "POST" else None
    request = client.build_request(
        method, path, json=body,
        content=content,
        headers={**headers, "content-type": "application/json"} if content else headers,
    )  # fmt: skip
    response = client.send(request, stream=True)
    raw = b"".join(response.iter_raw()).decode("utf-8", "replace")
    response.close()
    out: dict[str, Any] = {
        "request": {"method": method, "path": path, "headers": headers, "body": body},
        "status": response.status_code,
        "headers": dict(response.headers.multi_items()),
        "body_raw": raw,
    }
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        out["events"] = sse_events(raw)
    else:
        with contextlib.suppress(json.JSONDecodeError):
            out["body"] = json.loads(raw) if raw else None
    return out


def saturate(base: str, model: str, total: int = 6, seqs: int = 2) -> str:
    """Send `total` long streamed requests at once and return /metrics while `seqs` run and
    the rest wait (`--max-num-seqs`). Whole replies kept vLLM's API server from answering
    /metrics until they were done, and the first scrape came late: the snapshot was empty.
    Streams leave it responsive, and a client connected beforehand polls at once."""
    body = {"model": model, "messages": USER, "max_tokens": 450, "ignore_eos": True}

    def stream() -> int:
        url, streamed = f"{base}/v1/chat/completions", body | {"stream": True}
        with httpx.stream("POST", url, json=streamed, timeout=300) as resp:
            for _ in resp.iter_lines():
                pass
            return resp.status_code

    with httpx.Client(base_url=base, timeout=30) as metrics, ThreadPoolExecutor(total) as pool:
        metrics.get("/metrics")
        futures = [pool.submit(stream) for _ in range(total)]
        snapshot = ""
        for _ in range(200):  # bounded: ~10 s
            time.sleep(0.05)
            text = metrics.get("/metrics").text
            if _gauge(text, "vllm:num_requests_waiting") >= total - seqs:
                snapshot = text
                break
        statuses = [f.result() for f in futures]
    assert statuses == [200] * total, statuses
    assert snapshot, "never saw the queue full: nothing to save"
    return snapshot


def _gauge(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def capture_metrics(client: httpx.Client) -> str:
    """The vLLM series the router reads, verbatim (HELP/TYPE lines included)."""
    wanted = (
        "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
        "vllm:prompt_tokens_total", "vllm:generation_tokens_total", "vllm:request_success_total",
    )  # fmt: skip
    text = client.get("/metrics").text
    keep = [line for line in text.splitlines() if any(w in line for w in wanted)]
    return "\n".join(keep) + "\n"


def save(out_dir: Path, name: str, result: dict[str, Any]) -> None:
    (out_dir / f"{name}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(f"{name}: {result['status']} {len(result['body_raw'])} bytes")


def main() -> None:
    if len(sys.argv) not in (3, 4):
        print("usage: capture.py BASE_URL OUT_DIR [MODEL] (see the docstring)", file=sys.stderr)
        raise SystemExit(2)
    base, out_dir = sys.argv[1], Path(sys.argv[2])
    model = sys.argv[3] if len(sys.argv) > 3 else "tiny"
    out_dir.mkdir(parents=True, exist_ok=True)
    with httpx.Client(base_url=base, timeout=120) as client:
        for name, (method, path, body) in cases(model).items():
            result = capture(client, method, path, body)
            save(out_dir, name, result)
        # vLLM takes the caller's X-Request-Id as the response id (`chatcmpl-<it>`).
        body = cases(model)["chat"][2]
        headers = {"x-request-id": "smf-capture-1"}
        save(out_dir, "chat_with_request_id", capture(client, "POST", CHAT, body, headers))
        (out_dir / "metrics.txt").write_text(capture_metrics(client))
        busy = saturate(base, model)
        keep = [ln for ln in busy.splitlines() if ln.startswith(("vllm:num_requests", "vllm:kv"))]
        (out_dir / "metrics_saturated.txt").write_text("\n".join(keep) + "\n")
        names = sorted(
            {ln.split("{")[0].split(" ")[0] for ln in client.get("/metrics").text.splitlines()
             if ln.startswith("vllm:")}
        )  # fmt: skip
        (out_dir / "metrics_names.txt").write_text("\n".join(names) + "\n")


if __name__ == "__main__":
    main()
