"""Proxy overhead, side by side: the upstream directly, through smf-router, through LiteLLM's proxy.

    make bench-litellm   # LiteLLM's proxy in ~/.cache/smf-bench-litellm, once
    .venv/bin/python tests/bench/bench_proxy.py [--seconds 8] [--litellm PATH/TO/litellm]
        [--api responses [--translate]] [--modes stream] [--concurrency 1,16]

The upstream is the simulator with zero latency (a fast fake vLLM). Each target gets the
same load from `wrk` (Debian package `wrk`; one C thread, so the load generator is not the
limit) at concurrency 1, 16, 64 and 256, plain and streamed (20 chunks). Reported: latency
p50/p99, requests/s, the proxy process's CPU time per request (from /proc, user + system),
and the added time to the first content chunk, measured one stream at a time on a bare
socket (wrk cannot see inside a response). Bounded in time: `--seconds` per cell. The
router's resident memory is read at ready, idle a few ledger flushes later, after
`--memory-requests` mixed requests, after the cells and after a report (`proxy_memory`).

`--api responses` sends the same prompt to `/v1/responses` (`max_output_tokens` 20: 20 text
deltas when streamed) and declares the backend a Responses server, so the router passes the
stream through; with `--translate` the backend speaks chat only and the router translates
(Codex against vLLM's chat API). `--modes` and `--concurrency` pick the cells.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import proxy_memory
import yaml

from classifier.intent import INTENTS

HERE = Path(__file__).resolve()
REPO = HERE.parents[2]
BIN = Path(sys.executable).parent
CONCURRENCY = (1, 16, 64, 256)
PATHS = {"chat": "/chat/completions", "responses": "/responses"}
FIRST_OUTPUT = {"chat": b'"content"', "responses": b"response.output_text.delta"}
PROMPT = "Write a Python function that adds two numbers."
TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its children that were waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / TICKS


def wait_up(url: str, deadline_s: float = 60) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.02)
    raise TimeoutError(url)


def body(model: str, stream: bool, api: str = "chat") -> bytes:
    if api == "responses":
        asked = {"input": PROMPT, "max_output_tokens": 20}
    else:
        asked = {"messages": [{"role": "user", "content": PROMPT}], "max_tokens": 20}
    return json.dumps({"model": model, **asked, "ignore_eos": True, "stream": stream}).encode()


@dataclass
class WrkResult:
    p50_ms: float
    p99_ms: float
    rps: float
    requests: int
    errors: int


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([0-9.]+)(us|ms|s)", text).groups()  # type: ignore[union-attr]
    return float(value) * _UNITS[unit]


def wrk(
    url: str, model: str, stream: bool, concurrency: int, seconds: int, tmp: Path, api: str = "chat"
) -> WrkResult:
    """One cell driven by wrk (C, one thread): the load generator must not be the limit."""
    script = tmp / f"{model}-{stream}-{api}.lua"
    script.write_text(
        'wrk.method = "POST"\n'
        'wrk.headers["Content-Type"] = "application/json"\n'
        f"wrk.body = {json.dumps(body(model, stream, api).decode())}\n"
    )
    out = subprocess.run(
        [
            "wrk",
            "-t1",
            f"-c{concurrency}",
            f"-d{seconds}s",
            "--timeout",
            "60s",
            "--latency",
            "-s",
            str(script),
            url + PATHS[api],
        ],
        capture_output=True,
        text=True,
        timeout=seconds + 30,
        check=True,
    ).stdout
    pcts = dict(re.findall(r"^\s+(50|99)%\s+(\S+)\s*$", out, re.M))
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", out))
    errors += sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))  # type: ignore[union-attr]
    nan = float("nan")  # no percentiles when no request finished in the cell
    p50, p99 = (_ms(pcts[q]) if q in pcts else nan for q in ("50", "99"))
    return WrkResult(p50, p99, rps, requests, errors)


def ttft(url: str, model: str, total: int, api: str = "chat") -> list[float]:
    """Time to the first content chunk of streamed requests, one at a time on one keep-alive
    connection (wrk cannot see inside a response). A bare socket, because httpx's own
    per-request cost (~2.5 ms here) would swamp the proxies' difference."""
    parts = urlsplit(url)
    payload = body(model, True, api)
    request = (
        f"POST {parts.path}{PATHS[api]} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
    ).encode() + payload
    out: list[float] = []
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(total):
            began = time.perf_counter()
            sock.sendall(request)
            seen = b""
            first = None
            while not seen.endswith(b"0\r\n\r\n"):  # the chunked body's end
                piece = sock.recv(65536)
                if not piece:
                    raise ConnectionError("closed mid-response")
                seen += piece
                if first is None and FIRST_OUTPUT[api] in seen:
                    first = time.perf_counter() - began
            if first is not None:
                out.append(first)
    return out


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def describe(r: dict[str, Any]) -> str:
    return (
        f"{r['mode']:6} c={r['c']:<3} {r['target']:13} p50 {r['p50_ms']:7.2f} ms"
        f"  p99 {r['p99_ms']:7.2f} ms  added p50 {r['added_p50_ms']:6.2f} ms"
        f"  added ttft {r['added_ttft_p50_ms']:6.2f} ms  {r['rps']:7.0f} req/s"
        f"  cpu {r['cpu_ms_per_req']:.2f} ms/req  errors {r['errors']}"
    )


def start(argv: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
        start_new_session=True,
    )


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def start_upstream() -> tuple[subprocess.Popen[bytes], str]:
    """The zero-latency vLLM simulator the benches measure against, up; and its /v1 URL."""
    port = free_port()
    argv = [str(BIN / "smf-router"), "simulate", "--profile", "vllm", "--port", str(port),
            "--model", "fake-model", "--max-num-seqs", "1024"]  # fmt: skip
    process = start(argv)
    try:
        wait_up(f"http://127.0.0.1:{port}/health")
    except BaseException:
        stop(process)
        raise
    return process, f"http://127.0.0.1:{port}/v1"


def write_router_config(upstream: str, tmp: Path, apis: list[str] | None = None) -> Path:
    """A router config sending every route to `upstream`, its ledger under `tmp`; `apis`:
    what the backend speaks (None: its kind's default, chat and completions)."""
    backend = {"name": "local", "tier": "local", "base_url": upstream, "model": "fake-model"}
    config = {
        "backends": [{**backend, **({"apis": apis} if apis else {})}],
        "routes": {intent: ["local"] for intent in INTENTS},
        "ledger": {"path": str(tmp / "ledger")},
        "server": {"log_level": "warning"},
    }
    path = tmp / "router.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def backend_apis(api: str, translate: bool) -> list[str] | None:
    """What the backend is said to speak: Responses too, for the router to pass a Responses
    stream through; else None, its kind's default (chat and completions): translated over chat."""
    return ["chat", "completions", "responses"] if api == "responses" and not translate else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=8, help="wrk duration per cell (bounded)")
    parser.add_argument("--ttft-requests", type=int, default=200, help="streams for TTFT at c=1")
    parser.add_argument(
        "--litellm", default=str(Path.home() / ".cache/smf-bench-litellm/bin/litellm")
    )
    parser.add_argument("--api", choices=sorted(PATHS), default="chat", help="the API asked")
    parser.add_argument("--translate", action="store_true", help="a chat-only backend")
    parser.add_argument("--modes", default="plain,stream", help="plain and/or stream")
    parser.add_argument("--concurrency", default=",".join(map(str, CONCURRENCY)))
    parser.add_argument(
        "--memory-requests", type=int, default=200, help="mixed requests before the idle RSS"
    )
    args = parser.parse_args()
    api = args.api
    apis = backend_apis(api, args.translate)
    modes = args.modes.split(",")
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    if shutil.which("wrk") is None:
        raise SystemExit("wrk not found: apt-get install wrk")
    # byte-compiled as an installed package would be (editable installs are not)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "router", "classifier", "evals"],
        cwd=REPO,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    tmp = Path(tempfile.mkdtemp(prefix="bench-proxy-"))
    procs: list[subprocess.Popen[bytes]] = []
    try:
        simulator, upstream = start_upstream()
        procs.append(simulator)

        router_port = free_port()
        config_path = write_router_config(upstream, tmp, apis)
        began = time.perf_counter()
        router = start(
            [
                str(BIN / "smf-router"),
                "serve",
                "--config",
                str(config_path),
                "--port",
                str(router_port),
            ]
        )
        procs.append(router)
        wait_up(f"http://127.0.0.1:{router_port}/readyz")
        ready_s = time.perf_counter() - began
        root = f"http://127.0.0.1:{router_port}"
        memory = [proxy_memory.read(router.pid, "at ready")]
        print(f"router: start to ready {ready_s:.2f} s")
        print(f"api: {api}{' over chat (translated)' if args.translate else ''}")
        proxy_memory.wait_flushes(root)
        memory.append(proxy_memory.read(router.pid, "idle, 3 flushes later"))
        memory.append(proxy_memory.after_requests(root, api, router.pid, args.memory_requests))
        for reading in memory:
            print(reading, flush=True)

        targets: dict[str, tuple[str, str, int | None]] = {
            "direct": (upstream, "fake-model", None),
            "smf-router": (f"http://127.0.0.1:{router_port}/v1", "auto", router.pid),
        }
        if Path(args.litellm).exists():
            litellm_port = free_port()
            (tmp / "litellm.yaml").write_text(
                yaml.safe_dump(
                    {
                        "model_list": [
                            {
                                "model_name": "fake-model",
                                "litellm_params": {
                                    "model": "openai/fake-model",
                                    "api_base": upstream,
                                    "api_key": "x",
                                },
                            }
                        ],
                        "litellm_settings": {"drop_params": True, "telemetry": False},
                    }
                )
            )
            litellm = start(
                [
                    args.litellm,
                    "--config",
                    str(tmp / "litellm.yaml"),
                    "--port",
                    str(litellm_port),
                    "--num_workers",
                    "1",
                ],
                env={
                    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                    # no auth on either proxy: the comparison is of routing overhead
                    "LITELLM_DANGEROUSLY_PERMIT_WEAK_OR_UNSET_MASTER_KEY": "true",
                },
            )
            procs.append(litellm)
            wait_up(f"http://127.0.0.1:{litellm_port}/health/liveliness", 180)
            targets["litellm-proxy"] = (
                f"http://127.0.0.1:{litellm_port}/v1",
                "fake-model",
                litellm.pid,
            )
        else:
            print(f"(LiteLLM proxy not found at {args.litellm}: `make bench-litellm`; skipping it)")

        rows = []
        ttft_p50: dict[str, float] = {}
        for name, (url, model, _) in targets.items():
            ttft(url, model, 10, api)  # warm up
            ttft_p50[name] = pct(ttft(url, model, args.ttft_requests, api), 0.5) * 1000
        for stream in [mode == "stream" for mode in ("plain", "stream") if mode in modes]:
            for concurrency in concurrencies:
                base: WrkResult | None = None
                for name, (url, model, pid) in targets.items():
                    wrk(url, model, stream, min(concurrency, 8), 1, tmp, api)  # warm up
                    cpu0 = cpu_seconds(pid) if pid else 0.0
                    result = wrk(url, model, stream, concurrency, args.seconds, tmp, api)
                    cpu = (cpu_seconds(pid) - cpu0) / max(1, result.requests) if pid else None
                    base = base or result
                    rows.append(
                        {
                            "api": api + (" over chat" if args.translate else ""),
                            "mode": "stream" if stream else "plain",
                            "c": concurrency,
                            "target": name,
                            "p50_ms": result.p50_ms,
                            "p99_ms": result.p99_ms,
                            "added_p50_ms": result.p50_ms - base.p50_ms,
                            "added_ttft_p50_ms": ttft_p50[name] - ttft_p50["direct"]
                            if stream and concurrency == 1
                            else float("nan"),
                            "rps": result.rps,
                            "cpu_ms_per_req": cpu * 1000 if cpu is not None else float("nan"),
                            "errors": result.errors,
                        }
                    )
                    print(describe(rows[-1]), flush=True)
        time.sleep(proxy_memory.SETTLE_S)
        memory.append(proxy_memory.read(router.pid, "after the load cells"))
        memory.append(proxy_memory.after_report(root, router.pid))
        for reading in memory[-2:]:
            print(reading)
        rss_mb = {reading.stage: round(reading.rss_mb, 1) for reading in memory}
        anon_mb = {reading.stage: round(reading.anon_mb, 1) for reading in memory}
        (REPO / "test-artifacts").mkdir(exist_ok=True)
        (REPO / "test-artifacts" / "bench_proxy.json").write_text(
            json.dumps(
                {"ready_s": ready_s, "rss_mb": rss_mb, "anon_mb": anon_mb, "rows": rows}, indent=1
            )
        )
    finally:
        for process in procs:
            stop(process)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
