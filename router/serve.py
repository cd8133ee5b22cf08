"""Running the router under uvicorn, with demo simulators when nothing is configured.

SIGTERM: uvicorn stops accepting, lets in-flight requests and streams finish for up to
`server.drain_s`, then the lifespan closes backends and flushes the ledger.
"""

from __future__ import annotations

import asyncio
import logging
from types import FrameType

import uvicorn

from router import default_config
from router.app import create_app
from router.config import Config
from router.logs import configure as configure_logging

log = logging.getLogger("smf_router")


def run(config: Config | None, demo: bool, host: str, port: int) -> None:
    asyncio.run(_serve(config, demo, host, port))


async def _serve(config: Config | None, demo: bool, host: str, port: int) -> None:
    simulators: list[asyncio.Task[None]] = []
    if demo:
        config, simulators = await _start_demo_backends()
    assert config is not None
    configure_logging(config.server.log_level)
    if demo:
        log.warning(
            "DEMO MODE: no backends configured; both 'local' and 'cloud' are the built-in "
            "SIMULATOR (%s, %s). Answers are fake. Configure backends with --config or "
            "SMF_LOCAL_URL / SMF_CLOUD_MODEL to route real traffic.",
            config.backend("local").base_url,
            config.backend("cloud").base_url,
        )
    app = create_app(config)
    server = _Server(
        uvicorn.Config(
            app,
            host=host,
            port=port,
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=int(config.server.drain_s) or None,
            lifespan="on",
        )
    )
    log.info("smf-router listening on http://%s:%d/v1", host, port)
    try:
        await server.serve()
    finally:
        for task in simulators:
            task.cancel()


class _Server(uvicorn.Server):
    """Exit with status 0 after a graceful drain (uvicorn would re-raise the signal)."""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        self._captured_signals.clear()


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
