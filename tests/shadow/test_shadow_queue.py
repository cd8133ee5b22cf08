"""The shadow queue holds at most `shadow.queue_bytes` of bodies and live answers, counting
its jobs from queueing until their replay ends, however it ends.

Found in review: bounded by `queue_size` alone, 110 coding requests of 7.3 MB behind a
hanging shadow target left 100 jobs queued and took the router from 131 MB to 898 MB, near
the 1 GiB a pod gets (every live stream cut when it is killed).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from pathlib import Path
from typing import Any

import httpx
import orjson

from router.attempt_errors import UpstreamError
from router.backends.base import Reply as BackendReply
from router.call import Call
from router.comparison import Reply
from router.config import Config
from router.ledger import Ledger
from router.policy import BackendState
from router.record import Record, Usage
from router.relay import Tally
from router.shadow import Shadow
from router.shadow_queue import job_size
from router.shadow_row import Job
from tests.harness import Running, config_for, router, simulator
from tests.shadow.shadow_status import shadow_status, until

MATH = "What is 1234 + 4321?"  # live on the cloud, shadowed on local
MiB = 1024 * 1024
ANSWER = b'{"choices":[{"index":0,"message":{"role":"assistant","content":"\\\\boxed{5555}"}}]}'


def _math_with_image(size: int) -> bytes:
    """A math question carrying an image, `size` bytes of JSON as sent: indented, so a body
    serialised again would measure less."""
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,"}}
    content = [{"type": "text", "text": MATH}, image]
    shell = {"model": "auto", "messages": [{"role": "user", "content": content}]}
    room = size - len(orjson.dumps(shell, option=orjson.OPT_INDENT_2))
    image["image_url"] = {"url": "data:image/png;base64," + "A" * room}
    body = orjson.dumps(shell, option=orjson.OPT_INDENT_2)
    assert len(body) == size
    return body


def test_a_hanging_target_leaves_the_queue_no_more_than_queue_bytes(tmp_path: Path) -> None:
    """local never answers a replay: one stays in flight, and the jobs behind it are held
    to 3.5 MiB with the one in flight. A 4 MiB request is dropped alone; of six 1 MiB ones,
    three are held (one in flight) and three dropped, all as `queue_full`. The old queue
    took every one of them (`queue_size` is 100). At shutdown every job is let go."""
    bound = 3 * MiB + MiB // 2
    with (
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="vllm", model="local-model", fault="no_response") as local,
    ):
        config = config_for(
            {"local": local, "cloud": cloud},
            tmp_path,
            timeouts={"first_token_s": 60, "idle_s": 60, "total_s": 120},  # it hangs on
            shadow={"rates": {"math": 1.0}, "max_concurrency": 1, "queue_bytes": bound},
        )
        headers = {"content-type": "application/json"}
        with router(config) as r, httpx.Client(timeout=30, trust_env=False) as client:
            (shadow,) = [s for s in r.components.gateway.call_sinks if isinstance(s, Shadow)]
            for size in [4 * MiB] + [MiB] * 6:
                body = _math_with_image(size)
                sent = client.post(f"{r.url}/chat/completions", content=body, headers=headers)
                assert (sent.status_code, sent.headers["x-smf-backend"]) == (200, "cloud")
                answer = sent.json()["choices"][0]["message"]["content"]
            until(lambda: shadow.counts["sampled"] == 7 and shadow_status(r)["in_flight"] == 1)
            status = shadow_status(r)
            assert local.stats()["requests"] == 1  # the replay in flight, never answered
        counts = shadow.counts  # the router stopped: the replay cancelled, the queue emptied
    assert (status["in_flight"], status["queued"]) == (1, 2)
    assert status["counts"]["dropped_queue_full"] == 4
    # the bodies' size as received, and the live answers
    assert status["held_bytes"] == 3 * (MiB + len(answer.encode())) <= bound
    assert status["queue_bytes"] == bound
    assert counts["dropped_shutdown"] == 3 and shadow.queue.held_bytes == 0


class Gated:
    """A shadow target whose calls wait until `opened`, then answer, fail or hang; its
    `settings` are the backend's it stands for (a failure is heard under them)."""

    def __init__(self, then: str = "answer", settings: Any = None) -> None:
        self.then = then
        self.settings = settings
        self.opened = asyncio.Event()
        self.asked = 0

    async def send(self, *_: Any) -> BackendReply:
        self.asked += 1
        await self.opened.wait()
        if self.then == "fail":
            raise UpstreamError("the target broke", backend="local")
        if self.then == "bug":
            raise RuntimeError("a bug in the replay")
        if self.then == "hang":
            await asyncio.Event().wait()
        return BackendReply(200, {}, body=ANSWER)


def _config(tmp: Path, **shadow: Any) -> Config:
    nowhere = Running("http://127.0.0.1:9/v1", "http://127.0.0.1:9")
    settings = {"rates": {"math": 1.0}, "max_concurrency": 1, **shadow}
    return config_for({"local": nowhere, "cloud": nowhere}, tmp, shadow=settings)


def _record() -> Record:
    usage = Usage(10, 20)
    return Record("r1", 0.0, intent="math", route="math", backend="cloud", usage=usage)


def _question(size: int) -> bytes:
    """A math question, `size` bytes as sent (spaces after the JSON fill it up)."""
    raw = orjson.dumps({"model": "auto", "messages": [{"role": "user", "content": MATH}]})
    assert len(raw) <= size
    return raw + b" " * (size - len(raw))


def _offer(shadow: Shadow, size: int) -> None:
    shadow.offer(_record(), _question(size), Reply("\\boxed{5555}"))


async def _settle() -> None:
    """Let the replay loop take what it can (no I/O anywhere)."""
    for _ in range(20):
        await asyncio.sleep(0)


def test_the_byte_bound_counts_queued_and_replaying_jobs_and_follows_a_reload(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, queue_bytes=1000)
    running = [config]
    shadow = Shadow(lambda: running[0], {"local": Gated()})
    answer = job_size(b"", Reply("\\boxed{5555}"))
    _offer(shadow, 1001)  # larger than the whole bound: never fits
    for _ in range(3):
        _offer(shadow, 400)
    assert shadow.queue.qsize() == 2 and shadow.counts["dropped_queue_full"] == 2
    assert shadow.queue.held_bytes == 2 * (400 + answer)
    bigger = config.shadow.model_copy(update={"queue_bytes": 2000})
    running[0] = config.model_copy(update={"shadow": bigger})  # a reload: the next offer
    _offer(shadow, 2000 - shadow.queue.held_bytes - answer + 1)  # one byte too many
    _offer(shadow, 2000 - shadow.queue.held_bytes - answer)  # fills it to the byte
    assert shadow.queue.qsize() == 3 and shadow.counts["dropped_queue_full"] == 3
    assert shadow.status()["held_bytes"] == shadow.status()["queue_bytes"] == 2000
    shadow.close()
    assert shadow.counts["dropped_shutdown"] == 3 and shadow.queue.held_bytes == 0


def _run(shadow: Shadow, target: Gated, jobs: int, then: str) -> tuple[int, int]:
    """Queue `jobs` replays of 100-byte bodies; the bytes held once one is in flight (its
    call waiting), and once `then` happened: "open" the calls, or "shut" the router down."""
    held: list[int] = []

    async def go() -> None:
        runner = asyncio.create_task(shadow.run())
        for _ in range(jobs):
            _offer(shadow, 100)
        await _settle()
        assert (shadow.in_flight, target.asked) == (1, 1)
        held.append(shadow.queue.held_bytes)
        if then == "open":
            target.opened.set()
            for _ in range(500):  # 5 s at most: comparisons run in a thread
                if shadow.in_flight == 0 and shadow.queue.qsize() == 0:
                    break
                await asyncio.sleep(0.01)
        runner.cancel()  # what the router's shutdown does to its background jobs
        with contextlib.suppress(asyncio.CancelledError):
            await runner
        shadow.close()
        held.append(shadow.queue.held_bytes)

    asyncio.run(go())
    return held[0], held[1]


def test_a_replay_holds_its_bytes_until_it_ends_however_it_ends(tmp_path: Path) -> None:
    """In flight, a job still holds its body and answer (2 jobs: both counted); let go once
    compared, failed (the target's error, or a bug), or cancelled at shutdown."""
    size = job_size(_question(100), Reply("\\boxed{5555}"))
    for then, counted in [("answer", "compared"), ("fail", "dropped_error"), ("bug", None)]:
        config = _config(tmp_path)
        target = Gated(then, config.backend("local"))
        shadow = Shadow(config, {"local": target})
        assert _run(shadow, target, 2, "open") == (2 * size, 0), then
        if counted is not None:
            assert shadow.counts[counted] == 2, then
    target = Gated("hang")
    shadow = Shadow(_config(tmp_path), {"local": target})
    assert _run(shadow, target, 2, "shut") == (2 * size, 0)
    assert shadow.counts["dropped_shutdown"] == 2


def test_a_job_dropped_as_it_is_taken_lets_its_bytes_go(tmp_path: Path) -> None:
    """The target filled up while the job waited (`saturated`)."""
    states = {"local": BackendState()}
    shadow = Shadow(_config(tmp_path), {"local": Gated()}, states=lambda: states)
    _offer(shadow, 100)
    states["local"] = BackendState(saturated=True)

    async def go() -> None:
        runner = asyncio.create_task(shadow.run())
        await _settle()
        runner.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runner

    asyncio.run(go())
    assert shadow.counts["dropped_saturated"] == 1 and shadow.queue.held_bytes == 0


def test_a_jobs_size_is_its_body_as_received_and_its_live_answer() -> None:
    body = {"model": "auto", "messages": [{"role": "user", "content": "é"}]}
    sent = orjson.dumps(body, option=orjson.OPT_INDENT_2)  # longer than serialised again
    call = {"type": "function", "function": {"name": "f", "arguments": "{}"}}
    assert job_size(_question(5000), Reply("é")) == 5002  # the answer in UTF-8
    assert job_size(sent, Reply()) == len(sent) > len(orjson.dumps(body))  # as received
    assert job_size(b"", Reply("", (call,))) == len(orjson.dumps([call]))


class Dice(random.Random):
    """Rolls the values given, in order: which request the shadow picks."""

    def __init__(self, *values: float) -> None:
        super().__init__(0)
        self.values = list(values)

    def random(self) -> float:
        return self.values.pop(0)


def test_only_a_request_the_dice_picked_keeps_its_bytes_and_answer(tmp_path: Path) -> None:
    """The bytes as received (and the answer text) were kept for every request of a route
    with a shadow rate above 0, picked or not: at `rates: {coding: 0.01}` every coding
    request in flight held its body twice, as bytes beside the parsed dict (found in
    re-review). The dice are rolled as a request arrives: one they pass over keeps neither,
    one they pick keeps both, and is replayed."""
    body = _indented({"model": "auto", "messages": [{"role": "user", "content": MATH}]})
    with (
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="vllm", model="local-model") as local,
    ):
        config = config_for(
            {"local": local, "cloud": cloud}, tmp_path, shadow={"rates": {"math": 0.5}}
        )
        with router(config) as r, httpx.Client(timeout=30, trust_env=False) as client:
            (shadow,) = [s for s in r.components.gateway.call_sinks if isinstance(s, Shadow)]
            shadow.rng = Dice(0.9, 0.1)  # passed over (0.9 >= 0.5), then picked
            kept: list[tuple[bytes | None, bool]] = []
            finished = shadow.call_finished

            def seen(call: Call, tally: Tally) -> None:
                kept.append((call.raw_body, tally.keep_text))
                finished(call, tally)

            shadow.call_finished = seen  # type: ignore[method-assign]
            headers = {"content-type": "application/json"}
            for _ in range(2):
                sent = client.post(f"{r.url}/chat/completions", content=body, headers=headers)
                assert (sent.status_code, sent.headers["x-smf-backend"]) == (200, "cloud")
            until(lambda: shadow.counts["compared"] == 1)
            assert local.stats()["requests"] == 1  # the one replay
    assert kept == [(None, False), (body, True)]
    assert shadow.counts["sampled"] == 1


def _indented(body: dict[str, Any]) -> bytes:
    """`body` as a client may send it: indented, so serialised again it would be shorter."""
    return orjson.dumps(body, option=orjson.OPT_INDENT_2)


def test_a_job_holds_the_body_as_received_and_replays_chat_messages_and_responses(
    tmp_path: Path,
) -> None:
    """A queued job held the parsed body, up to six times the bytes counted for it (4.02 MB
    of many small turns took 25.2 MB; 16 such jobs grew the router by ~500 MB more than
    shadowing off: found in review). It holds the bytes the client sent, exactly what is
    counted (each body sent indented: serialised again it would be shorter), parsed as its
    replay starts; and a chat, a Messages and a Responses request are still replayed and
    compared."""
    question = [{"role": "user", "content": MATH}]
    chat = _indented({"model": "auto", "messages": question})
    messages = _indented({"model": "auto", "max_tokens": 64, "messages": question})
    responses = _indented({"model": "auto", "input": MATH})
    with (
        simulator(profile="cloud", model="cloud-model") as cloud,
        simulator(profile="vllm", model="local-model") as local,
    ):
        config = config_for(
            {"local": local, "cloud": cloud}, tmp_path, shadow={"rates": {"math": 1.0}}
        )
        with router(config) as r, httpx.Client(timeout=30, trust_env=False) as client:
            (shadow,) = [s for s in r.components.gateway.call_sinks if isinstance(s, Shadow)]
            jobs: list[Job] = []
            admit = shadow.queue.admit

            def seen(job: Job, max_jobs: int, max_bytes: int) -> bool:
                jobs.append(job)
                return admit(job, max_jobs, max_bytes)

            shadow.queue.admit = seen  # type: ignore[method-assign]
            headers = {"content-type": "application/json"}
            sent = client.post(f"{r.url}/chat/completions", content=chat, headers=headers)
            assert (sent.status_code, sent.headers["x-smf-backend"]) == (200, "cloud")
            answer = sent.json()["choices"][0]["message"]["content"]
            for path, body in (("messages", messages), ("responses", responses)):
                other = client.post(f"{r.url}/{path}", content=body, headers=headers)
                assert (other.status_code, other.headers["x-smf-backend"]) == (200, "cloud")
            until(lambda: shadow.counts["compared"] == 3)
    assert [(job.api, type(job.body)) for job in jobs] == [
        ("chat", bytes),
        ("messages", bytes),
        ("responses", bytes),
    ]
    assert jobs[0].body == chat and jobs[0].size == len(chat) + len(answer.encode())
    assert (jobs[1].body, jobs[2].body) == (messages, responses)  # exactly the bytes sent
    assert orjson.loads(jobs[1].body)["messages"] == [{"role": "user", "content": MATH}]
    assert orjson.loads(jobs[2].body)["input"] == MATH
    with Ledger(tmp_path / "ledger") as ledger:
        rows = ledger.sql(
            "SELECT live_backend, shadow_backend, shadow_error FROM shadow_comparisons"
        )
    assert rows == [("cloud", "local", None)] * 3
