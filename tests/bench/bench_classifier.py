"""Benchmark: classifier latency per request (p50/p99, feature extraction included) for
requests from 10 tokens to 200k tokens, and import + model load time in a fresh process.
Run: ``.venv/bin/python tests/bench/bench_classifier.py [--n 2000]``; paste the table into
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Any

from classifier import classify
from classifier.corpus import load

LOAD_SNIPPET = (
    "import time; t = time.perf_counter(); from classifier import classify; "
    "classify({'messages': [{'role': 'user', 'content': 'hi'}]}); "
    "print(time.perf_counter() - t)"
)


def chat(text: str) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": "user", "content": text}]}


def agent_request(turns: int, words_per_turn: int, agent: int = 0) -> dict[str, Any]:
    """A coding agent's request: long system prompt, 20 tool schemas, a tool loop. Requests
    with different `agent` numbers differ in their system prompt and first message (other
    conversations); the same number is the same conversation's next turn."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": f"tool_{i}",
                "description": "Reads or edits files in the workspace. " * 5,
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            },
        }
        for i in range(20)
    ]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": f"You are careful coding agent {agent}. " * 400},
        {"role": "user", "content": f"Fix the failing test {agent} in tests/test_api.py and why."},
    ]
    for i in range(turns):
        messages.append({"role": "assistant", "content": None, "tool_calls": [{"id": str(i)}]})
        messages.append(
            {"role": "tool", "tool_call_id": str(i), "content": "line " * words_per_turn}
        )
    messages.append({"role": "user", "content": "Now also update the docs."})
    return {"model": "auto", "messages": messages, "tools": tools}


def tool_loop(rounds: int) -> dict[str, Any]:
    """An agent deep in its tool loop: the ask, then `rounds` calls and their results, so the
    latest user message is 2 x `rounds` messages back (found by role alone, up to
    `classifier.message.SCAN_ROLES`; past that the first user message decides)."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful coding agent. " * 100},
        {"role": "user", "content": "Rename every .txt file in data/ to .md and fix the tests."},
    ]
    for i in range(rounds):
        call = {"id": str(i), "type": "function", "function": {"name": "sh", "arguments": "{}"}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": str(i), "content": "ok"})
    return {"model": "auto", "messages": messages, "tools": [{"type": "function"}]}


CHINESE = (
    "请帮我写一篇关于人工智能在医疗领域应用的文章。",
    "文章需要包括历史背景、当前的技术进展、面临的挑战以及未来的发展方向。",
    "每个部分至少三段，语言要通俗易懂，适合普通读者阅读。",
    "请在结尾总结全文的要点，并提出你自己的看法。",
    "如果可能，请引用近五年的研究成果，并说明它们对临床实践的影响。",
)
ENGLISH = (
    "Please write an article about how artificial intelligence is used in medicine.",
    "It should cover the history, current technical progress, challenges and the future.",
    "Each part needs at least three paragraphs, in plain language for general readers.",
    "End with a summary of the main points and your own view on where this is going.",
    "If you can, cite research from the last five years and its effect on clinical work.",
)


def long_messages(sentences: tuple[str, ...], chars: int) -> list[dict[str, Any]]:
    """50 messages of about `chars` characters: the sentences in rotating orders, so the
    token caches meet text as varied as a real conversation's, not one string again."""
    out = []
    for k in range(50):
        order = [sentences[(i * (k % 4 + 1) + k) % len(sentences)] for i in range(400)]
        out.append(chat(" ".join(order)[:chars]))
    return out


def workloads() -> dict[str, list[dict[str, Any]]]:
    texts = [r.text for r in load("validation")]
    return {
        "10 tokens": [chat("Write a haiku about the first snow today")],
        "~100 tokens": [chat(t) for t in texts if 300 < len(t) < 700][:50],
        "held-out mix": [chat(t) for t in texts],
        "English, 2,000 characters": long_messages(ENGLISH, 2000),
        "Chinese, 1,500 characters": long_messages(CHINESE, 1500),
        "agent, 2k-token system + 20 tools": [agent_request(10, 100)],
        "agent, first turn of 1,000 conversations": [
            agent_request(10, 100, agent=n) for n in range(1000)
        ],
        "200k-token conversation": [agent_request(400, 500)],
        "agent, the ask 2,000 messages back (1,000 tool rounds)": [tool_loop(1000)],
        "agent, the ask 6,000 messages back (past the 4,096 searched)": [tool_loop(3000)],
    }


def timings(bodies: list[dict[str, Any]], n: int) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds per call: on a shared machine, wall time also counts the
    time slices other processes took, CPU time only our own work."""
    wall, cpu = [], []
    for i in range(n):
        b = bodies[i % len(bodies)]
        c, t = time.thread_time_ns(), time.perf_counter_ns()
        classify(b)
        wall.append((time.perf_counter_ns() - t) / 1e6)
        cpu.append((time.thread_time_ns() - c) / 1e6)
    return wall, cpu


def pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(int(q * len(xs)), len(xs) - 1)]


def load_time(runs: int = 5) -> float:
    out = []
    for _ in range(runs):
        res = subprocess.run(
            [sys.executable, "-c", LOAD_SNIPPET], capture_output=True, text=True, check=True
        )
        out.append(float(res.stdout.strip()))
    return statistics.median(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the target says
    classify(chat("warm up"))
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}"
    )
    print("| request | wall p50 ms | wall p99 ms | CPU p50 ms | CPU p99 ms |")
    print("|---|---|---|---|---|")
    all_wall: list[float] = []
    all_cpu: list[float] = []
    for name, bodies in [*workloads().items(), ("all of the above", [])]:
        wall, cpu = timings(bodies, args.n) if bodies else (all_wall, all_cpu)
        if bodies:
            all_wall += wall
            all_cpu += cpu
        print(
            f"| {name} | {pct(wall, 0.5):.3f} | {pct(wall, 0.99):.3f} "
            f"| {pct(cpu, 0.5):.3f} | {pct(cpu, 0.99):.3f} |"
        )
    print(f"\nimport + load + first classify, fresh process (median of 5): {load_time():.3f} s")


if __name__ == "__main__":
    main()
