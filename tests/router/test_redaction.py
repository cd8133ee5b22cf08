"""`evals.redaction`: what of an upstream's error text a client may read, and the exact
values a backend's settings name as its secrets (`Backend.secret_values`).

The running router's side (every API, litellm, the canary) is in `test_error_secrets`.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from evals import redaction
from evals.redaction import (
    MAX_BODY_STRINGS,
    MAX_DEPTH,
    Secrets,
    cut,
    redacted,
    redacted_body,
    wire_name,
)
from router.attempt_errors import Rejected, ServerError
from router.backends.litellm import LiteLLMBackend, credential_variables
from router.config_backend import Backend

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
        ("got Authorization: Bearer eyJhbGciOi.e30.abc123", [], "got Authorization: Bearer ***"),
        ("a basic question, Basic dXNlcjpwdw==", ["dXNlcjpwdw=="], "a basic question, Basic ***"),
        ("x-api-key: sk-ant-abc123 refused", [], "x-api-key: *** refused"),
        ("{'api_key': 'zzz9'} refused", [], "{'api_key': '***'} refused"),
        ("key sk-proj-abcdefgh12345678 and AIzaSyA1b2c3d4e5f6g7h8i9j0k", [], "key *** and ***"),
        (  # prose that looks like the patterns: no digit, no `=` after a `?`
            "The bearer token field is required; api-key: header missing; "
            "sk-learn-compatible-estimator; is this right?ok",
            [],
            "The bearer token field is required; api-key: header missing; "
            "sk-learn-compatible-estimator; is this right?ok",
        ),
        ("POST /v1/chat/completions, chatty", ["chat"], "POST /v1/***/completions, chatty"),
        ("the EMPTY key, EMPTYSET", ["EMPTY"], "the *** key, EMPTYSET"),  # short: whole words
        (f"{KEY}_2 and x{KEY}", [KEY], "***_2 and x***"),  # long: wherever it stands
        # the forms a text that is no decoded JSON carries it in
        ("key \\u0067\\u0077\\u002d\\u0037 in it", ["gw-7"], "key *** in it"),
        ("url http:\\/\\/h\\/v1\\/a", ["/v1/a"], "url http:\\/\\/h***"),
        (f"token {base64.b64encode(KEY.encode()).decode()}.", [KEY], "token ***."),
        ("task-abcdefghij and desk-0123456789", [], "task-abcdefghij and desk-0123456789"),
        (
            "Rate limit reached for requests. Did you mean gpt-4o? Try again in 2s.",
            [],
            "Rate limit reached for requests. Did you mean gpt-4o? Try again in 2s.",
        ),
        (  # a run left as it was (no digit) ends in a key name: the next run is looked at
            "Authorization: Bearer missing-or-malformed-Bearer 9f86d081884c7d659a2feaa0c5",
            [],
            "Authorization: Bearer missing-or-malformed-Bearer ***",
        ),
        (
            "got api_key=placeholder-api_key: AbC123dEf456GhI7",
            [],
            "got api_key=placeholder-api_key: ***",
        ),
    ],
)
def test_a_text_keeps_its_words_and_loses_its_credentials(
    text: str, secrets: list[str], shown: str
) -> None:
    assert redacted(text, secrets) == shown


def test_a_passed_through_body_is_cleaned_in_every_string_and_keeps_its_shape() -> None:
    body = {"error": {"message": f"no {KEY}", "code": 400, "details": [f"k={KEY}", None]}}
    assert redacted_body(body | {KEY: 1}, [KEY]) == {
        "error": {"message": "no ***", "code": 400, "details": ["k=***", None]},
        "***": 1,  # its keys too
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


def test_a_body_too_large_to_clean_is_not_read_to_its_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A million strings: cleaned one by one, a regex pass each, they held the event loop for
    ten seconds. Past `MAX_BODY_STRINGS` the walk stops (None: the error's message is
    shown instead); counted, not timed."""
    cleaned: list[str] = []
    clean = Secrets.clean

    def counted(self: Secrets, text: str) -> str:
        cleaned.append(text)
        return clean(self, text)

    monkeypatch.setattr(Secrets, "clean", counted)
    assert redacted_body({"error": {"message": "m"}, "x": ["ab"] * 1_000_000}, [KEY]) is None
    assert len(cleaned) == MAX_BODY_STRINGS  # keys included; none past the limit
    assert redacted_body({"x": ["ab"] * (MAX_BODY_STRINGS - 1)}, [KEY]) is not None


def test_secrets_are_compiled_once_into_one_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    """One compile per backend, whatever the number of texts cleaned after."""
    compiled: list[str] = []
    compile_ = redaction.re.compile
    monkeypatch.setattr(
        redaction.re, "compile", lambda p, *a: compiled.append(p) or compile_(p, *a)
    )
    secrets = Secrets([KEY, "hdr-0c4e8a2f6b1d"])
    for _ in range(100):
        secrets.clean(f"no {KEY}")
    assert len(compiled) == 1


def test_a_cut_text_keeps_no_head_of_a_secret() -> None:
    """Cleaned before the cut; and a head the upstream left at the very end (it cut its own
    text) is masked too, from `MIN_SECRET_CHARS` characters on."""
    text = "x" * 490 + f" {KEY} tail"
    assert cut(text, 500, [KEY]) == "x" * 490 + " *** tail"  # cut at 500, 9 of it were shown
    assert cut(text + "!" * 20, 500, [KEY]) == "x" * 490 + " *** tail" + "!"
    assert cut("y" * 10 + KEY[:12], 20, [KEY]) == "y" * 10 + "***"
    assert cut("y" * 10 + KEY[:5] + "zzzzzzzz", 20, [KEY]) == "y" * 10 + KEY[:5] + "zzzzz"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("proxy echo: authorization=" + KEY[:20], "proxy echo: authorization=***"),  # its own cut
        ("said " + KEY[:4], "said ***"),
        ("?a=" + "x" * 600 + " said " + KEY[:7], "?*** said ***"),  # cleaned under the limit
        ("said " + KEY[:3], "said " + KEY[:3]),  # no secret is that short
        ("xab12cd", "xab12cd"),  # a short one's head inside a word, as it is whole
        ("said ab12cd", "said ***"),
    ],
    ids=["upstream_cut", "four", "cleaned_short", "three", "in_word", "short_form"],
)
def test_a_text_ending_in_a_secrets_head_has_it_masked_whatever_its_length(
    text: str, shown: str
) -> None:
    """The head at the end was masked only past the limit, from 8 characters on: a text the
    upstream had cut showed 20 of the key's, one cleaned down under the limit its last 7."""
    assert cut(text, 500, Secrets([KEY, "ab12cd34ef"])) == shown


BEARER = Backend(
    name="gw",
    tier="cloud",
    base_url="https://gw.example/v1",
    model="m",
    headers={"Authorization": "Bearer gw-9f86d081884c7d659a2feaa0c55ad015"},
)


@pytest.mark.parametrize(
    ("text", "secrets", "shown"),
    [
        ("gw: 401 expected scheme Bearer", BEARER.secret_values(), None),  # a word it begins with
        ("Bearer", BEARER.secret_values(), None),
        ("Bearer gw", BEARER.secret_values(), None),
        ("prompt ends with an unfinished token", ["token-abc123"], None),
        ("unfinished token-", ["token-abc123"], None),
        ("said Bearer gw-9f8", BEARER.secret_values(), "said ***"),  # cut in a run
        ("said token-ab", ["token-abc123"], "said ***"),
        ("said sk-proj-ab", ["sk-proj-abcdefgh12345678"], "said ***"),
        ("said " + KEY[:15], [KEY], "said ***"),  # `gw-7f3a9c2e1b5d|-router`: a digit
        ("said abcd\\/efgh", ["abcd/efgh-12"], "said ***"),  # an escaped form's: no word of it
    ],
)
def test_a_whole_text_keeps_a_word_a_key_begins_with_at_its_end(
    text: str, secrets: tuple[str, ...], shown: str | None
) -> None:
    """Every whole text's end was masked for any head of a key: with a header `Bearer
    gw-...`, "expected scheme Bearer" became "expected scheme ***", a `hint: "Bearer"`
    "***"; with `--api-key token-abc123`, an upstream's code "token" was dropped (found in
    re-review). A head that may be key material cut mid-run is masked still. A text the
    router cut has any head masked (`cut`: it may have cut there, or `masked_end` did)."""
    assert redacted(text, secrets) == (text if shown is None else shown)
    assert redacted_body({"hint": text}, secrets) == {"hint": text if shown is None else shown}
    assert cut(text, 500, secrets).endswith("***")


@pytest.mark.parametrize(
    ("name", "secrets"),
    [("token", ["token-abc123"]), ("Bearer", BEARER.secret_values())],
)
def test_an_upstream_name_that_a_key_begins_with_goes_on(
    name: str, secrets: tuple[str, ...]
) -> None:
    assert wire_name(name, secrets) == name


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("context_length_exceeded", True),
        ("rate_limit_error", True),
        ("server_is_overloaded", True),
        (KEY, False),  # a name, but the key
        ("Bearer abc", False),  # no name
        ("x" * 65, False),
        (502, False),
    ],
)
def test_an_in_band_errors_names_go_on_only_when_they_are_names_and_no_secret(
    name: object, kept: bool
) -> None:
    assert wire_name(name, [KEY]) == (name if kept else None)


def test_a_backends_secrets_are_everything_the_router_sends_it_to_authenticate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Of the headers and query parameters, those named for a credential only: `X-Title:
    chat` or `api-version=2024-10-21` masked those words in every error. A header's value
    without its scheme too: a gateway repeats the bare key."""
    monkeypatch.setenv("SMF_TEST_REDACTION_KEY", f" {KEY}\n")
    keyed = Backend(
        name="keyed",
        tier="cloud",
        base_url="https://gw.example/v1?key=q%2Bval&api-version=2024-10-21&sig=s1g&format=json",
        model="m",
        api_key_env="SMF_TEST_REDACTION_KEY",
        headers={
            "x-gateway-token": "hdr-0c4e8a2f6b1d",
            "cf-aig-authorization": "Bearer cf-9a8b7c6d",
            "X-Title": "chat",
            "HTTP-Referer": "https://app.example",
        },
    )
    assert set(keyed.secret_values()) == {
        KEY,  # stripped, as it is sent
        "hdr-0c4e8a2f6b1d",
        "Bearer cf-9a8b7c6d",
        "cf-9a8b7c6d",
        "q%2Bval",
        "q+val",
        "s1g",
    }
    basic = Backend(name="basic", tier="local", base_url="http://me:p%40ss@h:8000/v1", model="m")
    token = basic.basic_auth()
    assert token is not None
    assert set(basic.secret_values("more")) == {"p%40ss", "p@ss", token[6:], "more"}


def test_a_litellm_backend_hides_every_credential_litellm_may_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without `api_key_env` litellm reads its provider's variables itself, which are not
    `<PROVIDER>_API_KEY` alone: Azure's AZURE_OPENAI_API_KEY first, HF_TOKEN, AWS's secret
    and session token... Every variable named like a credential counts; short values
    (settings such as `1`) and other names do not."""
    for name, value in {
        "AZURE_OPENAI_API_KEY": "azure-own-key-123",
        "HF_TOKEN": "hf_own_token_456",
        "AWS_SECRET_ACCESS_KEY": "aws-secret-789",
        "AWS_SESSION_TOKEN": "aws-session-012",
        "SOME_SETTING_KEY": "1",
        "SMF_TEST_REDACTION_MODEL": "not-a-credential",
    }.items():
        monkeypatch.setenv(name, value)
    settings = Backend(name="c", tier="cloud", kind="litellm", model="azure/gpt-4o-deployment")
    secrets = set(LiteLLMBackend(settings).secret_values())
    assert {"azure-own-key-123", "hf_own_token_456", "aws-secret-789", "aws-session-012"} <= secrets
    assert not {"1", "not-a-credential"} & secrets
    assert "hf_own_token_456" in credential_variables({"HF_TOKEN": " hf_own_token_456\n"})


@pytest.mark.parametrize(
    ("name", "value", "counted"),
    [
        ("AWS_BEARER_TOKEN_BEDROCK", "ABSKQmVkcm9ja0FQSUtleS1hYmM", True),
        ("WATSONX_APIKEY", "wx-apikey-0a1b2c3d", True),
        ("WATSONX_ZENAPIKEY", "zen-9f8e7d6c5b4a", True),
        ("SNOWFLAKE_JWT", "eyJhbGciOiJSUzI1NiJ9.e30.sig", True),
        ("VERTEX_CREDENTIALS", "/run/secrets/vertex-sa.json", True),
        ("VLLM_API_KEY", "token-abc123", True),  # short, with a digit
        ("GPG_KEY", "A035C8C19219BA821ECEA86B64E628F8D684696D", True),
        ("POSTGRES_PASSWORD", "postgres", False),  # a word the error's own text says
        ("MINIO_SECRET_KEY", "minioadmin", False),
        ("SORT_KEY", "created_at", False),
        ("REDIS_PASSWORD", "password", False),
        ("SOME_SETTING_KEY", "1", False),
        ("HOME", "/root/some/long/home/dir", False),  # no credential's name
    ],
)
def test_credential_variables_by_name_and_by_value(name: str, value: str, counted: bool) -> None:
    """Names litellm's providers read a credential from that are not `*_KEY`-like at the
    end count; a short word without a digit (a stock container password) does not: masking
    it garbled "could not connect to postgres" (found in review)."""
    assert (value in credential_variables({name: value})) is counted
