"""A PraisonAI workflow task goes where its description and expected output are read, and
mem0's memory calls go to the local backend as instruction, whatever the chat they hold
(`classifier.praisonai`, `classifier.mem0`).

Read whole, PraisonAI's frame with context made a proof task instruction 0.48 (local) and
mem0's extraction of a proof chat was math, on the cloud, some 7,800 prompt tokens a call
(found in a live review of both against the router). The bodies are the ones they sent
(`tests/fixtures/praisonaiagents-1.7.17.md`, `tests/fixtures/mem0ai-2.2.1.md`), sent as they
sent them, unstreamed, through the official SDK; real sockets, the simulators as backends.
"""

from __future__ import annotations

import copy
from typing import Any

import openai
import pytest

from classifier.rules import MEMORY_EXTRACTION
from tests.agent_apis.agent_stack import explained
from tests.classifier.test_classifier_mem0 import CAPTURED, FACTS, PROOF, with_chat
from tests.classifier.test_classifier_mem0 import captured as mem0_body
from tests.classifier.test_classifier_praisonai import EARLIER, as_task, with_context
from tests.harness import RunningRouter


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def sent(proxy: RunningRouter, body: dict[str, Any]) -> tuple[str, str]:
    """`body` sent through the official SDK as it was sent: the intent and the backend the
    headers name."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    raw = client.chat.completions.with_raw_response.create(**copy.deepcopy(body))
    assert raw.http_response.status_code == 200
    assert raw.parse().choices[0].message.content
    return raw.headers["x-smf-intent"], raw.headers["x-smf-backend"]


def test_a_proof_task_in_praisonais_frame_goes_to_the_cloud_as_math(proxy: RunningRouter) -> None:
    text = with_context(EARLIER, PROOF, "A proof")
    body = as_task("task-with-context.json", text)
    assert sent(proxy, body) == ("math", "cloud")
    why = explained(proxy, body)
    assert why["classifier"]["source"] == "model"


@pytest.mark.parametrize("name", CAPTURED)
def test_mem0s_calls_are_instruction_on_the_local_backend(proxy: RunningRouter, name: str) -> None:
    assert sent(proxy, mem0_body(name)) == ("instruction", "local")


def test_a_proof_chats_extraction_stays_local(proxy: RunningRouter) -> None:
    body = with_chat("extraction-first.json", FACTS, PROOF)
    assert sent(proxy, body) == ("instruction", "local")
    why = explained(proxy, body)["classifier"]
    assert (why["source"], why["rule"]) == ("rule", MEMORY_EXTRACTION)
