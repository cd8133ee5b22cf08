"""Shell-GPT's `--shell` ask goes to the local backend as coding, whatever it is about
(`classifier.shell_gpt`).

Shell-GPT 1.5.1 (MIT) streams each ask under its role's system prompt; under its shell role
"what is 17% of 2300" was math 0.85 and went to the cloud, though the user asked for a
command (found running sgpt against the router). The body is the one it sent; real sockets,
the official SDK streaming as sgpt does, the simulators as backends.
"""

from __future__ import annotations

from typing import Any

import openai
import pytest

from tests.classifier.test_classifier_shell_gpt import DEFAULT, PERCENT, SHELL, asked
from tests.harness import RunningRouter


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def streamed(proxy: RunningRouter, body: dict[str, Any]) -> tuple[str, str, str]:
    """`body` streamed through the official SDK, as sgpt sends it: the intent and backend the
    headers name, and the reply's text."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    raw = client.chat.completions.with_raw_response.create(**body)
    assert raw.http_response.status_code == 200
    text = "".join(chunk.choices[0].delta.content or "" for chunk in raw.parse() if chunk.choices)
    return raw.headers["x-smf-intent"], raw.headers["x-smf-backend"], text


def test_a_shell_roles_math_ask_is_coding_on_the_local_backend(proxy: RunningRouter) -> None:
    intent, backend, text = streamed(proxy, asked(SHELL, PERCENT))
    assert (intent, backend) == ("coding", "local") and text
    # the default role's, as asked alone: math, the cloud
    assert streamed(proxy, asked(DEFAULT, PERCENT))[:2] == ("math", "cloud")
