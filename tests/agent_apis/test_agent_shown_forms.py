"""gpt-researcher's sub-queries and MetaGPT's PRD through the router in front of the
simulators (demo mode's backends): answered in the form their prompts show, whichever backend
serves them (`tests/simulator/test_simulator_shown_forms.py` reads the forms in detail).

Answered prose, gpt-researcher stopped at its sub-queries and MetaGPT at its first action in
demo mode (found in a live review). Real sockets, the official SDK, the bodies the apps sent
(`tests/fixtures/gpt-researcher-0.15.1.md`, `tests/fixtures/metagpt-0.8.2.md`)."""

from __future__ import annotations

import json
import re

import openai

from tests import recorded
from tests.harness import RunningRouter

GPTR = recorded.loader(recorded.FIXTURES / "gpt-researcher-0.15.1")
METAGPT = recorded.loader(recorded.FIXTURES / "metagpt-0.8.2")
CONTENT = re.compile(r"\A\[CONTENT\]\n(\{.*\})\n\[/CONTENT\]\Z", re.S)


def test_research_apps_get_their_forms_through_the_router(default_proxy: RunningRouter) -> None:
    """The sub-queries' answer is a JSON list of three strings; the PRD's, streamed, the
    markers around an object with the example's keys."""
    client = openai.OpenAI(base_url=default_proxy.url, api_key="x", max_retries=0)
    reply = client.chat.completions.create(**GPTR("subqueries.json"))
    queries = json.loads(reply.choices[0].message.content or "")
    assert isinstance(queries, list) and len(queries) == 3
    assert all(isinstance(query, str) and query for query in queries)
    body = METAGPT("write-prd.json")
    chunks = client.chat.completions.create(**body)
    text = "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices)
    found = CONTENT.match(text)
    assert found is not None, text
    prd = json.loads(found.group(1))
    assert "Product Goals" in prd and "Requirement Pool" in prd and len(prd) == 12
