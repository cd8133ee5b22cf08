"""Running a simulator: `await serve(...)` in an event loop, or `running(...)` in a thread.

The thread form is for in-process tests and for the router's demo mode: the simulator gets
its own event loop (uvloop when installed), so it never competes with the caller's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import Any

from router.listen_address import authority
from router.simulator.app import Simulator
from router.simulator.canary import CaseLike
from router.simulator.settings import SimSettings


def new_loop() -> asyncio.AbstractEventLoop:
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


async def serve(
    settings: SimSettings,
    host: str = "127.0.0.1",
    port: int = 0,
    ready: Callable[[str], None] | None = None,
    cases: Iterable[CaseLike] | None = None,
) -> None:
    """Serve until cancelled. `ready(url)` is called once the port is listening."""
    sim = Simulator(settings, cases)
    bound = await sim.server.listen(host, port)
    if ready is not None:
        ready(f"http://{authority(host, bound)}")
    try:
        await asyncio.Event().wait()
    finally:
        await sim.server.close()


class SimThread:
    """A simulator on its own thread and loop; `url` once started. Thread-safe controls."""

    def __init__(
        self,
        settings: SimSettings,
        host: str = "127.0.0.1",
        port: int = 0,
        cases: Iterable[CaseLike] | None = None,
    ) -> None:
        self.settings, self.host, self.port = settings, host, port
        self._cases = cases
        self.loop = new_loop()
        self.sim: Simulator | None = None
        self.url = ""
        self._thread = threading.Thread(target=self._run, name="simulator", daemon=True)
        self._started: Future[str] = Future()
        self._stop: asyncio.Event | None = None

    def start(self) -> str:
        self._thread.start()
        self.url = self._started.result(timeout=10)
        return self.url

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._main())
        except BaseException as exc:  # surface start-up failures to start()
            if not self._started.done():
                self._started.set_exception(exc)
        finally:
            self.loop.close()

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        self.sim = Simulator(self.settings, self._cases)
        port = await self.sim.server.listen(self.host, self.port)
        self._started.set_result(f"http://{authority(self.host, port)}")
        await self._stop.wait()
        await self.sim.server.close()

    def call(self, fn: Callable[[Simulator], Any]) -> Any:
        """Run `fn(simulator)` on the simulator's loop and return its result."""

        async def run() -> Any:
            assert self.sim is not None
            result = fn(self.sim)
            return await result if asyncio.iscoroutine(result) else result

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout=10)

    def set_down(self, down: bool, for_s: float | None = None) -> None:
        """Refuse (or accept again) connections on the simulator's port."""

        async def apply(sim: Simulator) -> None:
            if down:
                await sim.server.stop_listening(drop_connections=True)
                if for_s is not None:
                    sim.server.resume_later(for_s)
            else:
                await sim.server.resume_listening()

        self.call(apply)

    def stop(self) -> None:
        if self._stop is not None and self._thread.is_alive():
            self.loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(timeout=10)


@contextlib.contextmanager
def running(
    settings: SimSettings | None = None, cases: Iterable[CaseLike] | None = None
) -> Iterator[str]:
    """`with running(SimSettings(...)) as url:` — a simulator on 127.0.0.1, stopped after."""
    thread = SimThread(settings or SimSettings(), cases=cases)
    try:
        yield thread.start()
    finally:
        thread.stop()
