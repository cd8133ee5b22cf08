"""Letta's requests: its agents' turns, read by the user's ask whatever call they force, its
own texts in user turns passed over, each agent's conversation told by its ids; and its
compaction's summary request, read as one kind of work.

Letta (pypi `letta` 0.16.8, a server: `letta/llm_api/openai_client.py`, `letta/system.py`,
`letta/prompts/`, `letta/services/summarizer/`) sends each step of an agent as a chat request:
the agent's system prompt (`framed`: one of Letta's templates, all opening `BASE_OPENING`, then
its memory, `<memory_blocks>` with each block's label, description and value, or git-backed
memory's sections, its tool rules and directories, then `<memory_metadata>` with the agent's
and the conversation's ids, `METADATA`; `PromptGenerator.get_system_message_from_compiled_memory`),
the conversation, and the agent's tools.

- Its MemGPT agents (`memgpt_agent`, `memgpt_v2_agent`, and the sleeptime agent) answer the
  user by calling `send_message` (`REPLY_TOOL`), with `tool_choice: "required"` on every
  request (only `letta_v1_agent`, which answers in plain text, sends "auto"). Read by the
  forcing (`classifier.rules.rule_intent`), every turn was tool_calling and local: a poem
  the model read as prose 0.968 and a math question as math 0.9945 (found in a live review).
  The forcing says only that the answer comes as a call, not what work it is: in Letta's
  agent requests with `send_message` offered, a forced choice ("required", or one naming
  `send_message`) is its reply channel (`replies_by_tool`), and the request is read as its
  default agent's is, whose tool choice is "auto": by the user's ask, the model's reading of
  it with the offered tools' weak prior, unless the ask clearly asks for a tool (an asking
  phrase, an offered tool's name: `classifier.rules.asks_for_tools`). A choice naming another
  tool (a tool rule that runs one first) is a tool call, as anywhere. Not every turn of a
  MemGPT agent is a reply, but none can be told from one before the model answers: a memory
  edit the ask calls for ("Please remember that I prefer tabs") is the model's reading of it.
- It puts its own texts in user turns, JSON objects of its own (`OWN_EVENTS`, `_packed`):
  the login event before a conversation's first ask (`get_login_event`), a heartbeat after
  a tool that asked to go on ("[This is an automated system message hidden from the user]
  Continuing: ...", `get_heartbeat`: 98 of them in one turn of a review), and after a
  compaction the summary of what it hid (`package_summarize_message_no_counts`,
  "system_alert"). None is the user's: each is passed over (`passed_over`), the user's last
  ask read behind them, as a tool loop's. The user's own message is sent as typed in 0.16.8
  (`server/rest_api/utils.py`: `wrap_user_message=False`); an agent's initial messages and
  its older agent loop wrap it (`package_user_message`: `{"type": "user_message", "message":
  ...}`), and the message inside is read (`user_words`).
- Its system prompt changes within one conversation: the memory blocks whenever the agent's
  memory tools (or the user, through the API) edit one, the metadata's recompile time and
  message count. Keyed by it, one agent's conversation split in two after a block's edit, its
  sticky pin lost (found in a live review); after a compaction its first ask changes too. The
  conversation key takes the agent's and the conversation's ids instead (`agent_ids`,
  `router.conversation.conversation_key`).
- Its compaction (`services/summarizer/summarizer.py`, `simple_formatter` and
  `simple_summary`) sends a request of its own: its summary prompt as the system message
  (`ALL_PROMPT`, "Your task is to create a detailed summary of the conversation so far, ...",
  or `SLIDING_PROMPT`, or the agent's `compaction_settings.prompt`), its acknowledgement as an
  assistant message when configured (`ACK`), and the transcript (`TRANSCRIPT_OPENING`, a line
  per message, `TRANSCRIPT_END`). Read by the transcript, a coding chat's went local and a
  poem's went to the cloud. A Letta agent has no one kind of work (a companion's chat holds
  poems, sums and code alike), so its summary is read by the work it asks itself: a summary in
  fixed sections, under a word limit, "Only output the summary": instruction work by the
  labelling convention (a checkable constraint on the form makes a request instruction,
  docs/classifier.md), at the confidence OpenHands' condenser's rule takes (`summary_request`,
  `classifier.rules.rule_intent`), its transcript no ask. Instruction goes local by default,
  where the agent's own memory tools' work (tool_calling) goes too: the transcript, up to a
  context window, is read there.

Each is told by Letta's exact texts: its system prompt's opening with the memory metadata's
layout, its events' JSON with their fields, the transcript's frame. A user's message shaped
like a heartbeat in another app's chat is read as written, and a forced call in another app's
request is a tool call. Not covered: a Letta agent given a system prompt of its own (no
`BASE_OPENING`) is read as any app's, and the self-compaction modes (`self_compact_*`, off by
default), which send the summary prompt as a user message of the agent's request, are read by
that prompt. Letta is no coding agent: its texts do not make the request an agent's session
(`classifier.rules.agent_session`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from itertools import islice
from typing import Any

from classifier.message import System, one_text, per_text
from classifier.tool_choice import named_function
from classifier.toolset import tool_name

BASE_OPENING = "<base_instructions>\n"
# `PromptGenerator.compile_memory_metadata_block`: its opening lines (the agent's id, the
# conversation's, "default" for the agent's own), the recompile time, the messages in recall
# memory, and at most two more (archival memories, their tags)
METADATA_OPENING = "\n<memory_metadata>\n- AGENT_ID: "
METADATA = re.compile(
    r"\n<memory_metadata>\n- AGENT_ID: (?P<agent>[\w-]{1,128})\n"
    r"- CONVERSATION_ID: (?P<conversation>[\w-]{1,128})\n"
    r"- System prompt last recompiled: [^\n]{1,128}\n"
    r"- \d{1,12} previous messages between you and the user are stored in recall memory\n"
    r"(?:- [^\n]{1,4096}\n){0,2}</memory_metadata>"
)
# How far from the system prompt's end its metadata is looked for: it ends the compiled
# prompt, before the agent's skills (`compile_available_skills`, request-scoped) if any
METADATA_WITHIN = 65_536
REPLY_TOOL = "send_message"
SCAN_TOOLS = 64  # of a request's tools, read for `REPLY_TOOL`
# Letta's events in user turns (`letta/system.py`), and the fields each may hold
OWN_EVENTS: dict[str, frozenset[str]] = {
    "heartbeat": frozenset(("type", "reason", "time", "location")),
    "login": frozenset(("type", "last_login", "time", "location")),
    "system_alert": frozenset(("type", "message", "time", "compaction_stats")),
}
USER_MESSAGE = frozenset(("type", "message", "time", "location", "name"))
# How such a packed text opens: `json_dumps` (indent 2) or `json.dumps` (one line)
_PACKED = re.compile(r'\{\n?\s*"type": "(?:heartbeat|login|system_alert|user_message)",')
# A packed text longer than this is read as sent (a compaction's summary is clipped at
# 50,000 characters; a wrapped message longer than it is read with its few words of JSON)
PACKED_CHARS = 65_536
# The compaction's request: its default prompts' openings, its acknowledgement, the frame
SUMMARY_PROMPTS = (
    "Your task is to create a detailed summary of the conversation so far, paying close"
    " attention to the user's explicit requests and your previous actions.\n",
    "The following messages are being evicted from the BEGINNING of your context window.",
)
ACK = (
    "Understood, I will respond with a summary of the message (and only the summary, nothing"
    " else) once I receive the conversation history. I'm ready."
)
TRANSCRIPT_OPENING = "<start_transcript>\n"
TRANSCRIPT_END = "\n<end_transcript>\n. Generate the summary."


def agent_ids(system: System) -> tuple[str, str] | None:
    """The agent's and the conversation's ids when a request is a Letta agent's (`framed`):
    its system prompt (`system`) opens with `BASE_OPENING` and holds the memory metadata
    (`METADATA`) near its end; None for any other request."""
    text = system.prompt
    return None if text is None else _ids(text)


@per_text
def _ids(text: str) -> tuple[str, str] | None:
    """`agent_ids` of a system prompt's text, kept for it (`per_text`): asked for each user
    message a request's asks are looked for among (`passed_over`)."""
    if not text.startswith(BASE_OPENING):
        return None
    at = text.rfind(METADATA_OPENING, max(0, len(text) - METADATA_WITHIN))
    found = METADATA.match(text, at) if at >= 0 else None
    return None if found is None else (found["agent"], found["conversation"])


def framed(system: System) -> bool:
    """Whether a request of the system prompt `system` is a Letta agent's step
    (`agent_ids`)."""
    return agent_ids(system) is not None


def replies_by_tool(system: System, tools: Sequence[Any], tool_choice: object) -> bool:
    """Whether a forced `tool_choice` is Letta's reply channel: a Letta agent's request
    (`framed` of its system prompt, `system`) with `REPLY_TOOL` among its first `SCAN_TOOLS`
    tools, forcing "required" (or Anthropic's "any") or a call of `REPLY_TOOL` itself. A
    choice naming another tool is not."""
    if tool_choice not in ("required", "any") and named_function(tool_choice) != REPLY_TOOL:
        return False
    names = (tool_name(tool) for tool in islice(tools, SCAN_TOOLS))
    return framed(system) and REPLY_TOOL in names


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is Letta's own: one of its events in a
    Letta agent's request (`OWN_EVENTS`), or its compaction's transcript (`summary_request`);
    `system`: the system prompt of `messages`."""
    if index == len(messages) - 1 and summary_request(messages, system):
        return True
    if not framed(system):  # told once a request (`_ids`): no other app's text is parsed
        return False
    packed = _packed(one_text(messages[index]))
    return packed is not None and packed.keys() <= OWN_EVENTS.get(packed["type"], frozenset())


def user_words(message: object, system: System) -> object:
    """The user's message inside Letta's wrapper (`USER_MESSAGE`) when `message` is one in a
    Letta agent's request (`framed` of its system prompt, `system`); else its content as
    sent (the very object)."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str) or not framed(system):
        return content
    packed = _packed(content)
    if packed is None or packed["type"] != "user_message" or not packed.keys() <= USER_MESSAGE:
        return content
    words = packed.get("message")
    return words if isinstance(words, str) and words else content


def _packed(text: str | None) -> dict[str, Any] | None:
    """`text` as the JSON object of one of Letta's packed texts (`_PACKED`, at most
    `PACKED_CHARS`) with its type and a time, read whole; None for any other text."""
    if text is None or len(text) > PACKED_CHARS or not _PACKED.match(text):
        return None
    try:
        packed = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return None
    if not isinstance(packed, dict) or not isinstance(packed.get("type"), str):
        return None
    return packed if "time" in packed else None


def summary_request(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are Letta's compaction's summary request: a system prompt (one of
    Letta's, `SUMMARY_PROMPTS`, or any with its acknowledgement, `ACK`, after it), the
    acknowledgement when configured, and the transcript in its frame as the one user
    message. `system`: the system prompt of `messages`."""
    if not 2 <= len(messages) <= 3:
        return False
    last = messages[-1]
    text = one_text(last) if isinstance(last, dict) and last.get("role") == "user" else None
    if text is None or not text.startswith(TRANSCRIPT_OPENING) or not text.endswith(TRANSCRIPT_END):
        return False
    prompt = system.prompt
    if prompt is None:
        return False
    if len(messages) == 2:
        return prompt.startswith(SUMMARY_PROMPTS)
    ack = messages[1]
    return isinstance(ack, dict) and ack.get("role") == "assistant" and one_text(ack) == ACK
