"""A BeeAI ReActAgent chat is one conversation over its turns (`classifier.beeai.react_words`).

Found running BeeAI Framework 0.1.85 against the router: its ReActAgent sends its turn's ask
wrapped, "Message: <ask>\\n\\nThis message was created at <time>", in one text part, and a
later turn's history holds that ask unwrapped, its part as sent. Read as the classifier reads
it, the first turn's ask was the string inside the wrapper and the second turn's the part:
keyed apart, a chat over two turns was two conversations in the ledger. The bodies are the
ones it sent (`tests/fixtures/beeai-framework-0.1.85.md`); real sockets, the official SDK, a
real DuckDB ledger, the simulators as backends.
"""

from __future__ import annotations

from typing import Any

from router.conversation import conversation_key
from tests import recorded
from tests.agent_apis.sticky_stack import conversations
from tests.harness import Collect, RunningRouter

captured = recorded.loader(recorded.FIXTURES / "beeai-framework-0.1.85")
KEYS = {"chat": "sk-beeai-react-chat-7c13"}


def replayed(name: str) -> dict[str, Any]:
    """The recorded body `name`, not streamed: the key reads no stream options, and a request
    sent whole has its record finished when its answer is read (`pinned_headers`)."""
    body = captured(name)
    assert body.pop("stream") is True and body.pop("stream_options")
    return body


def test_a_react_agents_chat_over_two_turns_is_one_conversation(
    pinning: tuple[RunningRouter, Collect],
) -> None:
    """Its first turn, its ask wrapped; its second, that ask unwrapped in the history."""
    bodies = [replayed("react-first.json"), replayed("react-second.json")]
    assert len(set(conversations(pinning, KEYS["chat"], bodies))) == 1


def test_other_requests_key_as_they_always_did() -> None:
    """The keys the router made before (at 11c0fd16), so a ledger's conversations do not split
    across an upgrade: a ReActAgent's turn whose ask comes wrapped, and the same messages under
    another app's system prompt or none, where "Message: " is the user's own text. Those of
    the last three changed once, when a part array came to key by its text
    (`router.keyed_content.keyed`): their asks are text parts."""
    other = "You are a helpful assistant."
    bare = captured("react-second.json")
    bare["messages"] = bare["messages"][1:]
    bodies = {
        "408edfc245c2f3f8": captured("react-first.json"),
        "6d199e528f96ee7b": captured("react-tools.json"),
        # under another app's prompt its wrapped first turn and its later turn are apart
        "1e0e4e3887d7b0ef": recorded.with_system(captured("react-first.json"), other),
        "631f4671222eeea3": recorded.with_system(captured("react-second.json"), other),
        "dd6592f262fb685f": bare,
    }
    for key, body in bodies.items():
        assert conversation_key(body, {}, "c", b"secret") == key
