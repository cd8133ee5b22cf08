"""A backend whose server does not list its configured model is said once at start, and
shown in the status: vLLM refuses such a name with a 404, and every local request went to
the paid cloud with nothing said (found in a fresh-clone review)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from router import reload
from router.capacity import ModelList, unlisted
from router.config import parse
from tests.harness import Running, config_for, router, simulator
from tests.resilience.conftest import FAST, backend_state, until, write

LAGUNA = "poolside/Laguna-S-2.1-NVFP4"
QUICK = {**FAST, "models_refresh_s": 0.1}  # `/v1/models` read again every capacity poll


def model_reads(server: Running, path: str = "/v1/models") -> int:
    return int(server.stats()["by_path"].get(path, 0))


def after_more_reads(server: Running, n: int, path: str = "/v1/models") -> None:
    """Until the router has read `server`'s model list (`path`) `n` more times: a warning
    said on every read would be said again by then."""
    target = model_reads(server, path) + n
    until(lambda: model_reads(server, path) >= target, what=f"{n} more {path} reads")


def laguna_config(local: Running, cloud: Running, tmp_path: Path, model: str) -> dict[str, Any]:
    data = config_for({"local": local, "cloud": cloud}, tmp_path, resilience=QUICK)
    dumped = data.model_dump(mode="json")
    dumped["backends"][0]["model"] = model
    return dumped


def warnings_about(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and text in r.getMessage()
    ]


def test_a_model_the_server_does_not_list_is_warned_once_and_shown_in_the_status(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        simulator(profile="vllm", model=LAGUNA) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = laguna_config(local, cloud, tmp_path, "Qwen/Qwen3-8B")
        with caplog.at_level(logging.INFO), router(parse(data)) as proxy:
            until(lambda: backend_state(proxy.root, "local")["model_warning"] is not None)
            after_more_reads(local, 3)
            shown = backend_state(proxy.root, "local")["model_warning"]
            assert "'Qwen/Qwen3-8B'" in shown and f"'{LAGUNA}'" in shown
            assert backend_state(proxy.root, "cloud")["model_warning"] is None
            (said,) = warnings_about(caplog, "Qwen/Qwen3-8B")
            assert said == f"backend 'local': {shown}"
            # the operator fixes the name: said once, and the status clears
            reload.reloader_of(proxy.components).source = write(
                tmp_path / "router.yaml",
                {
                    **data,
                    "backends": [{**data["backends"][0], "model": LAGUNA}, data["backends"][1]],
                },
            )
            assert httpx.post(f"{proxy.url}/router/reload").status_code == 200
            until(lambda: any("lists model" in r.getMessage() for r in caplog.records))
            after_more_reads(local, 3)
            assert backend_state(proxy.root, "local")["model_warning"] is None
        assert len(warnings_about(caplog, "Qwen/Qwen3-8B")) == 1


def test_the_served_model_gives_no_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        simulator(profile="vllm", model=LAGUNA) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = laguna_config(local, cloud, tmp_path, LAGUNA)
        with caplog.at_level(logging.INFO), router(parse(data)) as proxy:
            after_more_reads(local, 3)
            assert backend_state(proxy.root, "local")["model_warning"] is None
    assert not [r for r in caplog.records if "model" in r.getMessage() and "list" in r.getMessage()]


def test_a_base_url_without_v1_is_warned_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        simulator(profile="vllm", model=LAGUNA) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        data = laguna_config(local, cloud, tmp_path, LAGUNA)
        data["backends"][0]["base_url"] = local.root  # http://127.0.0.1:PORT, no /v1
        with caplog.at_level(logging.INFO), router(parse(data)) as proxy:
            until(lambda: backend_state(proxy.root, "local")["model_warning"] is not None)
            after_more_reads(local, 3, "/models")  # a base_url without /v1 reads /models
        (said,) = warnings_about(caplog, "may lack `/v1`")
        assert said.startswith("backend 'local': its GET /models answered 404")


@pytest.mark.parametrize(
    ("listing", "expected"),
    [
        (ModelList(200, [{"id": "m"}]), None),
        (ModelList(200, [{"id": "a"}, {"id": "m"}]), None),
        (ModelList(401), None),  # a refused key says nothing of the model
        (ModelList(500), None),
        (ModelList(200), None),  # no cards in the body
        (ModelList(200, []), "(it serves none)"),
        (ModelList(200, [{"id": "other"}]), "(it serves 'other')"),
        (ModelList(404), "may lack `/v1`"),
    ],
)
def test_unlisted_reads_the_models_answer(listing: ModelList, expected: str | None) -> None:
    found = unlisted("m", listing)
    assert found is None if expected is None else (found is not None and expected in found)


@pytest.mark.parametrize(
    ("base_url", "warned"),
    [
        ("http://box:8000", True),
        ("http://box:8000/", True),
        ("http://box:8000/v1", False),  # a /v1 server that lists no models: nothing to say
        ("http://box:8000/v1/", False),
        ("https://r.openai.azure.com/openai/deployments/gpt4?api-version=2024-10-21", False),
    ],
)
def test_a_404_model_list_suggests_v1_only_where_it_is_missing(base_url: str, warned: bool) -> None:
    """The 404 warning claimed every such base_url "probably lacks /v1" and that its
    requests "will fail", for a URL ending in /v1 or a deployment-scoped one too (found in
    review)."""
    found = unlisted("m", ModelList(404), base_url)
    assert (found is not None and "may lack `/v1`" in found) if warned else found is None


def test_unlisted_names_a_few_served_ids_each_bounded() -> None:
    cards = [{"id": "x" * 5000}, *({"id": f"model-{i}"} for i in range(300)), {"id": 7}]
    found = unlisted("m", ModelList(200, cards))
    assert found is not None
    assert "'" + "x" * 100 + "'," in found and "x" * 101 not in found
    assert "'model-3' and 296 more" in found
    assert len(found) < 1000
