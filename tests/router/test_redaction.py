"""`router.redaction`: what of an upstream's error text a client may read, and the exact
values a backend's settings name as its secrets (`Backend.secret_values`).

The running router's side (every API, litellm, the canary) is in `test_error_secrets`.
"""

from __future__ import annotations

from typing import Any

import pytest

from router.backends.litellm import LiteLLMBackend
from router.config_backend import Backend
from router.errors import Rejected, ServerError
from router.redaction import MAX_DEPTH, redacted, redacted_body

KEY = "gw-7f3a9c2e1b5d-router-key"


@pytest.mark.parametrize(
    ("text", "secrets", "shown"),
    [
        (f"bad credential {KEY}.", [KEY], "bad credential ***."),
        ("key a b/c%20d in the URL", ["a b/c d"], "key a b/c%20d in the URL"),  # not that form
        ("key a%20b%2Fc in the URL", ["a b/c"], "key *** in the URL"),  # URL-encoded
        ("pass abc in it", ["abc"], "pass abc in it"),  # too short to be a credential
        (f"{KEY}-longer and {KEY}", [KEY, f"{KEY}-longer"], "*** and ***"),  # longest first
        ("GET https://u:pw@h/v1?key=S&v=2 failed", [], "GET https://***@h/v1?*** failed"),
        (
            "POST /v1beta/models/g:generateContent?key=AIza failed",
            [],
            "POST /v1beta/models/g:generateContent?*** failed",
        ),
        ("got Authorization: Bearer abc.def-ghi", [], "got Authorization: Bearer ***"),
        ("a basic question, Basic dXNlcjpwdw==", ["dXNlcjpwdw=="], "a basic question, Basic ***"),
        ("x-api-key: sk-ant-abc123 refused", [], "x-api-key: *** refused"),
        ("{'api_key': 'zzz9'} refused", [], "{'api_key': '***'} refused"),
        ("key sk-proj-abcdefgh12 and AIzaSyA1b2c3d4e5f6g7h8i9j0k", [], "key *** and ***"),
        ("task-abcdefghij and desk-0123456789", [], "task-abcdefghij and desk-0123456789"),
        (
            "Rate limit reached for requests. Did you mean gpt-4o? Try again in 2s.",
            [],
            "Rate limit reached for requests. Did you mean gpt-4o? Try again in 2s.",
        ),
    ],
)
def test_a_text_keeps_its_words_and_loses_its_credentials(
    text: str, secrets: list[str], shown: str
) -> None:
    assert redacted(text, secrets) == shown


def test_a_passed_through_body_is_cleaned_in_every_string_and_keeps_its_shape() -> None:
    body = {"error": {"message": f"no {KEY}", "code": 400, "details": [f"k={KEY}", None]}}
    assert redacted_body(body, [KEY]) == {
        "error": {"message": "no ***", "code": 400, "details": ["k=***", None]}
    }
    deep: Any = "x"
    for _ in range(MAX_DEPTH + 5):
        deep = [deep]
    assert KEY not in str(redacted_body([deep, KEY], [KEY]))  # no RecursionError either


def test_an_error_takes_its_text_in_cleaned() -> None:
    """The constructors are where the cleaning is done, so no producer can forget it."""
    error = ServerError(f"upstream failed for Bearer {KEY}", backend="b", secrets=[KEY])
    assert error.message == str(error) == "upstream failed for Bearer ***"
    upstream = {"error": {"message": f"bad key {KEY}", "type": "invalid_request_error"}}
    rejected = Rejected(f"bad key {KEY}", backend="b", status=400, upstream=upstream, secrets=[KEY])
    assert KEY not in str(rejected.body()) and rejected.body()["error"]["message"] == "bad key ***"


def test_a_backends_secrets_are_everything_the_router_sends_it_to_authenticate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SMF_TEST_REDACTION_KEY", f" {KEY}\n")
    keyed = Backend(
        name="keyed",
        tier="cloud",
        base_url="https://gw.example/v1?key=q%2Bval&api-version=2024-10-21",
        model="m",
        api_key_env="SMF_TEST_REDACTION_KEY",
        headers={"x-gateway-token": "hdr-0c4e8a2f6b1d"},
    )
    assert set(keyed.secret_values()) == {
        KEY,  # stripped, as it is sent
        "hdr-0c4e8a2f6b1d",
        "q%2Bval",
        "q+val",
        "2024-10-21",
    }
    basic = Backend(name="basic", tier="local", base_url="http://me:p%40ss@h:8000/v1", model="m")
    token = basic.basic_auth()
    assert token is not None
    assert set(basic.secret_values("more")) == {"p%40ss", "p@ss", token[6:], "more"}


def test_a_litellm_backend_without_api_key_env_hides_its_providers_own_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """litellm then reads the provider's variable itself: that key is the backend's too."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "anthropic-own-key-123")
    settings = Backend(name="c", tier="cloud", kind="litellm", model="anthropic/claude-sonnet-4-5")
    assert "anthropic-own-key-123" in LiteLLMBackend(settings).secret_values()
