"""The router's resident memory at the stages an operator meets, for `bench_proxy.py`.

Read at `/readyz` alone, it missed what loads after: the ledger's first flush loaded
PyArrow (~40 MB) an interval later, and a report loads DuckDB in the router process
(found in review). So the bench reads VmRSS at ready; idle, after a few ledger flushes;
after a bounded number of mixed requests (plain and streamed, several intents, one with
tools) and a settle; after the load cells; and after one `GET /v1/router/report`. Each
reading names the heavy libraries then mapped, where /proc lets this user read the
router's maps (`serve` is non-dumpable: root only), and its anonymous part (`RssAnon`):
the rest is file-backed, mostly libraries' pages, clean and shared with every process
that maps them, and their count moves with what those processes faulted into the page
cache (the kernel maps cached neighbours of a page on a fault).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

SETTLE_S = 2.0  # after requests: the ledger's flush of them, and the collector's pass
# heavy libraries, by what their mapped files' paths hold (numpy's own OpenBLAS is named
# `libscipy_openblas`: no sign of SciPy)
WATCHED = {"pyarrow": "/pyarrow/", "duckdb": "duckdb", "scipy": "/scipy/", "numpy": "/numpy/"}
PROMPTS = (
    "Write a Python function that adds two numbers.",
    "Translate 'good morning, how are you?' into French.",
    "What is 17 times 23? Show the steps.",
    "Write a short poem about autumn leaves.",
    "Summarize the plot of Hamlet in two sentences.",
)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file of the repository.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


@dataclass(frozen=True, slots=True)
class Reading:
    stage: str
    rss_mb: float
    anon_mb: float  # of rss_mb, the anonymous part (the heaps): the rest is file-backed
    mapped: tuple[str, ...] | None  # None: the maps were not readable

    def __str__(self) -> str:
        libs = "maps not readable" if self.mapped is None else ", ".join(self.mapped) or "-"
        return (
            f"RSS {self.stage:<22} {self.rss_mb:6.0f} MB, anon {self.anon_mb:4.0f} MB"
            f"  (mapped: {libs})"
        )


def read(pid: int, stage: str) -> Reading:
    status = Path(f"/proc/{pid}/status").read_text()
    rss, anon = (int(status.split(f"{key}:")[1].split()[0]) / 1024 for key in ("VmRSS", "RssAnon"))
    try:
        maps = Path(f"/proc/{pid}/maps").read_text()
    except PermissionError:
        return Reading(stage, rss, anon, None)
    watched = tuple(name for name, part in WATCHED.items() if part in maps)
    return Reading(stage, rss, anon, watched)


def ledger_status(root: str) -> dict[str, Any]:
    got = httpx.get(f"{root}/v1/router/status", timeout=10)
    got.raise_for_status()
    ledger: dict[str, Any] = got.json()["extra"]["ledger"]
    return ledger


def wait_for(check: Any, what: str, deadline_s: float = 60) -> None:
    """Poll `check` until true; bounded."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.05)
    raise TimeoutError(what)


def wait_flushes(root: str, count: int = 3) -> None:
    """Until `count` ledger flushes ended since the call (`last_ok_flush_unix` moved)."""
    seen: set[float] = set()

    def moved() -> bool:
        stamp = ledger_status(root)["last_ok_flush_unix"]
        if stamp is not None:
            seen.add(stamp)
        return len(seen) > count  # the first may predate the call

    wait_for(moved, f"{count} ledger flushes")


def mixed_requests(url: str, api: str, total: int) -> int:
    """`total` requests through the router at `url` (its /v1), one at a time: plain and
    streamed in turn, over `PROMPTS`, every fifth with tools. Returns the failures."""
    failures = 0
    path = "/responses" if api == "responses" else "/chat/completions"
    with httpx.Client(timeout=60) as client:
        for n in range(total):
            prompt = PROMPTS[n % len(PROMPTS)]
            if api == "responses":
                asked: dict[str, Any] = {"input": prompt, "max_output_tokens": 20}
            else:
                asked = {"messages": [{"role": "user", "content": prompt}], "max_tokens": 20}
            if n % 5 == 4:  # the Responses API's tools are flat
                flat = [{"type": "function", **TOOLS[0]["function"]}]
                asked["tools"] = flat if api == "responses" else TOOLS
            body = {"model": "auto", **asked, "stream": n % 2 == 1}
            with client.stream("POST", url + path, json=body) as reply:
                reply.read()
                failures += reply.status_code != 200
    return failures


def after_requests(root: str, api: str, pid: int, total: int) -> Reading:
    """RSS once `total` mixed requests are served and written to the ledger, and settled."""
    written = ledger_status(root)["written_records"]
    failures = mixed_requests(f"{root}/v1", api, total)
    if failures:
        print(f"({failures} of the {total} mixed requests failed)")
    wait_for(lambda: ledger_status(root)["written_records"] >= written + total, "the writes")
    time.sleep(SETTLE_S)
    return read(pid, f"after {total} requests")


def after_report(root: str, pid: int) -> Reading:
    """RSS after one report (computed in a child process since `router.ledger_jobs`: in
    the router's own, it loaded DuckDB there for good)."""
    got = httpx.get(f"{root}/v1/router/report", timeout=120)
    got.raise_for_status()
    time.sleep(SETTLE_S)
    return read(pid, "after a report")
