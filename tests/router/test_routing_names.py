"""How a refusal names what the client sent and what it may send instead: an unknown `model`
or `x-smf-route` is offered the names `GET /v1/models` lists (aliases included), a header's
UTF-8 is read and quoted as written, and a private request's refusal names the header that
chose its target. The official `openai` SDK against a real router with simulated backends."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from router.config import parse
from tests.harness import Running, RunningRouter, config_for, router

ASK = [{"role": "user", "content": "Write a Python function that reverses a list"}]
ALIASES = {
    "auto": "auto",
    "gpt-4o": "auto",
    "smart": "math",
    "Qwen/Qwen2.5-7B-Instruct": "local",
    "快速": "local",
}
C1 = [chr(c) for c in range(0x80, 0xA0)]  # what UTF-8 read as Latin-1 is quoted with


@pytest.fixture(scope="module")
def aliased(
    backends: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    config = config_for(backends, tmp_path_factory.mktemp("aliased"), aliases=ALIASES)
    with router(config) as running:
        yield running


@pytest.fixture
def sdk(aliased: RunningRouter) -> openai.OpenAI:
    return openai.OpenAI(base_url=aliased.url, api_key="none", max_retries=0)


@contextmanager
def sending(url: str, raw: dict[str, bytes]) -> Iterator[openai.OpenAI]:
    """The SDK, sending header values as these bytes: as curl sends what is typed (UTF-8),
    or any other. The SDK's own `extra_headers` take ASCII only."""

    def put(request: httpx.Request) -> None:
        request.headers.encoding = "iso-8859-1"  # a byte for each character: the bytes given
        for name, value in raw.items():
            request.headers[name] = value.decode("latin-1")

    with httpx.Client(event_hooks={"request": [put]}) as http:
        yield openai.OpenAI(base_url=url, api_key="none", max_retries=0, http_client=http)


def error(info: pytest.ExceptionInfo[openai.APIStatusError]) -> dict[str, Any]:
    body = info.value.body
    assert isinstance(body, dict)
    return body


def _offered(message: str) -> list[str]:
    return message.split("use one of: ", 1)[1].split(", ")


def test_an_unknown_model_is_offered_every_name_models_lists(sdk: openai.OpenAI) -> None:
    """The list left out the aliases (`smart`, `gpt-4o`, `Qwen/...`), which `/v1/models`
    lists and `model` accepts (found in review)."""
    listed = [model.id for model in sdk.models.list()]
    assert "smart" in listed and "Qwen/Qwen2.5-7B-Instruct" in listed
    with pytest.raises(openai.NotFoundError) as info:
        sdk.chat.completions.create(model="gpt-5", messages=ASK)
    assert error(info)["param"] == "model"
    assert _offered(error(info)["message"]) == listed


def test_an_unknown_route_header_is_offered_every_name_models_lists(
    sdk: openai.OpenAI, backends: dict[str, Running]
) -> None:
    listed = [model.id for model in sdk.models.list()]
    before = {name: server.completions() for name, server in backends.items()}
    with pytest.raises(openai.BadRequestError) as info:
        sdk.chat.completions.create(
            model="auto", messages=ASK, extra_headers={"x-smf-route": "gpu"}
        )
    assert error(info)["param"] is None
    assert error(info)["message"].startswith("x-smf-route 'gpu' names no route or backend")
    assert _offered(error(info)["message"]) == listed
    assert {name: server.completions() for name, server in backends.items()} == before


def test_the_names_offered_are_bounded_and_say_where_the_rest_are(
    backends: dict[str, Running], tmp_path: Path
) -> None:
    """A config of 500 aliases: the refusal offers as many as fit, then says how many more
    and where they are listed."""
    aliases = {"auto": "auto", **{f"client-model-{i:03}": "auto" for i in range(500)}}
    with router(config_for(backends, tmp_path, aliases=aliases)) as running:
        client = openai.OpenAI(base_url=running.url, api_key="none", max_retries=0)
        listed = [model.id for model in client.models.list()]
        with pytest.raises(openai.NotFoundError) as info:
            client.chat.completions.create(model="gpt-5", messages=ASK)
    message = error(info)["message"]
    assert len(message) < 600
    offered, rest = message.split("use one of: ", 1)[1].split(", and ")
    shown = offered.split(", ")
    assert shown == listed[: len(shown)] and shown[0] == "auto"
    assert rest == f"{len(listed) - len(shown)} more (GET /v1/models lists them all)"


@pytest.mark.parametrize(
    ("sent", "quoted"),
    [
        ("慢速".encode(), "'慢速'"),  # curl's `-H 'x-smf-route: 慢速'`: UTF-8
        ("路由".encode() * 80, "'" + "路由" * 50 + "'"),  # bounded, as a long ASCII name is
        (b"caf\xe9", "'caf\\xe9'"),  # a byte that is not UTF-8: escaped
        ("a\u0085b".encode(), "'a\\x85b'"),  # a control character, though UTF-8: escaped
    ],
)
def test_a_route_header_is_quoted_as_the_client_wrote_it(
    aliased: RunningRouter, sent: bytes, quoted: str
) -> None:
    """Headers arrive read as Latin-1: `快速` was quoted as 'å¿«é\\x80\\x9f', control
    characters included (found in review)."""
    with (
        sending(aliased.url, {"x-smf-route": sent}) as client,
        pytest.raises(openai.BadRequestError) as info,
    ):
        client.chat.completions.create(model="auto", messages=ASK)
    message = error(info)["message"]
    assert message.startswith(f"x-smf-route {quoted} names no route or backend here; ")
    assert not any(c in message for c in C1)


def test_a_route_header_naming_an_alias_in_utf8_is_served_by_it(aliased: RunningRouter) -> None:
    """`快速`, offered by the refusal of an unknown name, was itself refused as a header."""
    with sending(aliased.url, {"x-smf-route": "快速".encode()}) as client:
        raw = client.chat.completions.with_raw_response.create(
            model="auto",
            messages=[{"role": "user", "content": "Compute 17 * 23."}],  # a cloud intent
        )
    assert raw.headers["x-smf-backend"] == "local"


def test_a_private_header_is_quoted_as_the_client_wrote_it(aliased: RunningRouter) -> None:
    with (
        sending(aliased.url, {"x-smf-private": "是".encode()}) as client,
        pytest.raises(openai.BadRequestError) as info,
    ):
        client.chat.completions.create(model="auto", messages=ASK)
    assert error(info)["message"].endswith(", not '是'")


def test_a_private_request_routed_to_the_cloud_by_its_header_names_the_header(
    sdk: openai.OpenAI, backends: dict[str, Running]
) -> None:
    """`model: auto` with `x-smf-route: cloud`: the 400 said `param: model` and "send it to
    a model with a local backend", of a model the client had left to the router (found in
    review). The header chose the target: leaving it out serves the request locally."""
    before = {name: server.completions() for name, server in backends.items()}
    private = {"x-smf-private": "1"}
    with pytest.raises(openai.BadRequestError) as info:
        sdk.chat.completions.create(
            model="auto", messages=ASK, extra_headers={**private, "x-smf-route": "cloud"}
        )
    assert error(info)["param"] is None
    assert error(info)["message"] == (
        "'cloud' has no local backend, and a private request may use the local tier only "
        "(cloud: private); leave out x-smf-route, or have it name a route with a local backend"
    )
    assert {name: server.completions() for name, server in backends.items()} == before
    raw = sdk.chat.completions.with_raw_response.create(
        model="auto", messages=ASK, extra_headers=private
    )
    assert raw.headers["x-smf-backend"] == "local"


def test_a_completions_request_routed_by_its_header_where_no_backend_speaks_it_names_it(
    backends: dict[str, Running], tmp_path: Path
) -> None:
    """The same of a target whose backends do not speak the request's API; `model` stays
    the field named where `model` chose the target."""
    data = config_for(backends, tmp_path).model_dump(mode="json")
    data["backends"][0]["apis"] = ["chat"]
    with router(parse(data)) as running:
        client = openai.OpenAI(base_url=running.url, api_key="none", max_retries=0)
        with pytest.raises(openai.BadRequestError) as header:
            client.completions.create(
                model="auto", prompt="Once", max_tokens=5, extra_headers={"x-smf-route": "local"}
            )
        with pytest.raises(openai.BadRequestError) as model:
            client.completions.create(model="local", prompt="Once", max_tokens=5)
    assert error(header)["param"] is None
    assert error(header)["message"].endswith(
        "leave out x-smf-route, or have it name a route whose backends speak it"
    )
    assert error(model)["param"] == "model"
    assert error(model)["message"].endswith("send it to a model whose backends speak it")


def test_explain_reads_a_utf8_route_header_as_serving_does(aliased: RunningRouter) -> None:
    body = {"model": "auto", "messages": ASK}
    reply = httpx.post(
        f"{aliased.root}/v1/router/explain", json=body, headers={"x-smf-route": "快速".encode()}
    )
    assert reply.status_code == 200 and reply.json()["backends"][0]["backend"] == "local"
