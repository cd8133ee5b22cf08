"""After a backend refuses a prompt as too long, dispatch skips the backends whose window is
no larger: the prompt is too long for them as well. It read the configured `context_window`
alone, so a backend whose window was learned from `/v1/models` was tried anyway (found in
review): the plan's window for each step (`Step.window`) is what it reads now. Through the
real app on sockets, vLLM-like simulators as both backends, the `openai` SDK."""

from __future__ import annotations

from pathlib import Path

import openai
import pytest

from router.config import parse
from tests.canary.servers import router, simulator
from tests.harness import collected, config_for, sdk
from tests.resilience.conftest import CODING, FAST, until

BIG, SMALL = 262144, 8192


@pytest.mark.parametrize("learned", [True, False], ids=["learned", "configured"])
def test_a_smaller_window_is_skipped_after_a_refusal_for_length(
    tmp_path: Path, learned: bool
) -> None:
    """`local` (the larger window) refuses the prompt as too long whatever it holds;
    `local_small`, next on the route, is not asked: the client hears the refusal."""
    with (
        simulator(
            profile="vllm", model="local-model", max_model_len=BIG, fault="context_length"
        ) as big,
        simulator(profile="vllm", model="local_small-model", max_model_len=SMALL) as small,
    ):
        servers = {"local": big, "local_small": small}
        resilience = FAST if learned else {"enabled": False}
        data = config_for(servers, tmp_path, resilience=resilience).model_dump(mode="json")
        if not learned:
            data["backends"][0]["context_window"] = BIG
            data["backends"][1]["context_window"] = SMALL
        with router(parse(data)) as proxy:
            if learned:
                loads = proxy.components.gateway.state_source.capacity  # type: ignore[attr-defined]
                windows = lambda: [loads.load(n).context_window for n in servers]  # noqa: E731
                until(lambda: windows() == [BIG, SMALL], what="both windows learned")
            records = collected(proxy)
            with pytest.raises(openai.BadRequestError) as refused:
                sdk(proxy).chat.completions.create(model="coding", messages=CODING)
            until(lambda: len(records.records) >= 1, what="the request recorded")
        asked_small = small.completions()
    body = refused.value.body
    assert isinstance(body, dict) and body["code"] == "context_length_exceeded"
    attempts = [(a.backend, a.outcome, a.error_kind) for a in records.records[0].attempts]
    assert attempts == [
        ("local", "error", "context_too_long"),
        ("local_small", "skipped", "context_too_long"),
    ]
    assert asked_small == 0
