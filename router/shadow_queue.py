"""The shadow's job queue, bounded by jobs (`shadow.queue_size`) and by the bytes they hold
(`shadow.queue_bytes`).

A job keeps the client's whole body (up to `server.max_body_bytes`) and the live answer
until its replay ends. Bounded by count alone, 100 coding requests of 7.3 MB each behind a
hanging target took the router from 131 MB to 898 MB resident (found in review), near the
1 GiB a Kubernetes pod gets. A job's size is its body as received plus its live answer
(`job_size`); it counts from queueing until its replay ends (`done`), not only while it
waits: a replay in flight holds its job's body and answer through the call, comparison and
judge. So the queue and the replays in flight together hold at most `queue_bytes` of them.

The body is held as the bytes received, exactly what is counted, and parsed only as its
replay starts (`parsed_body`): held parsed, a body of many small turns took up to six times
its size (4.02 MB of JSON, 25.2 MB of Python objects), and 16 such jobs behind a hanging
target grew the router by 698 MB against 195 MB without shadowing (found in review). A
replay in flight holds its parsed body besides, `max_concurrency` of them at most.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from router.comparison import Reply
from router.shadow_row import Job


def job_size(raw: bytes, live: Reply) -> int:
    """The bytes a job holds: its body as the client sent it, and the live answer's text and
    tool calls in UTF-8."""
    calls = len(orjson.dumps(list(live.tool_calls), default=str)) if live.tool_calls else 0
    return len(raw) + len(live.text.encode("utf-8", "surrogatepass")) + calls


def parsed_body(raw: bytes) -> dict[str, Any]:
    """A job's body, parsed as its replay starts (read and checked once already, as it
    arrived). On the event loop, as the front parses every body: orjson holds the GIL
    through a parse, so a thread frees the loop no sooner (a 4 MB body of many turns kept
    it 0.07-0.13 s either way, measured)."""
    body = orjson.loads(raw)
    if not isinstance(body, dict):  # a caller's bug: the front takes only a JSON object
        raise ValueError("a shadow job's body is not a JSON object")
    return body


class JobQueue:
    """Queued jobs, and the bytes held by them and by those taken but not yet `done`.

    The bounds are given at each `admit`, read from the running config, so a reload
    applies from the next sampled request; lowering one drops nothing already queued."""

    def __init__(self) -> None:
        self._jobs: asyncio.Queue[Job] = asyncio.Queue()
        self.held_bytes = 0

    def admit(self, job: Job, max_jobs: int, max_bytes: int) -> bool:
        """Queue `job` unless the queue holds `max_jobs` already or its bytes would take the
        held bytes past `max_bytes` (a job larger than `max_bytes` never fits)."""
        if self._jobs.qsize() >= max_jobs or self.held_bytes + job.size > max_bytes:
            return False
        self._jobs.put_nowait(job)
        self.held_bytes += job.size
        return True

    async def get(self) -> Job:
        """The next job; its bytes stay held until `done`."""
        return await self._jobs.get()

    def done(self, job: Job) -> None:
        """`job`, taken by `get`, let go: replayed, failed, dropped or cancelled."""
        self.held_bytes -= job.size

    def drain(self) -> list[Job]:
        """Every job still queued, taken out and let go (shutdown)."""
        jobs = []
        while not self._jobs.empty():
            jobs.append(self._jobs.get_nowait())
            self.done(jobs[-1])
        return jobs

    def qsize(self) -> int:
        return self._jobs.qsize()
