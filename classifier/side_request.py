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
and Claude Code's security monitor's requests in auto mode (`classifier.claude_code`)
and Open WebUI's background tasks (`classifier.open_webui`: a title, tags, follow-ups,
queries, an autocompletion, an emoji), and code-puppy's title and compaction summarizer
requests (`classifier.code_puppy`). Each is still read, and routed, by its ask inside.

So are a framework's calls that only pick who does the work: fast-agent's router's call and
its orchestrator's planner's (`classifier.fast_agent.picks_agents`), mcp-agent's LLM router's
and intent classifier's (`classifier.mcp_agent.routes`), found once as the readings their
apps fix (`classifier.fixed.Fixed.side`, `classifier.request._FIXED`), n8n's Text Classifier's
(`classifier.n8n.classifies`: its label sends the item down a branch). Sent with the run's
session id (fast-agent's guide's `x-smf-session-id`), fast-agent's router's call, the run's
first, instruction on the local backend, finished first and pinned the run: the poem the
chosen agent then wrote, prose, was served by the local model (found in review). A plan is
no work either: its tasks are each an agent's own request, and an orchestrator's first call
is its plan, which would pin every agent's work to the planner's backend. Each is read, and
routed, by its rule (instruction); the work that follows sets the pin. n8n's Information
Extractor and Sentiment Analysis are not side requests: their reply is the workflow's data,
the work itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier import claude_code, code_puppy, crush, n8n, open_webui, opencode, openhands
from classifier.fixed import Fixed
from classifier.message import System


def side_request(messages: Sequence[Any], system: System, fixed: Fixed | None) -> bool:
    """Whether `messages` (of system prompt `system`, with the reading their app fixes,
    `fixed`) are one of the side requests known."""
    return (
        (fixed is not None and fixed.side)
        or claude_code.side_requests(messages, system)
        or crush.titles(messages)
        or openhands.titles(messages, system)
        or opencode.titles(messages, system)
        or open_webui.task_asks(messages) is not None
        or n8n.classifies(system)
        or code_puppy.side_requests(messages, system)
    )
