"""Machine instructions per request, counted by valgrind: a measure this shared VM cannot blur.

    .venv/bin/python tests/bench/bench_instructions.py [--requests 400] [--cells plain:16]
        [--api responses [--translate]]

CPU time per request moves by ±15 % between identical runs here (other tenants, two cores
shared by the load generator, the simulator and the router), so a change worth less than that
cannot be told apart with `bench_proxy.py`. Instruction counts are exact and repeatable: the
router runs under `valgrind --tool=callgrind` (Debian package `valgrind`), its counters are
zeroed before and dumped after exactly N requests (`callgrind_control`), and the count of an
idle interval of the same length (pollers, timers) is subtracted; the busy interval ends
with a pause in which the ledger writes the requests' rows. The same for
`classify()` alone, and for uvicorn answering an empty ASGI app (the HTTP server's share).
`--api responses` asks the router's cells on `/v1/responses`, passed through or, with
`--translate`, translated over chat (as `bench_proxy.py` does).

Under valgrind everything runs ~50x slower, so timers fire relatively more often; the idle
subtraction removes that. Bounded: a few hundred requests per cell, minutes in all.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_proxy import (
    BIN,
    PATHS,
    backend_apis,
    body,
    free_port,
    start,
    start_upstream,
    stop,
    wait_up,
    write_router_config,
)

SETTLE_S = 5.0  # under valgrind the ledger's 0.2 s flush takes seconds
EMPTY_APP = """
import sys
import uvicorn
from router.default_config import demo
from router.serve import uvicorn_config

async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    answer = b'{"ok": true}'
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(answer))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": answer})

config = uvicorn_config(app, demo("http://x", "http://x"), "127.0.0.1", int(sys.argv[1]))
config.lifespan = "off"
uvicorn.Server(config).run()
"""
CLASSIFY = """
import functools, gc, json, sys
from classifier import classify
body = json.loads(sys.argv[1])
n = int(sys.argv[2])
classify(body)
gc.collect()
functools.reduce(lambda _, __: classify(body), range(n), None)
"""


async def _client(port: int, payload: bytes, total: int, concurrency: int, path: str) -> int:
    """Send exactly `total` requests over `concurrency` keep-alive sockets; count non-200s."""
    request = (
        b"POST /v1%s HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        b"content-length: %d\r\n\r\n%s" % (path.encode(), len(payload), payload)
    )
    failures = 0

    async def one_socket(count: int) -> None:
        nonlocal failures
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(count):
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            failures += not head.startswith(b"HTTP/1.1 200")
            length = [ln for ln in head.lower().split(b"\r\n") if ln.startswith(b"content-length")]
            if length:
                await reader.readexactly(int(length[0].split(b":")[1]))
                continue
            while size := int((await reader.readuntil(b"\r\n")).strip(), 16):  # chunked
                await reader.readexactly(size + 2)
            await reader.readexactly(2)
        writer.close()

    await asyncio.gather(*(one_socket(total // concurrency) for _ in range(concurrency)))
    return failures


def send(port: int, payload: bytes, total: int, concurrency: int, api: str = "chat") -> None:
    asked = _client(port, payload, total, concurrency, PATHS[api])
    failures = asyncio.run(asyncio.wait_for(asked, 600))
    if failures:
        raise SystemExit(f"{failures} of {total} requests failed")


class Counted:
    """A process under callgrind whose counters can be zeroed and read at will."""

    def __init__(self, argv: list[str], out: Path) -> None:
        self.out = out
        self.process = start(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}/cg.%p",
                *argv,
            ],
            env={"PYTHONHASHSEED": "0"},
        )

    def _control(self, flag: str) -> None:
        subprocess.run(
            ["callgrind_control", flag, str(self.process.pid)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def zero(self) -> None:
        self._control("-z")

    def dump(self) -> int:
        """Instructions since the last zero (all threads)."""
        before = set(self.out.glob("cg.*"))
        self._control("-d")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for path in set(self.out.glob("cg.*")) - before:
                for line in path.read_text(errors="replace").splitlines():
                    if line.startswith("summary:"):
                        return int(line.split()[1])
            time.sleep(0.2)
        raise TimeoutError("callgrind wrote no dump")

    def per_request(
        self, port: int, payload: bytes, total: int, concurrency: int, api: str = "chat"
    ) -> int:
        """Instructions per request: a busy stretch (the requests, then a settling pause in
        which the ledger flushes what they left), less an idle stretch of the same length."""
        self.zero()
        began = time.monotonic()
        send(port, payload, total, concurrency, api)
        time.sleep(SETTLE_S)
        took = time.monotonic() - began
        busy = self.dump()
        time.sleep(SETTLE_S)
        self.zero()
        time.sleep(took)
        idle = self.dump()
        return (busy - idle) // total


def classify_instructions(payload: bytes, calls: int) -> int:
    """`classify()` alone: only what runs inside `functools.reduce` (its C function is the
    toggle) is counted, not the interpreter's start."""
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--toggle-collect=functools_reduce",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            CLASSIFY,
            payload.decode(),
            str(calls),
        ],
        env={**os.environ, "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    collected = [ln for ln in done.stderr.splitlines() if "Collected" in ln]
    return int(collected[-1].split()[-1]) // calls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=400, help="requests per cell")
    parser.add_argument(
        "--cells",
        default="plain:1,plain:16,stream:1,stream:16,uvicorn,classify",
        help="which cells, comma-separated (e.g. plain:16 to bisect one number)",
    )
    parser.add_argument("--api", choices=sorted(PATHS), default="chat", help="the router's cells")
    parser.add_argument("--translate", action="store_true", help="a chat-only backend")
    args = parser.parse_args()
    api = args.api
    apis = backend_apis(api, args.translate)
    asked = "" if api == "chat" else f", {api}{' over chat' if args.translate else ''}"
    cells = set(args.cells.split(","))
    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        raise SystemExit("valgrind not found: apt-get install valgrind")
    tmp = Path(tempfile.mkdtemp(prefix="bench-instructions-"))
    procs: list[subprocess.Popen[bytes]] = []
    rows: list[tuple[str, str, int]] = []
    try:
        simulator, upstream = start_upstream()
        procs.append(simulator)
        config_path = write_router_config(upstream, tmp, apis)
        port = free_port()
        argv = [str(BIN / "smf-router"), "serve", "--config", str(config_path)]
        router = Counted([*argv, "--port", str(port)], tmp)
        procs.append(router.process)
        wait_up(f"http://127.0.0.1:{port}/readyz", deadline_s=300)
        send(port, body("auto", False), 200, 4)  # warm: caches, pools, lazy imports
        for stream in (False, True):
            for concurrency in (1, 16):
                mode = "stream" if stream else "plain"
                if f"{mode}:{concurrency}" not in cells:
                    continue
                payload = body("auto", stream, api)
                n = router.per_request(port, payload, args.requests, concurrency, api)
                rows.append((mode, f"router c={concurrency}{asked}", n))
        stop(router.process)

        if "uvicorn" in cells:
            app_port = free_port()
            app = Counted([sys.executable, "-c", EMPTY_APP, str(app_port)], tmp)
            procs.append(app.process)
            wait_up(f"http://127.0.0.1:{app_port}/", deadline_s=300)
            send(app_port, b"{}", 200, 1)
            n = app.per_request(app_port, b"{}", 400, 1)
            rows.append(("plain", "uvicorn, empty app, c=1", n))
            stop(app.process)
        if "classify" in cells:
            n = classify_instructions(body("auto", False), 400)
            rows.append(("plain", "classify() alone", n))
    finally:
        for process in procs:
            stop(process)
        shutil.rmtree(tmp, ignore_errors=True)
    print("| request | what | instructions per request |\n|---|---|---|")
    for mode, what, n in rows:
        print(f"| {mode} | {what} | {n:,} |")


if __name__ == "__main__":
    main()
