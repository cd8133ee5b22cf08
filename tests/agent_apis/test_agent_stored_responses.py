"""A Responses turn that continues a stored one (`previous_response_id`) goes back to the
backend that stored it, whatever its new input's intent or the route: both simulators
store what they answer and refuse an id they never made, as vLLM (404) and OpenAI (400) do.
Routed by its new input alone, turn 2 reached the backend that never saw turn 1 and the
client got its refusal (found in review). The official `openai` SDK against a real router.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
import yaml

from router import reload
from router.config import Config, hash_key, parse
from tests.agent_apis.agent_stack import openai_client
from tests.agent_apis.stored_stack import backends, seeded
from tests.harness import Running, RunningRouter, collected, router

MATH = "Compute the integral of x^2 from 0 to 3 and show each step."  # the cloud's intent
CODE = "Write a Python function that reverses a linked list and add unit tests for it."
FOLLOW_CODE = "Now write a Python function that computes that integral numerically."
FOLLOW_MATH = "Now compute the derivative of x^3 + 2x and prove the product rule."


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Running]]:
    with seeded(1) as running:
        yield running


def stack_config(
    servers: dict[str, Running], tmp: Path, cloud_apis: tuple[str, ...] = ("chat", "responses")
) -> Config:
    """Both backends speak Responses natively (unless `cloud_apis` says otherwise); coding
    goes local first, math cloud first."""
    apis = {"local": ["chat", "responses"], "cloud": list(cloud_apis)}
    local_first, cloud_first = ["local", "cloud"], ["cloud", "local"]
    return parse(
        {
            "backends": backends(servers, apis),
            "routes": {
                "coding": local_first,
                "tool_calling": local_first,
                "instruction": local_first,
                "math": cloud_first,
                "reasoning": cloud_first,
                "prose": cloud_first,
                "writing": cloud_first,
            },
            "ledger": {"path": str(tmp / "ledger")},
            "resilience": {"enabled": False},
        }
    )


@pytest.fixture(scope="module")
def proxy(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    with router(stack_config(servers, tmp_path_factory.mktemp("stored"))) as running:
        yield running


def test_a_coding_follow_up_of_a_cloud_answer_stays_on_the_cloud(proxy: RunningRouter) -> None:
    sdk = openai_client(proxy)
    first = sdk.responses.with_raw_response.create(model="auto", input=MATH)
    assert first.headers["x-smf-backend"] == "cloud"
    second = sdk.responses.with_raw_response.create(
        model="auto", input=FOLLOW_CODE, previous_response_id=first.parse().id
    )
    assert second.headers["x-smf-backend"] == "cloud"  # was local, and its 404
    assert second.headers["x-smf-attempts"] == "1"
    assert second.parse().output_text


def test_a_math_follow_up_of_a_streamed_local_answer_stays_local(proxy: RunningRouter) -> None:
    sdk = openai_client(proxy)
    events = list(sdk.responses.create(model="auto", input=CODE, stream=True))
    assert events[-1].type == "response.completed"
    turn1 = events[-1].response.id  # type: ignore[union-attr]
    ask = {"model": "auto", "input": FOLLOW_MATH, "previous_response_id": turn1}
    explained = httpx.post(f"{proxy.url}/router/explain", json={"api": "responses", **ask})
    assert explained.status_code == 200, explained.text
    assert explained.json()["intent"]["label"] == "math"
    assert [b["backend"] for b in explained.json()["backends"]] == ["local"]
    assert explained.json()["skipped"] == [{"backend": "cloud", "reason": "response_elsewhere"}]
    second = sdk.responses.with_raw_response.create(
        model="auto", input=FOLLOW_MATH, previous_response_id=turn1
    )
    assert second.headers["x-smf-backend"] == "local"  # was the cloud, and its 400
    third = sdk.responses.with_raw_response.create(
        model="auto", input=FOLLOW_MATH, previous_response_id=second.parse().id
    )
    assert third.headers["x-smf-backend"] == "local"


@pytest.mark.parametrize(
    ("ask", "backend", "error"),
    [(CODE, "local", openai.NotFoundError), (MATH, "cloud", openai.BadRequestError)],
)
def test_an_unknown_id_is_routed_as_before_and_its_refusal_names_the_backend(
    proxy: RunningRouter, ask: str, backend: str, error: type[openai.APIStatusError]
) -> None:
    """The backend's own 4xx passes through, and `x-smf-backend` says whose it is (it was
    empty: the record names a backend only once one served)."""
    with pytest.raises(error) as refused:
        openai_client(proxy).responses.create(
            model="auto", input=ask, previous_response_id="resp_gone"
        )
    assert "resp_gone" in refused.value.message
    assert refused.value.response.headers["x-smf-backend"] == backend
    assert refused.value.response.headers["x-smf-attempts"] == "1"  # no fallback


def test_a_private_turn_continuing_a_cloud_response_is_refused_never_sent(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    sdk = openai_client(proxy)
    turn1 = sdk.responses.create(model="auto", input=MATH).id
    before = {name: s.stats()["by_path"].get("/v1/responses", 0) for name, s in servers.items()}
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.responses.create(
            model="auto",
            input=FOLLOW_CODE,
            previous_response_id=turn1,
            extra_headers={"x-smf-private": "1"},
        )
    assert refused.value.param == "previous_response_id"
    assert "'cloud', a cloud backend" in refused.value.message
    assert "x-smf-backend" not in refused.value.response.headers  # none was tried
    after = {name: s.stats()["by_path"].get("/v1/responses", 0) for name, s in servers.items()}
    assert after == before


def test_a_response_not_stored_pins_nothing(proxy: RunningRouter) -> None:
    """`store: false`: nothing to continue, and nothing to remember."""
    sdk = openai_client(proxy)
    turn1 = sdk.responses.create(model="auto", input=MATH, store=False).id
    with pytest.raises(openai.NotFoundError):  # routed as before: local, which refuses it
        sdk.responses.create(model="auto", input=FOLLOW_CODE, previous_response_id=turn1)
    assert len(proxy.components.gateway.stored) >= 1  # the other tests' turns, not this one
    from router.stored_responses import key  # ids are each caller's own

    assert proxy.components.gateway.stored.table.get(key("anonymous", turn1)) is None


def test_store_as_a_string_is_refused_not_read_as_stored(proxy: RunningRouter) -> None:
    """OpenAI refuses `store: "false"`; the router remembered it as stored."""
    with pytest.raises(openai.BadRequestError) as refused:
        openai_client(proxy).responses.create(
            model="auto", input=MATH, extra_body={"store": "false"}
        )
    assert refused.value.body["param"] == "store"  # type: ignore[index]


def test_a_reload_keeps_where_the_responses_live(
    servers: dict[str, Running], tmp_path: Path
) -> None:
    """A reload builds a new gateway: it takes the table over, resized, not a new one."""
    config = stack_config(servers, tmp_path)
    reloaded = config.model_dump(mode="json")
    reloaded["resilience"]["sticky_max_entries"] = 10
    path = tmp_path / "router.yaml"
    path.write_text(yaml.safe_dump(reloaded))
    with router(config) as proxy:
        reload.reloader_of(proxy.components).source = path
        sdk = openai_client(proxy)
        turn1 = sdk.responses.create(model="auto", input=MATH).id
        assert httpx.post(f"{proxy.url}/router/reload", timeout=60).status_code == 200
        assert proxy.components.gateway.stored.table.max_entries == 10
        assert proxy.components.gateway.stored.owners.max_entries == 10  # bounded alike
        second = sdk.responses.with_raw_response.create(
            model="auto", input=FOLLOW_CODE, previous_response_id=turn1
        )
        assert second.headers["x-smf-backend"] == "cloud"


@pytest.fixture(scope="module")
def over_chat(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    """The cloud speaks chat only: the router serves Responses there by translation."""
    config = stack_config(servers, tmp_path_factory.mktemp("chat"), cloud_apis=("chat",))
    with router(config) as running:
        yield running


def sent(servers: dict[str, Running]) -> dict[str, dict[str, int]]:
    return {name: dict(s.stats()["by_path"]) for name, s in servers.items()}


@pytest.mark.parametrize("follow", [FOLLOW_MATH, FOLLOW_CODE])
def test_a_response_the_router_made_over_chat_is_continued_whole_never_by_its_id(
    over_chat: RunningRouter, servers: dict[str, Running], follow: str
) -> None:
    """Its id is the router's own: no backend holds it. Sent on, a math follow-up reached the
    cloud, whose translation refused it as a 400 naming the cloud and counted as its
    attempt; a coding one reached local, whose 404 said only "not found" (found in review);
    then it was a 400 before anything was sent. The router keeps what it made and tells the
    conversation whole (`router.stored_items`): whichever backend the follow-up's intent
    leads to serves it, chat (the cloud) or Responses (local), and neither gets the id."""
    sdk = openai_client(over_chat)
    first = sdk.responses.with_raw_response.create(model="auto", input=MATH)
    assert first.headers["x-smf-backend"] == "cloud"
    records = collected(over_chat)
    second = sdk.responses.with_raw_response.create(
        model="auto", input=follow, previous_response_id=first.parse().id
    )
    backend = second.headers["x-smf-backend"]
    assert backend == ("local" if follow == FOLLOW_CODE else "cloud")
    body = servers[backend].stats()["last_request"]
    assert "previous_response_id" not in body
    told = body["input"] if backend == "local" else body["messages"]
    assert len(told) == 3  # the ask, its answer, the follow-up
    (record,) = records.records
    assert record.status == 200 and record.backend == backend


@pytest.mark.parametrize(
    "stateful", [{"previous_response_id": "resp_gone"}, {"conversation": "conv_68a1f0c2"}]
)
def test_server_state_goes_to_a_backend_speaking_responses_never_through_chat(
    over_chat: RunningRouter, stateful: dict[str, str]
) -> None:
    """A math turn goes cloud first, but the cloud speaks chat only: translation refused
    `previous_response_id` there (a 400 counted against the cloud) and dropped
    `conversation` without a word (answered with none of the conversation, found in review).
    Both go to local, which speaks Responses itself: its own answer, or its 404."""
    ask = {"model": "auto", "input": MATH, **stateful}
    explained = httpx.post(f"{over_chat.url}/router/explain", json={"api": "responses", **ask})
    assert explained.json()["skipped"] == [{"backend": "cloud", "reason": "api_unsupported"}]
    answer = httpx.post(f"{over_chat.url}/responses", json=ask, timeout=30)
    assert answer.headers["x-smf-backend"] == "local"
    assert answer.headers["x-smf-attempts"] == "1"
    assert answer.status_code == (404 if "previous_response_id" in stateful else 200)


CALLERS = {"alice": "key-a", "bob": "key-b", "pat": "key-p"}


@pytest.fixture(scope="module")
def callers(
    servers: dict[str, Running], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningRouter]:
    config = stack_config(servers, tmp_path_factory.mktemp("callers")).model_dump(mode="json")
    config["auth"] = {
        "keys": [
            {"name": name, "sha256": hash_key(secret), "private": name == "pat"}
            for name, secret in CALLERS.items()
        ]
    }
    with router(parse(config)) as running:
        yield running


NOT_FOUND = {  # OpenAI's error for an id it does not hold (its status is 400 there)
    "type": "invalid_request_error",
    "param": "previous_response_id",
    "code": "previous_response_not_found",
}


def test_another_callers_response_id_is_refused_never_sent(
    callers: RunningRouter, servers: dict[str, Running]
) -> None:
    """bob, naming alice's id, was routed as for an id the router did not know: to the
    backend holding it, which knows no callers and continued alice's conversation for him
    (found in review). Now OpenAI's 400 for an id it does not hold, naming no one, and
    nothing is sent; alice's own turn still continues it where it lives."""
    sdks = {
        name: openai.OpenAI(base_url=callers.url, api_key=secret, max_retries=0)
        for name, secret in CALLERS.items()
    }
    for ask, home in ((CODE, "local"), (MATH, "cloud")):
        first = sdks["alice"].responses.with_raw_response.create(model="auto", input=ask)
        assert first.headers["x-smf-backend"] == home
        turn1 = first.parse().id
        before = sent(servers)
        for name in ("bob", "pat"):  # pat: private, never told where a response lives
            with pytest.raises(openai.BadRequestError) as refused:
                sdks[name].responses.create(model="auto", input=ask, previous_response_id=turn1)
            message = f"Previous response with id '{turn1}' not found."
            assert refused.value.response.json() == {"error": {**NOT_FOUND, "message": message}}
            assert not refused.value.response.headers.get("x-smf-backend")  # none was tried
        assert sent(servers) == before
        second = sdks["alice"].responses.with_raw_response.create(
            model="auto", input=ask, previous_response_id=turn1
        )
        assert second.status_code == 200
        assert second.headers["x-smf-backend"] == home
