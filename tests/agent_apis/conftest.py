"""The simulators and the router of the agent stack: one of each per test module
(module-scoped), which a module may replace with its own `servers` or `proxy` fixture."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.agent_apis.agent_stack import simulators, stack
from tests.harness import Running, RunningRouter


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with simulators() as running:
        yield running


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """The router over `servers`, every route trying `local` then `cloud`."""
    with stack(servers, tmp_path_factory.mktemp("stack")) as running:
        yield running
