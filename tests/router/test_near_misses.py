"""What a newcomer gets wrong by a character: a key sent without `Bearer `, a trailing slash
on `/v1/models` (found in a fresh-clone review). Each answer says what was meant."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from router.config import hash_key
from tests.harness import RunningRouter, config_for, router, simulator

KEY = "sk-alice"


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningRouter]:
    tmp = tmp_path_factory.mktemp("near_misses")
    with simulator(profile="vllm", model="local-model") as local:
        keys = [{"name": "alice", "sha256": hash_key(KEY)}]
        with router(config_for({"local": local}, tmp, auth={"keys": keys})) as running:
            yield running


@pytest.mark.parametrize(
    ("authorization", "says"),
    [
        (KEY, "the Authorization header has no 'Bearer ' before the key"),
        (f"Token {KEY}", "the Authorization header has no 'Bearer ' before the key"),
        ("Bearer", "missing API key"),
        ("", "missing API key"),
    ],
)
def test_a_key_without_bearer_is_told_so_and_never_quoted(
    proxy: RunningRouter, authorization: str, says: str
) -> None:
    headers = {"authorization": authorization} if authorization else {}
    answer = httpx.get(f"{proxy.url}/models", headers=headers, timeout=10)
    assert answer.status_code == 401
    error = answer.json()["error"]
    assert error["message"].startswith(says)
    assert "send 'Authorization: Bearer <key>'" in error["message"]
    assert KEY not in answer.text


def test_the_key_with_bearer_still_serves(proxy: RunningRouter) -> None:
    answer = httpx.get(f"{proxy.url}/models", headers={"authorization": f"Bearer {KEY}"})
    assert answer.status_code == 200


def test_models_with_a_trailing_slash_is_redirected_to_the_list(proxy: RunningRouter) -> None:
    """It answered "The model `` does not exist"; `/v1/chat/completions/` gets a 307."""
    bearer = {"authorization": f"Bearer {KEY}"}
    moved = httpx.get(f"{proxy.url}/models/", headers=bearer, timeout=10)
    assert moved.status_code == 307
    assert moved.headers["location"] == f"{proxy.url}/models"
    listed = httpx.get(f"{proxy.url}/models/", headers=bearer, follow_redirects=True)
    assert listed.status_code == 200 and "auto" in [m["id"] for m in listed.json()["data"]]
    one = httpx.get(f"{proxy.url}/models/local", headers=bearer, timeout=10)
    assert one.status_code == 200 and one.json()["id"] == "local"
