"""A request carrying vLLM's own output constraint (`structured_outputs`) is served by the
local tier only, and its shadow is not replayed on a backend that would not honour it: with
`allow_cloud_targets`, a math ask kept local for it was replayed on the cloud, the field
with it (OpenAI refuses it with a 400 and still bills the call; another cloud answered
unconstrained, compared with a constrained answer; found in review). Dropped as
`vllm_fields`, counted as a private request's `private` is. Through a real router over the
simulators, the official openai SDK."""

from __future__ import annotations

from pathlib import Path

from tests.harness import config_for, router, scrape, sdk, simulator
from tests.shadow.shadow_status import chats, shadow_counts, until

MATH = [{"role": "user", "content": "Compute 17 * 23."}]  # math: the cloud first
CHOICE = {"structured_outputs": {"choice": ["391", "392"]}}
DROPPED = "smf_router_shadow_dropped_total"


def test_a_constrained_request_is_not_replayed_on_the_cloud(tmp_path: Path) -> None:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        shadow = {"rates": {"math": 1.0}, "allow_cloud_targets": True}
        config = config_for({"local": local, "cloud": cloud}, tmp_path, shadow=shadow)
        with router(config) as r:
            client = sdk(r)
            for _ in range(2):
                served = client.chat.completions.with_raw_response.create(
                    model="auto",
                    messages=MATH,  # type: ignore[arg-type]
                    extra_body=CHOICE,
                )
                assert served.headers["x-smf-backend"] == "local"
            until(lambda: shadow_counts(r).get("dropped_vllm_fields", 0) == 2)
            assert chats(cloud) == 0
            assert scrape(r.root).get(DROPPED, reason="vllm_fields") == 2
            # without it the same ask is the cloud's, and its shadow goes to local
            plain = client.chat.completions.with_raw_response.create(
                model="auto",
                messages=MATH,  # type: ignore[arg-type]
            )
            assert plain.headers["x-smf-backend"] == "cloud"
            until(lambda: shadow_counts(r).get("compared", 0) == 1)
        assert chats(cloud) == 1
