"""Running the router under uvicorn, with demo simulators when nothing is configured.

Demo mode says so in the log, in a header on every answer and in `/metrics`, and keeps its
own ledger (`router.default_config.DEMO_LEDGER`).

SIGTERM: uvicorn stops accepting, lets in-flight requests and streams finish for up to
`server.drain_s`, then the lifespan closes backends and flushes the ledger. The components
hear of the shutdown as the drain starts (`Components.shutting_down`): the canary stops its
run under way beside the drain, not after it. A router with no
keys on an address other than loopback says at start that it is open to all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import signal
import socket
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn

from router import default_config, early_sighup, heap, listen_address, reload, sandbox_layers
from router.api.corking import CorkedHttpToolsProtocol
from router.api.request_head import drop_uvicorn_unparsed_line
from router.app import create_app
from router.config import Config
from router.ledger import LedgerWriter
from router.logs import configure as configure_logging
from router.open_listener import warn_if_open

log = logging.getLogger("smf_router")
STARTUP_FAILURE = 3  # uvicorn's exit status when it cannot bind (uvicorn.server)
# After a second Ctrl-C: how long the requests it stops and the lifespan's shutdown (the
# ledger's flush) may take before the exit goes on without them, as before.
FORCED_STOP_S = 10.0


# Arrow's own allocator (mimalloc) kept what the ledger's merges freed: a served router held
# ~40 MB more for good from its first merge on, after a minute of traffic. The C library's,
# trimmed after each merge (`compaction.give_back_memory`), gives it back, and ingested ~15 %
# faster here. Arrow reads this when it first allocates: set before anything imports
# PyArrow, and an operator's own setting stands.
ARROW_POOL = ("ARROW_DEFAULT_MEMORY_POOL", "system")


def run(
    config: Config | None, demo: bool, host: str, port: int, config_path: Path | None = None
) -> None:
    os.environ.setdefault(*ARROW_POOL)
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        runner.run(_serve(config, demo, host, port, config_path))


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop when installed (it comes with `uvicorn[standard]`), else asyncio's own loop.

    The router spends much of its CPU in the event loop's socket handling; uvloop's is in C.
    uvicorn picks uvloop only when it creates the loop itself, and `run` creates it here.
    """
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


async def _serve(
    config: Config | None, demo: bool, host: str, port: int, config_path: Path | None = None
) -> None:
    # The address first: a port in use stopped `serve` only once the demo's simulators ran
    # and its banner said DEMO MODE (or a config's warnings and start-up had run), the
    # error last (found by a new user). Demo mode logs at the default level, info.
    configure_logging(config.server.log_level if config is not None else "info")
    if not await _address_free(host, port):
        raise SystemExit(STARTUP_FAILURE)
    simulators: list[asyncio.Task[None]] = []
    if demo:
        config, simulators = await _start_demo_backends()
    assert config is not None
    configure_logging(config.server.log_level)
    if demo:
        log.warning(
            "DEMO MODE: no backends configured; both 'local' and 'cloud' are the built-in "
            "SIMULATOR (%s, %s). Answers are fake (marked x-smf-demo: true) and recorded in "
            "the demo ledger %s, apart from the real one (read it with `smf-router report "
            "--ledger %s`). Configure backends with --config / SMF_ROUTER_CONFIG (a file) "
            "or SMF_LOCAL_URL / SMF_CLOUD_MODEL to route real traffic.",
            config.backend("local").base_url,
            config.backend("cloud").base_url,
            config.ledger.path,
            config.ledger.path,
        )
    for warning in config.warnings():
        log.warning("%s", warning)
    app = create_app(config)
    app.state.components.listen = f"{host}:{port}"
    sandbox_layers.say(config, sandbox_layers.running(app.state.components.runs_code))
    server = _Server(uvicorn_config(app, config, host, port), app.state.components.shutting_down)
    _reload_on_sighup(app.state, config_path)
    warn_if_open(config, host, app.state.behind_proxy)
    try:
        await server.serve()
    finally:
        for task in simulators:
            task.cancel()
    if server.started:
        say_stopped(app.state.components.ledger, config.ledger.path)


def say_stopped(ledger: LedgerWriter | None, path: str) -> None:
    """The last line, once the lifespan flushed the ledger: how many records this run
    wrote, and where, so a Ctrl-C on `make run` ends by saying where to read them (a
    fresh-clone review found nothing said at the end)."""
    if ledger is None:
        log.info("smf-router stopped")
        return
    log.info(
        "smf-router stopped; %d record(s) written to the ledger %s",
        ledger.written_total,
        path,  # as configured: `./var/ledger`, as the README and the demo banner say it
    )


async def _address_free(host: str, port: int) -> bool:
    """Whether `host:port` can be bound, tried as uvicorn will bind it (the loop's own
    `create_server`, every address `host` names) and let go at once; if not, uvicorn's own
    error line (a name no host can have, `not..a..host`, in words of `listen_address`).
    The port may still be taken in between: uvicorn then fails as before."""
    loop = asyncio.get_running_loop()
    try:
        probe = await loop.create_server(asyncio.Protocol, host, port, start_serving=False)
    except OSError as exc:
        logging.getLogger("uvicorn.error").error(exc)  # as uvicorn.Server.startup logs it
        return False
    except UnicodeError as exc:  # no OSError: it was a traceback (found in review)
        logging.getLogger("uvicorn.error").error(listen_address.cannot_listen(host, port, exc))
        return False
    probe.close()
    await probe.wait_closed()
    return True


def uvicorn_config(app: Any, config: Config, host: str, port: int) -> uvicorn.Config:
    """How the router runs under uvicorn (the test harness runs it the same way)."""
    drop_uvicorn_unparsed_line()  # `send_400_response` writes its own line, sparingly
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=drain_timeout(config.server.drain_s),
        proxy_headers=config.server.proxy_headers,
        lifespan="on",
        ws="none",  # no WebSocket endpoints: skip importing a WebSocket library at start
        http=CorkedHttpToolsProtocol,  # one write per reply and loop turn (router.api.corking)
    )


def drain_timeout(drain_s: float) -> int:
    """uvicorn's graceful-shutdown limit: whole seconds, rounded up. Never None, which
    uvicorn reads as "wait for every stream however long" (`drain_s: 0` meant exactly that,
    and systemd or Kubernetes killed the router before the ledger flushed)."""
    return math.ceil(drain_s)


class DrainingServer(uvicorn.Server):
    """Exit with status 0 after a graceful drain (uvicorn would re-raise the signal), and
    say when the shutdown starts (`shutting_down`), before the drain. The test harness's
    in-thread routers run it too: their shutdown tells the components as `serve`'s does."""

    def __init__(self, config: uvicorn.Config, shutting_down: Callable[[], None]) -> None:
        super().__init__(config)
        self._shutting_down = shutting_down

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Told only once the lifespan's shutdown began, after the drain, the canary's stop
        came on top of it: a SIGTERM took `drain_s` plus up to `STOP_WAIT_S` (found in
        review). It starts now, beside the drain; the lifespan still awaits its end."""
        self._shutting_down()
        await super().shutdown(sockets)
        if self.force_exit:
            await self._stop_forced()

    async def _stop_forced(self) -> None:
        """A second Ctrl-C (uvicorn's `force_exit`) ends the drain, and uvicorn skips the
        lifespan's shutdown: the ledger was closed only as the loop cancelled the lifespan
        at exit, after the last line had counted its records (a stale count), with an error
        traceback from uvicorn (found in a durability review). The requests still running
        are stopped now, as at the end of a drain (each recorded `cancelled`), and the
        lifespan shut down as usual, `FORCED_STOP_S` at most."""
        shut = getattr(self.lifespan, "shutdown_event", None)
        if shut is None or shut.is_set():  # none, or it ran: the Ctrl-C came during it
            return
        running = list(self.server_state.tasks)
        for task in running:
            task.cancel(msg="a second Ctrl-C: stopping now")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(FORCED_STOP_S):
                if running:
                    await asyncio.wait(running)
                await self.lifespan.shutdown()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        self._captured_signals.clear()


class _Server(DrainingServer):
    """`serve`'s: says when it listens (the log, systemd) and settles the heap."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)  # cannot bind: uvicorn logs why and exits with 3
        address = listen_address.authority(self.config.host, self.config.port)
        log.info("smf-router listening on http://%s/v1", address)
        notify_ready()
        heap.settle()  # everything the process keeps for good exists now


def notify_ready() -> None:
    """Tell systemd (`Type=notify`) the router serves: until then `systemctl start` waits,
    and a `systemctl reload` asked for meanwhile is queued instead of sending a SIGHUP to a
    process still starting. Nothing without $NOTIFY_SOCKET; a lost message costs nothing."""
    address = os.environ.get("NOTIFY_SOCKET", "")
    if not address:
        return
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.connect(address)
        sock.sendall(b"READY=1")


async def _start_demo_backends() -> tuple[Config, list[asyncio.Task[None]]]:
    from router.simulator import Profile, SimSettings, serve

    loop = asyncio.get_running_loop()
    urls: list[asyncio.Future[str]] = [loop.create_future(), loop.create_future()]
    profiles: list[tuple[Profile, str]] = [("vllm", default_config.LAGUNA), ("cloud", "gpt-4o")]
    tasks = [
        asyncio.create_task(
            serve(
                SimSettings(profile=profile, model=model), "127.0.0.1", 0, ready=future.set_result
            )
        )
        for (profile, model), future in zip(profiles, urls, strict=True)
    ]
    local, cloud = [f"{await future}/v1" for future in urls]
    return default_config.demo(local, cloud), tasks


def _reload_on_sighup(state: Any, config_path: Path | None) -> None:
    """SIGHUP re-reads the config file (`--config`, else $SMF_ROUTER_CONFIG); one that
    arrived while the router was starting (`router.early_sighup`) is applied now."""
    reloader = reload.reloader_of(state.components)
    if config_path is not None:
        reloader.source = config_path
    pending: set[asyncio.Task[Any]] = set()

    def on_hup() -> None:
        task = asyncio.get_running_loop().create_task(reloader.reload(state))
        pending.add(task)
        task.add_done_callback(pending.discard)

    try:
        asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, on_hup)
    except (NotImplementedError, AttributeError):  # no SIGHUP on this platform
        log.info("SIGHUP reload is not available here; use POST /v1/router/reload")
        return
    if early_sighup.take():  # after the handler is in place: a SIGHUP from now on is not lost
        log.warning("SIGHUP arrived while starting: reloading the config now")
        on_hup()
