"""n8n's Information Extractor, Text Classifier and Sentiment Analysis, and its output
parser's fix-up, go to the local backend as instruction, over Responses and chat alike
(`classifier.n8n`).

n8n 2.41.1's OpenAI Chat Model sends the Responses API by default, chat completions when
switched off, never streamed. Read by the item's text, the Sentiment Analysis of a
release's praise was reasoning 0.42 and went to the cloud, the Information Extractor on an
invoice math 0.30 (the default route), the Text Classifier on a billing complaint
tool_calling 0.47 (found running n8n against the router). The bodies are the ones it sent
(`tests/fixtures/n8n-2.41.1.md`); real sockets, the official SDK, the simulators as
backends.
"""

from __future__ import annotations

import copy
from typing import Any

import openai
import pytest

from classifier.rules import FIXED_FORM
from tests.agent_apis.agent_stack import explained
from tests.classifier.test_classifier_n8n import NODES, SENTIMENT_TEXT, captured
from tests.harness import RunningRouter


@pytest.fixture(scope="module")
def proxy(default_proxy: RunningRouter) -> RunningRouter:
    """The router over a vLLM `local` and a `cloud`, the default routes."""
    return default_proxy


def sent(proxy: RunningRouter, body: dict[str, Any]) -> tuple[str, str]:
    """`body` sent through the official SDK as n8n sends it, unstreamed, over Responses
    (an `input`) or chat: the intent and the backend the headers name."""
    client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
    sending = copy.deepcopy(body)
    if "input" in sending:
        raw: Any = client.responses.with_raw_response.create(**sending)
        assert raw.parse().output_text
    else:
        raw = client.chat.completions.with_raw_response.create(**sending)
        assert raw.parse().choices[0].message.content
    assert raw.http_response.status_code == 200
    return raw.headers["x-smf-intent"], raw.headers["x-smf-backend"]


@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize("name", [*NODES, "fixup"])
def test_its_requests_are_instruction_on_the_local_backend(
    proxy: RunningRouter, name: str, api: str
) -> None:
    body = captured(f"{name}-{api}.json")
    assert sent(proxy, body) == ("instruction", "local")
    why = explained(proxy, body, api if api == "responses" else None)["classifier"]
    assert (why["source"], why["rule"]) == ("rule", FIXED_FORM)


def test_the_text_without_the_nodes_prompt_goes_where_the_model_reads_it(
    proxy: RunningRouter,
) -> None:
    """The Sentiment node's text asked by a user of their own, over Responses: read as
    written, by the model."""
    ask = f"Classify the sentiment of this text as positive, neutral or negative: {SENTIMENT_TEXT}"
    body = {"model": "auto", "stream": False, "input": [{"role": "user", "content": ask}]}
    sent(proxy, body)
    assert explained(proxy, body, "responses")["classifier"]["source"] == "model"
