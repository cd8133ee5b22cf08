"""A route's name goes back to the client in the `x-smf-route` header, so it is refused at
load (start, `config check`, reload) unless a header can carry it; an alias or a `model`
the client sends is never put in a header. The official `openai` SDK against a real router
with simulated backends, and `smf-router config check` as a subprocess."""

from __future__ import annotations

from pathlib import Path

import httpx
import openai
import pytest

from classifier.intent import INTENTS
from router import reload
from router.config import ConfigError, load
from tests.harness import Running, config_for, router
from tests.router.config_files import GOOD, config_check, write

ROUTES = "routes:\n" + "".join(f"  {intent}: [local, cloud]\n" for intent in INTENTS)
ASK = [{"role": "user", "content": "Write a haiku about rain."}]


@pytest.mark.parametrize(
    ("key", "said"),
    [
        ('"快速"', "routes.快速 (line 24)"),
        ("Fast", "routes.Fast (line 24)"),
        ('"my route"', "routes.my route"),
        ('"line\\nbreak"', "routes.'line\\nbreak'"),
    ],
)
def test_a_route_name_no_header_can_carry_as_written_is_refused(
    tmp_path: Path, key: str, said: str
) -> None:
    """`"快速": [cloud]` loaded, and every request on it was answered and billed by the
    backend, then failed to encode as the x-smf-route header: a plain-text 500 and a
    `router_error` in the ledger; `"line\\nbreak"` gave an empty reply the ledger called
    a 200 (found in review)."""
    path = write(tmp_path, GOOD + ROUTES + f"  {key}: [cloud]\n")
    with pytest.raises(ConfigError) as info:
        load(path, env={})
    assert f"{said}: a route's name is sent back in the x-smf-route header" in str(info.value)
    done = config_check(path)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr


def test_a_default_route_or_alias_naming_such_a_route_is_refused_at_the_route(
    tmp_path: Path,
) -> None:
    """The review's second file sent low-confidence requests to `default_route: "快速"`."""
    text = GOOD + ROUTES + '  "快速": [cloud]\nclassifier: {default_route: "快速"}\n'
    with pytest.raises(ConfigError, match=r"routes\.快速 \(line 24\): a route's name"):
        load(write(tmp_path, text + 'aliases: {auto: auto, "别名": "快速"}\n'), env={})


def test_a_reload_naming_such_a_route_is_rejected_and_the_old_routes_stay(
    backends: dict[str, Running], tmp_path: Path
) -> None:
    with router(config_for(backends, tmp_path)) as proxy:
        reload.reloader_of(proxy.components).source = write(
            tmp_path, GOOD + ROUTES + '  "快速": [cloud]\n'
        )
        rejected = httpx.post(f"{proxy.url}/router/reload", timeout=60)
        assert rejected.status_code == 400, rejected.text
        message = rejected.json()["error"]["message"]
        assert "routes.快速 (line 24): a route's name" in message
        assert "快速" not in proxy.components.config.routes


@pytest.mark.parametrize("model", ["快速", "café", "line\nbreak"])
def test_an_unknown_model_no_header_can_carry_is_an_openai_404_without_it_in_a_header(
    client: openai.OpenAI, model: str
) -> None:
    """The client's `model` names no route, alias or backend: the 404 says so in the body,
    never in a header (where `快速` could not be written at all, and `café` would be a
    header no one asked for)."""
    with pytest.raises(openai.NotFoundError) as info:
        client.chat.completions.create(model=model, messages=ASK)  # type: ignore[arg-type]
    error = info.value.body
    assert isinstance(error, dict) and error["param"] == "model"
    assert error["code"] == "model_not_found"
    forms = {model.encode("utf-8")} | ({model.encode("latin-1")} if model == "café" else set())
    assert not [v for _, v in info.value.response.headers.raw if any(f in v for f in forms)]
    assert info.value.response.headers["content-type"].startswith("application/json")


def test_an_alias_any_client_name_is_served_with_its_route_in_the_header(
    backends: dict[str, Running], tmp_path: Path
) -> None:
    """An alias is the client's model name (`Qwen/Qwen2.5-7B-Instruct`, `别名`): it is read
    only to find its route, whose name is what the header carries."""
    config = config_for(
        backends,
        tmp_path,
        aliases={"auto": "auto", "别名": "coding", "Qwen/Qwen2.5-7B-Instruct": "local"},
    )
    with router(config) as running:
        client = openai.OpenAI(base_url=running.url, api_key="none", max_retries=0)
        raw = client.chat.completions.with_raw_response.create(model="别名", messages=ASK)  # type: ignore[arg-type]
        assert raw.headers["x-smf-route"] == "coding"
        raw = client.chat.completions.with_raw_response.create(
            model="Qwen/Qwen2.5-7B-Instruct",
            messages=ASK,  # type: ignore[arg-type]
        )
        assert raw.headers["x-smf-route"] == "local"
        assert raw.headers["x-smf-backend"] == "local"
