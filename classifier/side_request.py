"""Side requests: a request an app sends beside its conversation's turns, of its own, to
name or label the conversation or to help its user along, never a turn of it.

Such a request carries its conversation's session id (Claude Code's header, OpenHands'
`prompt_cache_key`, Open WebUI's chat id) or its first ask (opencode's title call), so the
router keys it as the conversation, and a finished request pins its conversation to the
backend that served it (`router.sticky_pins`). Claude Code's title request, read apart from
the session's turns, finished before the first turn and pinned every coding turn of a
"Translate 'good morning' into French" session to the cloud (found in a live review). So the
classifier marks the side requests it knows (`Intent.side_request`), and the router lets
none of them pin: Claude Code's, crush's, OpenHands' and opencode's title calls
(`classifier.claude_code`, `classifier.crush`, `classifier.openhands`, `classifier.opencode`)
and Open WebUI's background tasks (`classifier.open_webui`: a title, tags, follow-ups,
queries, an autocompletion, an emoji). Each is still read, and routed, by its ask inside.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier import claude_code, crush, open_webui, opencode, openhands
from classifier.message import System


def side_request(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` (of system prompt `system`) are one of the side requests known."""
    return (
        claude_code.titles(messages, system)
        or crush.titles(messages)
        or openhands.titles(messages, system)
        or opencode.titles(messages, system)
        or open_webui.task_asks(messages) is not None
    )
