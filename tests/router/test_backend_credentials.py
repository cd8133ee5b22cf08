"""A backend's credential goes in one header, sent alike by requests and health probes.

An `Authorization` header beside `api_key_env` passed `config check`, and the code paths
disagreed: requests sent the key's Bearer alone (the configured header silently dropped),
health probes and capacity reads both Authorization headers (found in review). A user and
password in `base_url` with `api_key_env` was already refused; a header that would be a
second credential is refused the same way, by the field and never by its value.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from router.capacity import read_context_window
from router.config_backend import Backend
from router.probe import probe
from tests.harness import send_json, upstream
from tests.router.env_config_check import config_check

LOCAL = """backends:
  - name: local
    tier: local
    base_url: http://127.0.0.1:9/v1
    model: m
"""
VALUE = "Bearer sk-SECRET-in-header"


def cloud(headers: str, *, kind: str = "openai", model: str = "gpt-4o", more: str = "") -> str:
    """A config whose second backend (`backends.1`) sends `headers` (from line 11)."""
    url = "https://api.example.com/v1" if kind == "openai" else "https://gw.example"
    return LOCAL + (
        f"  - name: cloud\n    tier: cloud\n    kind: {kind}\n    base_url: {url}\n"
        f"    model: {model}\n    headers:\n{headers}{more}"
    )


KEYED = "    api_key_env: CREDENTIAL_TEST_KEY\n"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            cloud(f"      authorization: {VALUE}\n", more=KEYED),
            "an Authorization header and api_key_env would both send one; keep one",
        ),
        (
            cloud(f"      AUTHORIZATION: {VALUE}\n").replace(
                "https://api.example.com", "https://user:pw@api.example.com"
            ),
            "an Authorization header and the user and password in base_url would both send one",
        ),
        (
            cloud(f"      Authorization: {VALUE}\n", kind="litellm", model="gpt-4o", more=KEYED),
            "an Authorization header and api_key_env would both send one; keep one",
        ),
        (
            cloud(f"      X-Api-Key: {VALUE}\n", kind="litellm", model="anthropic/c", more=KEYED),
            "the x-api-key header, and an x-api-key header would be a second one",
        ),
        (
            cloud(f"      Api-Key: {VALUE}\n", kind="litellm", model="azure/dep", more=KEYED),
            "the api-key header, and an api-key header would be a second one",
        ),
        (
            cloud(f"      X-Team: {VALUE}\n      x-team: {VALUE}\n"),
            "two names differ only in case, which HTTP reads as one; keep one",
        ),
    ],
    ids=[
        "bearer-and-header",
        "litellm-bearer-and-header",
        "basic-and-header",
        "anthropic",
        "azure",
        "case",
    ],
)
def test_a_header_that_would_be_a_second_credential_is_refused_by_its_field(
    tmp_path: Path, text: str, said: str
) -> None:
    done = config_check(tmp_path, text, {"CREDENTIAL_TEST_KEY": "sk-SECRET-key"})
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "backends.1.headers (line 11): " in output and said in output
    assert "SECRET" not in output and "Traceback" not in output


@pytest.mark.parametrize(
    "text",
    [
        cloud(f"      Authorization: {VALUE}\n"),  # the header is the only credential
        cloud("      X-Api-Key: gateway\n", kind="litellm", model="openai/gpt-4o", more=KEYED),
        # the key goes as x-api-key or api-key: Authorization is a gateway's token (it loaded
        # until every Authorization beside api_key_env was refused, found in review)
        cloud(f"      Authorization: {VALUE}\n", kind="litellm", model="anthropic/c", more=KEYED),
        cloud(f"      Authorization: {VALUE}\n", kind="litellm", model="azure/dep", more=KEYED),
    ],
    ids=[
        "header-alone",
        "gateway-key-beside-a-bearer",
        "gateway-bearer-beside-an-anthropic-key",
        "gateway-bearer-beside-an-azure-key",
    ],
)
def test_a_header_that_is_the_only_one_of_its_name_is_still_taken(
    tmp_path: Path, text: str
) -> None:
    done = config_check(tmp_path, text, {"CREDENTIAL_TEST_KEY": "sk-SECRET-key"})
    assert done.returncode == 0, done.stderr
    assert "SECRET" not in done.stdout + done.stderr


class _Captured(BaseHTTPRequestHandler):
    """An upstream that answers every GET (a health path, `/v1/models`) with an empty model
    list and keeps the headers it was sent, by lower-case name."""

    seen: ClassVar[list[dict[str, str]]] = []

    def do_GET(self) -> None:
        self.seen.append({name.lower(): value for name, value in self.headers.items()})
        send_json(self, 200, b'{"object": "list", "data": []}')

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize(
    ("model", "more", "header", "value"),
    [
        ("anthropic/claude-sonnet-4-5", {}, "x-api-key", "sk-SECRET-key"),
        ("claude-sonnet-4-5", {}, "x-api-key", "sk-SECRET-key"),
        ("azure/deployment", {}, "api-key", "sk-SECRET-key"),
        ("gpt-4o", {"extra_body": {"custom_llm_provider": "azure"}}, "api-key", "sk-SECRET-key"),
        ("openai/gpt-4o", {}, "authorization", "Bearer sk-SECRET-key"),
    ],
    ids=["anthropic", "bare-claude", "azure", "azure-named", "openai"],
)
async def test_probes_of_a_litellm_backend_send_its_key_as_its_provider_takes_it(
    monkeypatch: pytest.MonkeyPatch, model: str, more: dict[str, Any], header: str, value: str
) -> None:
    """Health probes and `/v1/models` reads sent the key as `Authorization: Bearer` whatever
    the provider, where litellm's requests send it as Anthropic's `x-api-key` or Azure's
    `api-key` (found in review): a gateway or proxy checking that header saw none."""
    monkeypatch.setenv("CREDENTIAL_TEST_KEY", "sk-SECRET-key")
    monkeypatch.setattr(_Captured, "seen", [])
    with upstream(_Captured) as server:
        settings = Backend.model_validate(
            {
                "name": "cloud",
                "tier": "cloud",
                "kind": "litellm",
                "base_url": server.url,
                "model": model,
                "api_key_env": "CREDENTIAL_TEST_KEY",
                "headers": {"X-Team": "router"},
                **more,
            }
        )
        async with httpx.AsyncClient() as client:
            assert await probe(client, settings, use_health=True, timeout_s=5) == (True, True)
            assert await probe(client, settings, use_health=False, timeout_s=5) == (True, False)
            assert await read_context_window(client, settings, timeout_s=5) is None
    assert len(_Captured.seen) == 3
    for sent in _Captured.seen:
        assert sent[header] == value and sent["x-team"] == "router"
        others = {"authorization", "x-api-key", "api-key"} - {header}
        assert not others & sent.keys(), sent


def test_a_gateway_bearer_goes_beside_the_key_in_its_providers_header(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Anthropic's key as `x-api-key`, and the gateway's own token as Authorization: both."""
    monkeypatch.setenv("CREDENTIAL_TEST_KEY", "sk-SECRET-key")
    settings = Backend.model_validate(
        {
            "name": "cloud",
            "tier": "cloud",
            "kind": "litellm",
            "model": "anthropic/claude-sonnet-4",
            "api_key_env": "CREDENTIAL_TEST_KEY",
            "headers": {"Authorization": "Bearer gw-token"},
        }
    )
    sent = settings.sent_headers()
    assert sent == {"authorization": "Bearer gw-token", "x-api-key": "sk-SECRET-key"}
    assert {"gw-token", "sk-SECRET-key"} <= set(settings.secret_values())
