"""The long-lived parts of a running router, built from the config and started together."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter

from router import backends as backend_factory
from router.auth import Authenticator
from router.backends.base import Backend
from router.config import Config
from router.dispatch import AttemptObserver, Dispatcher
from router.gateway import Gateway, Sink

log = logging.getLogger("smf_router")


@dataclass
class Components:
    config: Config
    backends: dict[str, Backend]
    gateway: Gateway
    auth: Authenticator
    background: list[Callable[[], Coroutine[Any, Any, None]]] = field(default_factory=list)
    closers: list[Callable[[], Awaitable[None] | None]] = field(default_factory=list)
    status_sections: dict[str, Callable[[], Any]] = field(default_factory=dict)
    extra_endpoints: list[APIRouter] = field(default_factory=list)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def start(self) -> None:
        for job in self.background:
            self._tasks.append(asyncio.create_task(job()))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for close in self.closers:
            result = close()
            if result is not None:
                await result
        for backend in self.backends.values():
            await backend.aclose()


def build(
    config: Config,
    sinks: list[Sink] | None = None,
    observers: tuple[AttemptObserver, ...] = (),
) -> Components:
    backends = {b.name: backend_factory.create(b) for b in config.backends}
    dispatcher = Dispatcher(backends, observers)
    gateway = Gateway(config, backends, dispatcher, sinks=sinks or [])
    return Components(config, backends, gateway, Authenticator(config.auth))
