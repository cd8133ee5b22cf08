"""A backend on OpenAI's own API claims `/v1/completions` only for a completions model.

Every backend defaulted to `apis: [chat, completions]`, so the built-in config's cloud
(gpt-4o-mini on api.openai.com) claimed completions, and a prose `/v1/completions` request
(SillyTavern's Text Completion mode, found live; Continue's autocomplete sends them too) went
to it first: OpenAI answers a chat model's with a 404, which the router took for a refusal of
its settings, logged as one and counted against the cloud's circuit before falling back to
local. Now such a backend's default is `[chat]`, and the request goes to local without a try
at the cloud; a given `apis` still wins. Azure OpenAI keeps `[chat, completions]`: its `model`
is a deployment's name, which does not say whether it serves completions. Through the real
app, the cloud's settings loaded for OpenAI's own API (or Azure's), its requests sent to the
cloud simulator, which refuses a chat model's completions in OpenAI's words.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from router.config import parse
from router.config_backend import Backend
from router.default_config import from_environment
from tests.harness import Running, RunningRouter, router, sdk, simulator
from tests.resilience.conftest import ledger_row
from tests.router.env_config_check import config_check

OPENAI = "https://api.openai.com/v1"
AZURE = "https://res.openai.azure.com/openai/v1"
PROSE = "Write a haiku about rain"  # prose: the cloud first ([cloud, local])
COMPLETIONS = "/v1/completions"


@pytest.fixture(scope="module")
def sims() -> Iterator[dict[str, Running]]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="gpt-4o-mini") as cloud,
        simulator(profile="cloud", model="gpt-35-turbo-instruct") as azure,
    ):
        yield {"local": local, "cloud": cloud, "azure": azure}


def _built_in(sims: dict[str, Running], tmp: Path, **cloud: Any) -> dict[str, Any]:
    """The built-in config (`default_config.from_environment`) with local on its simulator,
    its cloud's settings (`cloud` over them, as a file would give them) as loaded for
    OpenAI's own API."""
    env = {"SMF_LOCAL_URL": sims["local"].url, "SMF_LOCAL_MODEL": "local-model"}
    data = from_environment(env).model_dump()
    del data["backends"][1]["apis"]  # the default's, which `cloud` may change
    data["backends"][1] |= cloud
    data["ledger"] = {"path": str(tmp / "ledger"), "flush_interval_s": 0.2}
    data["resilience"] = {"enabled": False}
    return parse(data).model_dump()


@contextmanager
def _served_by(
    sims: dict[str, Running], loaded: dict[str, Any], base_url: str = OPENAI, sim: str = "cloud"
) -> Iterator[RunningRouter]:
    """The router over `loaded`, the cloud's requests (to `base_url`) going to the simulator
    `sim` instead."""
    assert loaded["backends"][1]["base_url"] == base_url
    loaded["backends"][1]["base_url"] = sims[sim].url
    with router(parse(loaded)) as running:
        yield running


def _complete(running: RunningRouter, rid: str) -> Any:
    return sdk(running).completions.with_raw_response.create(
        model="auto", prompt=PROSE, max_tokens=5, extra_headers={"x-request-id": rid}
    )


def test_a_prose_completions_request_goes_to_local_past_the_default_openai_cloud(
    sims: dict[str, Running], tmp_path: Path
) -> None:
    cloud = sims["cloud"]
    with _served_by(sims, _built_in(sims, tmp_path)) as running:
        before = cloud.completions(COMPLETIONS)
        raw = _complete(running, "text-completion")
        assert (raw.headers["x-smf-intent"], raw.headers["x-smf-backend"]) == ("prose", "local")
        assert raw.parse().choices[0].text
        assert cloud.completions(COMPLETIONS) == before  # never sent there, never refused
        row = ledger_row(running, "text-completion", ("attempts",))
        assert row is not None
        assert row["attempts"] == [("cloud", "skipped", "api_unsupported"), ("local", "ok", None)]
        chat = sdk(running).chat.completions.with_raw_response.create(
            model="auto", messages=[{"role": "user", "content": PROSE}], max_tokens=5
        )
        assert chat.headers["x-smf-backend"] == "cloud"  # chat it serves as before


def test_apis_given_for_the_openai_cloud_still_claim_completions(
    sims: dict[str, Running], tmp_path: Path
) -> None:
    """`apis: [chat, completions]` in the file is the operator's word: the cloud is tried
    first, and its 404 falls back to local."""
    cloud = sims["cloud"]
    data = _built_in(sims, tmp_path, apis=["chat", "completions"])
    with _served_by(sims, data) as running:
        before = cloud.completions(COMPLETIONS)
        raw = _complete(running, "declared")
        assert raw.headers["x-smf-backend"] == "local"
        assert cloud.completions(COMPLETIONS) == before + 1
        row = ledger_row(running, "declared", ("attempts",))
        assert row is not None
        assert row["attempts"] == [("cloud", "error", "backend_refused"), ("local", "ok", None)]


def test_a_prose_completions_request_goes_to_an_azure_instruct_deployment(
    sims: dict[str, Running], tmp_path: Path
) -> None:
    """Azure OpenAI keeps `[chat, completions]`: its deployment of gpt-3.5-turbo-instruct,
    in Azure's spelling, serves the request (found in review: it went to local, the
    deployment never asked)."""
    azure = sims["azure"]
    deployment = {"base_url": AZURE, "model": "gpt-35-turbo-instruct"}
    with _served_by(sims, _built_in(sims, tmp_path, **deployment), AZURE, "azure") as running:
        before = azure.completions(COMPLETIONS)
        raw = _complete(running, "azure-instruct")
        assert (raw.headers["x-smf-intent"], raw.headers["x-smf-backend"]) == ("prose", "cloud")
        assert raw.parse().choices[0].text
        assert azure.completions(COMPLETIONS) == before + 1


def _apis(**backend: Any) -> list[str] | None:
    """The backend's effective `apis`, None when its settings do not load."""
    settings = {"name": "b", "tier": "cloud", "model": "gpt-4o-mini", **backend}
    try:
        return list(Backend.model_validate(settings).apis)
    except ValidationError as error:
        assert [e["loc"] for e in error.errors()] == [("base_url",)]
        return None


@pytest.mark.parametrize(
    ("backend", "apis"),
    [
        ({"base_url": OPENAI}, ["chat"]),
        ({"base_url": "https://api.openai.com/v1", "model": "gpt-5"}, ["chat"]),
        ({"base_url": OPENAI, "model": "gpt-3.5-turbo-instruct"}, ["chat", "completions"]),
        ({"base_url": OPENAI, "model": "gpt-3.5-turbo-instruct-0914"}, ["chat", "completions"]),
        ({"base_url": OPENAI, "model": "davinci-002"}, ["chat", "completions"]),
        ({"base_url": OPENAI, "model": "ft:babbage-002:org::id"}, ["chat", "completions"]),
        ({"base_url": OPENAI, "model": "gpt-35-turbo-instruct"}, ["chat", "completions"]),
        ({"base_url": "https://API.OpenAI.com/v1"}, ["chat"]),
        ({"base_url": "http://[::1/v1"}, None),  # `base_url`'s own error, not a traceback
        ({"base_url": OPENAI, "apis": ["chat", "completions"]}, ["chat", "completions"]),
        ({"base_url": OPENAI, "apis": ["chat", "responses"]}, ["chat", "responses"]),
        ({"base_url": "https://api.together.xyz/v1"}, ["chat", "completions"]),
        ({"base_url": "http://spark:8888/v1"}, ["chat", "completions"]),
        ({"kind": "litellm", "model": "openai/gpt-4o-mini"}, ["chat"]),
    ],
)
def test_the_default_apis_of_a_backend(backend: dict[str, Any], apis: list[str] | None) -> None:
    assert _apis(**backend) == apis


@pytest.mark.parametrize(
    "model",
    [
        "gpt-35-turbo-instruct",  # Azure's name for gpt-3.5-turbo-instruct
        "gpt-3.5-turbo-instruct",
        "prod-autocomplete",  # a deployment's name says nothing of its model
        "gpt-4o-mini",  # nor does one named after a chat model: it may not be one
    ],
)
def test_an_azure_deployment_keeps_completions(model: str) -> None:
    """On Azure OpenAI `model` is a deployment's name, any name its owner chose: whether it
    serves `/v1/completions` cannot be read from it, so Azure keeps the usual default, and an
    instruct deployment does not lose the API (found in review)."""
    assert _apis(base_url=AZURE, model=model) == ["chat", "completions"]
    assert _apis(base_url=AZURE, model=model, apis=["chat"]) == ["chat"]


def test_config_check_shows_the_effective_apis(tmp_path: Path) -> None:
    text = (
        "backends:\n"
        "  - {name: local, tier: local, base_url: 'http://localhost:8888/v1', model: m}\n"
        f"  - {{name: cloud, tier: cloud, base_url: '{OPENAI}', model: gpt-4o-mini}}\n"
    )
    done = config_check(tmp_path, text, {})
    assert done.returncode == 0, done.stderr
    shown = {b["name"]: b["apis"] for b in yaml.safe_load(done.stdout)["backends"]}
    assert shown == {"local": ["chat", "completions"], "cloud": ["chat"]}


def test_the_demo_cloud_claims_no_completions() -> None:
    """It plays OpenAI, whose gpt-4o refuses them (the simulator's cloud profile too)."""
    from router.default_config import demo

    config = demo("http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1")
    assert config.backend("cloud").apis == ["chat"]
