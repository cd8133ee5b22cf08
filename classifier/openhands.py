"""OpenHands' side calls: its title call, read by the ask inside, and its condenser's
summary request, which asks nothing and is read as the agent's work; and the summary in the
agent's later turns, no ask.

The OpenHands Software Agent SDK (pypi `openhands-sdk` 1.58.2; 1.21.0 alike) sends two
requests of its own beside an agent's turns, no tools, with the conversation's
`prompt_cache_key`:

- its title call (`openhands/sdk/conversation/title_utils.py:127-161`,
  `generate_title_with_llm`): its title prompt as the system message (`TITLE_SYSTEM`...),
  then one user message, "Generate a title (maximum 50 characters) for a conversation that
  starts with this message:\\n\\n" (`TITLE_OPENING`), the first ask (its first 1,000
  characters, then "...(truncated)"), then `TITLE_TAIL` and its list of emojis. Read
  whole, the fixed words decided (a poem's title call was instruction 0.59, an
  integral's coding 0.51), and a title call arriving before the agent's first turn
  pinned a poem's conversation to `local` (found in a live review). So the ask inside is
  read, as crush's title call's is (`classifier.crush`), and only after OpenHands' title
  prompt;
- its condenser's summary (`context/condenser/llm_summarizing_condenser.py:209-229`,
  `LLMSummarizingCondenser._build_summary_messages`: 1.58.2's `summarizing_system.j2`
  (`context/condenser/prompts/`) as the system message, then
  `summarizing_events.j2`, the forgotten events in `<EVENT>` tags and its order,
  `SUMMARY_END`; 1.21.0's `summarizing_prompt.j2`, both in one user message). Read as the
  ask it was writing 0.59; it asks nothing of a user's (the user's words in it were asks of
  their own turns): passed over as an ask, as opencode's compaction request is
  (`classifier.opencode`).

Either makes the request an agent's session (`classifier.rules.agent_session`), as the
agent's own turns are, by its built-in tools (`classifier.harness_tools`). The summary request
alone (`summary_request`: that prompt and nothing else) is read as the agent's session work,
coding (`classifier.rules.rule_intent`), as Kimi CLI's compaction is: it carries no
`prompt_cache_key` (the SDK pins the key on the agent's LLM only, the condenser's is a copy),
and with no ask it was `unknown` and went local while its session was on the cloud (found
running CLI 1.16.0, SDK 1.21.0, in a live review).

The summary the condenser writes comes back in the agent's next turns as a user message of
the model's words alone (`CondensationSummaryEvent.to_llm_message`), in the fields its prompt
orders (`USER_CONTEXT:`, then `COMPLETED:`, `PENDING:`...). Read as the ask, "USER_CONTEXT:
User asked for a haiku ... listed the working directory (stats.py only)" was coding 0.9 by
its file name. In OpenHands' request (its system prompt names it, `AGENT_IDENTITY`) a user
message that opens with `USER_CONTEXT:` and holds another of its fields on a line of its own
(`is_summary`) is passed over: the first ask is the one the condenser kept before it
(`keep_first`), or the request has none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import System, one_text

# `generate_title_with_llm`: how its system prompt opens, and its user text around the ask
TITLE_SYSTEM = (
    "You are a helpful assistant that generates concise, descriptive titles for conversations"
    " with OpenHands."
)
TITLE_OPENING = re.compile(
    r"Generate a title \(maximum \d{1,6} characters\) for a conversation that starts with"
    r" this message:\n\n"
)
TITLE_TAIL = ".Also make sure to include ONE most relevant emoji at the start of the title."
TRUNCATED = "...(truncated)"
# How far past the opening the tail is looked for: the ask is cut at 1,000 characters
TITLE_WITHIN = 1000 + len(TRUNCATED) + len(TITLE_TAIL)
# The condenser's prompt: its opening (1.58.2's system message, 1.21.0's user message) and
# the end of its events and order
SUMMARY_OPENING = "You are maintaining a context-aware state summary for an interactive agent."
EVENTS_OPENING = "<EVENT>\n"
SUMMARY_END = "</EVENT>\n\n\nNow summarize the events using the rules above."
# How the agent's system prompt names it (1.21.0's opens with it, 1.58.2's after `<SOUL>\n`)
AGENT_IDENTITY = "You are OpenHands agent, "
IDENTITY_WITHIN = 64
# The summary's first field, and its others, each opening a line: the fields the prompt
# orders (`summarizing_prompt.j2`, its "Track:" list), looked for in the summary's head
SUMMARY_FIRST = "USER_CONTEXT:"
SUMMARY_FIELDS = re.compile(
    r"^(?:TASK_TRACKING|COMPLETED|PENDING|CURRENT_STATE|CODE_STATE|TESTS|CHANGES|DEPS"
    r"|VERSION_CONTROL_STATUS):",
    re.MULTILINE,
)
SUMMARY_WITHIN = 4000
_SHOWN = re.compile(r"\S")  # where a text's words begin, past its leading space


def title_ask(message: object, messages: Sequence[Any], system: System) -> object:
    """The ask inside OpenHands' title text when `message` is its title call's user message
    (the one after its title prompt), without "...(truncated)"; else the content as sent
    (the very object). `system`: the system prompt of `messages`."""
    sent = message.get("content") if isinstance(message, dict) else None
    if len(messages) != 2 or messages[1] is not message:
        return sent
    text = one_text(message)
    opening = TITLE_OPENING.match(text) if text is not None else None
    if text is None or opening is None or not _system_opens(system, TITLE_SYSTEM):
        return sent
    start = opening.end()
    end = text.rfind(TITLE_TAIL, start, start + TITLE_WITHIN)
    if end < 0:
        return sent
    ask = text[start:end]
    return ask.removesuffix(TRUNCATED) if len(ask) == 1000 + len(TRUNCATED) else ask


def titles(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are OpenHands' title call (`title_ask`; `classifier.side_request`).
    `system`: their system prompt."""
    last = messages[-1] if len(messages) == 2 else None
    return isinstance(last, dict) and title_ask(last, messages, system) is not last.get("content")


def summary_request(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are OpenHands' condenser's summary request and nothing else: its
    prompt as one user message (1.21.0), or its system prompt (`system`) and its events
    (1.58.2)."""
    if not 1 <= len(messages) <= 2:
        return False
    last = messages[-1]
    if not isinstance(last, dict) or last.get("role") != "user":
        return False
    text = one_text(last)
    if text is None or not text.endswith(SUMMARY_END):
        return False
    if len(messages) == 1:
        return text.startswith(SUMMARY_OPENING)
    return text.startswith(EVENTS_OPENING) and _system_opens(system, SUMMARY_OPENING)


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is OpenHands' own: the events and order of
    its condenser (`summary_request`), or the summary it wrote, in the agent's request
    (`is_summary`); `system`: the system prompt of `messages`."""
    return _condensers(messages, index, system) or is_summary(messages, index, system)


def is_summary(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is a condenser's summary in OpenHands'
    request (`framed` of `system`, its system prompt): one text that opens with
    `SUMMARY_FIRST` and holds another of the prompt's fields at a line's start
    (`SUMMARY_FIELDS`) in its head."""
    text = one_text(messages[index])
    if text is None:
        return False
    shown = _SHOWN.search(text)  # not `lstrip()`, which copied a 4 MB message whole
    skip = shown.start() if shown else len(text)
    head = text[skip : skip + SUMMARY_WITHIN]
    if not head.startswith(SUMMARY_FIRST) or SUMMARY_FIELDS.search(head) is None:
        return False
    return framed(system)


def framed(system: System) -> bool:
    """Whether a request is an OpenHands agent's: its system prompt's (`system`) first text
    names it (`AGENT_IDENTITY`) near its start. The first text part, not one text
    (`System.opening`): 1.58.2 sends the repository's context as a second part."""
    content = system.opening
    return content is not None and AGENT_IDENTITY in content[:IDENTITY_WITHIN]


def _condensers(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is the events and order of OpenHands'
    condenser: after its system prompt (1.58.2), or with its prompt in one (1.21.0)."""
    text = one_text(messages[index])
    if text is None or not text.endswith(SUMMARY_END):
        return False
    if text.startswith(SUMMARY_OPENING):
        return True
    return index == 1 and text.startswith(EVENTS_OPENING) and _system_opens(system, SUMMARY_OPENING)


def _system_opens(system: System, opening: str) -> bool:
    """Whether the system prompt `system` is one text opening with `opening`."""
    prompt = system.prompt
    return prompt is not None and prompt.startswith(opening)
