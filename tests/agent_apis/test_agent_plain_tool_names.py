"""An app's tools named by the plain words coding agents also name theirs (Read, Write, Edit)
make no coding agent's session through the router: its ask is served where it goes, as with
names of its own (`classifier.harness_tools.PLAIN_NAMES`). Found in review: a note-taking
assistant's "Summarise the main causes of World War I." was coding 0.93, served locally,
offering Read, Write, Edit and Search; writing 0.56, on the cloud, offering read_note,
write_note, edit_note and search_notes. Real sockets, the official SDK, the simulators as
backends (the default routes)."""

from __future__ import annotations

from typing import Any

from tests.agent_apis.served import served
from tests.harness import RunningRouter

ASK = "Summarise the main causes of World War I."


def notes_app(*names: str) -> dict[str, Any]:
    """The note-taking assistant's request offering tools of `names`."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": "A note of the user's",
                "parameters": {"type": "object", "properties": {"id": {"type": "string"}}},
            },
        }
        for name in names
    ]
    system = "You are Jotter, a note-taking assistant. Help the user organise their notes."
    messages = [{"role": "system", "content": system}, {"role": "user", "content": ASK}]
    return {"model": "auto", "messages": messages, "tools": tools}


def test_a_notes_apps_read_write_and_edit_are_served_as_its_ask(
    default_proxy: RunningRouter,
) -> None:
    own = served(default_proxy, notes_app("read_note", "write_note", "edit_note", "search_notes"))
    assert own[0] != "coding"
    assert served(default_proxy, notes_app("Read", "Write", "Edit", "Search")) == own
    # beside a name of a coding agent's own machinery (Claude Code's Glob), its session
    assert served(default_proxy, notes_app("Read", "Write", "Edit", "Glob")) == ("coding", "local")
