"""Claude's one sampler through a litellm backend that names its model the way Bedrock does
(`router.backends.claude_samplers`): litellm sends `temperature` and `topP` both in Bedrock
Converse's `inferenceConfig`, which Claude Sonnet 4.5 on refuses. No simulator profile
speaks Bedrock: a fake Converse upstream keeps what litellm sent. Its own module, apart from
the Anthropic one's: litellm's one logging worker belongs to one router's loop at a time."""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import unquote

import orjson
import pytest

from router.config import parse
from tests.harness import INTENTS, RunningRouter, litellm_backend, router, sdk, send_json, upstream

ASK = [{"role": "user", "content": "hi"}]
ARN = "arn:aws:bedrock:us-east-1:123456789012"

# Bedrock Converse's whole reply
CONVERSE_REPLY = orjson.dumps(
    {
        "output": {"message": {"role": "assistant", "content": [{"text": "hi"}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
        "metrics": {"latencyMs": 1},
    }
)
APP_PROFILE = f"{ARN}:application-inference-profile/a1b2c3d4e5f6"


@pytest.fixture(scope="module")
def bedrock(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[list[tuple[str, Any]], RunningRouter]]:
    """Bedrock backends on one fake Converse upstream that keeps each request's model path
    and `inferenceConfig` (where litellm puts `temperature` and `topP`): `profile` (Sonnet
    4.5 by its inference-profile ARN), `app` (an application inference profile, as litellm
    takes one: the model by name, the ARN as `model_id`) and `old` (Claude 3.5 Sonnet)."""
    seen: list[tuple[str, Any]] = []

    class Converse(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = orjson.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            seen.append((unquote(self.path), body.get("inferenceConfig")))
            send_json(self, 200, CONVERSE_REPLY)

        def log_message(self, *args: object) -> None:
            pass

    with upstream(Converse) as server:
        profile = f"bedrock/{ARN}:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
        app = "bedrock/converse/anthropic.claude-sonnet-4-5-20250929-v1:0"
        old = "bedrock/us.anthropic.claude-3-5-sonnet-20241022-v2:0"
        config = parse(
            {
                "backends": [
                    litellm_backend("profile", profile, server.root),
                    {
                        **litellm_backend("app", app, server.root),
                        "extra_body": {"model_id": APP_PROFILE},
                    },
                    litellm_backend("old", old, server.root),
                ],
                "routes": {intent: ["profile"] for intent in INTENTS},
                "ledger": {"path": str(tmp_path_factory.mktemp("bedrock") / "ledger")},
                "resilience": {"enabled": False},
            }
        )
        with router(config) as proxy:
            yield seen, proxy


@pytest.mark.parametrize(
    ("backend", "model_path", "sent"),
    [
        ("profile", "inference-profile/us.anthropic.claude-sonnet-4-5", {"temperature": 0.2}),
        ("app", APP_PROFILE, {"temperature": 0.2}),
        ("old", "us.anthropic.claude-3-5-sonnet", {"temperature": 0.2, "topP": 0.9}),
    ],
)
def test_a_claude_4_5_backend_named_by_bedrock_ids_sends_bedrock_one_sampler(
    bedrock: tuple[list[tuple[str, Any]], RunningRouter],
    backend: str,
    model_path: str,
    sent: dict[str, float],
) -> None:
    seen, proxy = bedrock
    reply = sdk(proxy).chat.completions.create(
        model=backend, messages=ASK, temperature=0.2, top_p=0.9, max_tokens=5
    )
    assert reply.choices[0].message.content == "hi"
    path, inference = seen[-1]
    assert model_path in path and path.endswith("/converse")
    assert {k: v for k, v in inference.items() if k in ("temperature", "topP")} == sent
