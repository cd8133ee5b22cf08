"""Claude Code's session title is made of the user's ask, not of the tags around it.

Live review of Claude Code 2.1.332 in demo mode: its title request asks a JSON object
(`output_config.format`, which the router passes on as `response_format`) for the user text
"<session>\\nASK\\n</session>\\n\\nWrite the title in …", and the simulator filled the title
from that text as sent: `{"title": "<session> add_numbers: use ToolSearch to load"}`. It
now reads the ask inside, as the classifier does (`router.simulator.latest_ask`), the
way a tool's arguments are filled."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from router.simulator import SimThread
from router.translate.anthropic_request import to_chat
from tests.recorded import FIXTURES, body
from tests.simulator.calls import client

TITLE = FIXTURES / "claude-code-2.1.332" / "title.json"
ASK = "add_numbers: use ToolSearch to load add_numbers, then add 2 and 40"


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_the_title_quotes_the_ask_inside_the_session_tags(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """The recorded title request as the router hands it a chat backend: the title is the
    ask's first words (a string field's filling, `scalars.string`), no tag in it."""
    sim = start_sim(profile=profile, max_model_len=8192)
    fields = to_chat(body(TITLE)) | {"model": "tiny", "stream": False}
    assert fields["response_format"]["type"] == "json_schema"
    reply = client(sim).chat.completions.create(**fields)
    title = json.loads(reply.choices[0].message.content or "")["title"]
    assert title == " ".join(ASK.split()[:6])
    assert "<" not in title
