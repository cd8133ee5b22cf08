"""The simulators behind the agent stack: one set per test module (module-scoped), which a
module may replace with its own `servers` fixture."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.agent_apis.agent_stack import simulators
from tests.harness import Running


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with simulators() as running:
        yield running
