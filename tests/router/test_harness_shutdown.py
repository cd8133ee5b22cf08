"""The test harness's in-thread router stops as a SIGTERM stops `serve`: the components are
told as the drain starts (`Components.shutting_down`), before the lifespan stops them."""

from __future__ import annotations

from pathlib import Path

from tests.harness import config_for, router, simulator


def test_leaving_a_harness_router_tells_its_components_before_stopping_them(
    tmp_path: Path,
) -> None:
    """It ran a plain uvicorn server, which never called the shutdown hooks: the canary's
    and housekeeping's stops as the drain starts went untested in-thread, and a job stopped
    only at cancel passed tests that `serve` would not."""
    heard: list[str] = []
    with (
        simulator(profile="vllm", model="local-model") as local,
        router(config_for({"local": local}, tmp_path)) as running,
    ):
        running.components.shutdown_hooks.append(lambda: heard.append("shutting down"))
        running.components.closers.append(lambda: heard.append("stopped"))
    assert heard == ["shutting down", "stopped"]
