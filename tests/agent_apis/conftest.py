"""The simulators and the router of the agent stack: one of each per test module
(module-scoped), which a module may replace with its own `servers` or `proxy` fixture. Also
a router whose backends speak chat only (`chat_proxy`: every agent API translated), one
with the default routes (`default_proxy`), one pinning conversations to their backend for
the module's callers (`pinning`), and the reasoning grace, shortened or lengthened."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from router.config import parse
from router.translate import keep_alive
from tests.agent_apis.agent_stack import simulators, stack
from tests.agent_apis.sticky_stack import keyed_config, sticky_router
from tests.harness import Collect, Running, RunningRouter, config_for, router, simulator


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


@pytest.fixture(scope="module")
def chat_sims() -> Iterator[dict[str, Running]]:
    """`local`, vLLM's profile (its reasoning in `reasoning`), and `cloud`, a chat cloud (in
    `reasoning_content`)."""
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        yield {"local": local, "cloud": cloud}


@pytest.fixture(scope="module")
def default_proxy(
    chat_sims: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """The router over `chat_sims` with the default routes and settings (`config_for`): what
    a test of an agent's own texts sends its captured bodies to."""
    with router(config_for(chat_sims, tmp_path_factory.mktemp("default"))) as running:
        yield running


@pytest.fixture(scope="module")
def chat_proxy(
    chat_sims: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """The router over `chat_sims`, both speaking chat only to it: Messages and Responses
    are translated."""
    data = config_for(chat_sims, tmp_path_factory.mktemp("reasoning")).model_dump(mode="json")
    for backend in data["backends"]:
        backend["apis"] = ["chat"]
    with router(parse(data)) as running:
        yield running


@pytest.fixture(scope="module")
def pinning(
    request: pytest.FixtureRequest,
    chat_sims: dict[str, Running],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[RunningRouter, Collect]]:
    """The router over `chat_sims`, conversations sticking to their backend, and a caller
    for each key of the test module's `KEYS`: a conversation is scoped by its caller's key,
    so a module's tests pin nothing another's send."""
    tmp = tmp_path_factory.mktemp("pinning")
    with sticky_router(keyed_config(chat_sims, tmp, request.module.KEYS)) as running:
        yield running


@pytest.fixture
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """A grace well inside the simulator's seconds of reasoning, a piece a second (the
    router runs in this process, and each stream reads the constant as it starts)."""
    monkeypatch.setattr(keep_alive, "REASONING_GRACE_S", 0.5)


@pytest.fixture
def long_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """A grace no test outlasts: held reasoning never commits a stream."""
    monkeypatch.setattr(keep_alive, "REASONING_GRACE_S", 300.0)
