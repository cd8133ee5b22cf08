"""NeMo Guardrails' dialog-rail prompts: the user's asks after its sample conversation.

NeMo Guardrails (0.24.1, Apache-2.0: `nemoguardrails/llm/prompts/general.yml`,
`openai-chatgpt.yml`, `nemoguardrails/llm/filters.py`) runs a Colang 1.0 dialog turn as 2-3
requests: `generate_user_intent`, `generate_next_steps` and `generate_bot_message`. Each
opens with the same fixed head for every user: the config's general instructions, its sample
conversation, its example intents or bot messages; then "This is the current conversation
between the user and the bot:", the sample's first two turns again (`first_turns(2)`), and
only then the session's history. Two shapes:

- text (`general.yml:13-73`, any model without a chat prompt of its own): one user message,
  the instructions between triple quotes (`OPENING`), "# This is how a conversation
  between a user and the bot can go:" (`general.yml:19`) and the sample, then `CURRENT`
  (`general.yml:25,44,69`), `generate_user_intent`'s "# Choose intent from this list:
  ..." line (`general.yml:26`), the sample's first two turns and the history, each user
  message a `User message: "..."` line (`filters.py:245-260`, `verbose_v1`).
  `generate_next_steps` sends no user message (`remove_text_messages`,
  `general.yml:39,45-46`): its turns are `User intent: ...` lines;
- chat (`openai-chatgpt.yml:17-119`, `openai/gpt-3.5-turbo` and `gpt-4`, or a config's
  copy for its model): system messages for each heading, the sample's turns as user and
  assistant messages (`filters.py:124-162`, `to_messages`), the system message
  `CHAT_CURRENT`, the sample's first two turns again, then the history.

Read as written, the head decided: the text prompts' fixed part is longer than the 2,048
characters a conversation key hashes of the first ask (`router.conversation.KEY_CHARS`), and
the chat prompts' first user message is always the sample's "Hello there!": every user's
calls of a task were one conversation, and the first user's backend pinned everyone's (a
math ask served local, pinned by another user's coding turn); the sample's words and the
model's own intent lines made a math ask's bot message writing (found running NeMo
Guardrails 0.24.1 against the router). So the history after the sample's two turns is read
(`dialog_asks`): its first user message is the session's first ask, which keys it, and its
latest is the ask, for the user intent, the next steps and the bot message alike; of a text
`generate_next_steps`, which holds no user words, its intent lines.

Only NeMo's structure whole: the sample's two turns after `CURRENT` as its sample section
opens, which tells the sample's own turns from the session's. A sample of fewer than three
turns, the compact chat prompt (`openai-chatgpt.yml:43-58`, no sample section), a custom
prompt, and the self-check and `general` tasks' prompts (the checked text or the history
inside a template short of the key's bound) are read as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import SCAN_ROLES, AskPair, ask_pair, one_text, per_text, role

# The text prompts' opening (`general.yml:15`) and their headings (`general.yml:19,25`)
OPENING = '"""\n'
SAMPLE = "\n# This is how a conversation between a user and the bot can go:\n"
CURRENT = "\n# This is the current conversation between the user and the bot:\n"
CHOOSE = "# Choose intent from this list: "  # `generate_user_intent`'s line after `CURRENT`
# The chat prompts' system messages before the sample and before the session
# (`openai-chatgpt.yml:26,36`)
CHAT_SAMPLE = "This is how a conversation between a user and the bot can go:"
CHAT_CURRENT = "This is the current conversation between the user and the bot:"
# A turn's line in the text prompts: a user message, or a user intent where the prompt holds
# no user message (`generate_next_steps`); and the lines that end a line's entry
USER_MESSAGE = 'User message: "'
USER_INTENT = "User intent: "
_ENTRY = re.compile(r"\n(?=User message: \"|User intent: |Bot intent: |Bot message: )")
# How many of the sample's turns NeMo repeats after `CURRENT` (`first_turns(2)`)
SAMPLE_TURNS = 2
# How far into the text `SAMPLE` is looked for (the general instructions come first), and how
# far past it `CURRENT` (the sample and the examples): past them, read as written
INSTRUCTIONS_WITHIN = 16_384
HEAD_WITHIN = 262_144
# How much of the history's start and end is read for its first and latest ask
TURN_WITHIN = 65_536
# How many messages of a chat prompt are read for its headings (its examples come first),
# and for its history's first user message; its latest is looked for as far back as a chat's
# (`classifier.message.SCAN_ROLES`, by role alone)
CHAT_MESSAGES = 512


def dialog_asks(messages: Sequence[Any]) -> AskPair | None:
    """The session's first and latest ask when `messages` are one of NeMo's dialog-rail
    prompts (`_text_asks`, `_chat_asks`), as user messages; None for any other request."""
    if len(messages) == 1:
        read = _one_text(messages)
        return None if read is None else ask_pair(*read)
    return _chat_asks(messages)


def task_ask(message: object, messages: Sequence[Any]) -> object:
    """The session's latest ask when `message` is a text dialog-rail prompt, the request's one
    message (`_text_asks`): what the ledger keeps as the prompt; else the content as sent
    (the very object)."""
    sent = message.get("content") if isinstance(message, dict) else None
    if len(messages) != 1 or messages[0] is not message:
        return sent
    read = _one_text(messages)
    return sent if read is None else read[1]


def _one_text(messages: Sequence[Any]) -> tuple[str, str] | None:
    """`_text_asks` of the one user message of `messages`; None for any other."""
    message = messages[0]
    if role(message) != "user":
        return None
    text = one_text(message)
    return _text_asks(text) if text is not None and text.startswith(OPENING) else None


@per_text
def _text_asks(text: str) -> tuple[str, str] | None:
    """The first and the latest ask of the history in a text dialog-rail prompt: after
    `CURRENT`, its `CHOOSE` line and the sample's first turns as its sample section opens
    (`_sample_turns`); None for any other text, or a history with no turn. Read once for a
    request (`classifier.message.per_text`)."""
    sample = text.find(SAMPLE, 0, INSTRUCTIONS_WITHIN + len(SAMPLE))
    if sample < 0:
        return None
    start = sample + len(SAMPLE)
    current = text.find(CURRENT, start, start + HEAD_WITHIN)
    if current < 0:
        return None
    turns = _sample_turns(text[start:current])
    if turns is None:
        return None
    turn, repeated = turns
    at = current + len(CURRENT)
    if text.startswith(CHOOSE, at):
        line_end = text.find("\n", at)
        if line_end < 0:
            return None
        at = line_end + 1
    if not text.startswith(repeated + "\n", at):
        return None
    history = text[at + len(repeated) + 1 :]
    first = _entry(history, _first_turn(history[:TURN_WITHIN], turn), turn)
    tail = max(0, len(history) - TURN_WITHIN)
    latest = _entry(history, _last_turn(history, tail, turn), turn)
    if first is None or latest is None:
        return None
    return first, latest


def _sample_turns(sample: str) -> tuple[str, str] | None:
    """What turn line the sample section `sample` opens with (`USER_MESSAGE`, or
    `USER_INTENT` where its user messages were removed), and its text up to its
    (`SAMPLE_TURNS` + 1)th turn: what NeMo repeats after `CURRENT`. None for a sample of
    fewer turns, or one that opens otherwise."""
    turn = next((t for t in (USER_MESSAGE, USER_INTENT) if sample.startswith(t)), None)
    if turn is None:
        return None
    at = 0
    for _ in range(SAMPLE_TURNS):
        at = sample.find("\n" + turn, at + 1)
        if at < 0:
            return None
    return turn, sample[:at]


def _first_turn(history: str, turn: str) -> int:
    """Where the first `turn` line of `history` starts; -1 without one."""
    if history.startswith(turn):
        return 0
    at = history.find("\n" + turn)
    return at + 1 if at >= 0 else -1


def _last_turn(history: str, start: int, turn: str) -> int:
    """Where the last `turn` line of `history[start:]` starts; -1 without one."""
    at = history.rfind("\n" + turn, start)
    if at >= 0:
        return at + 1
    return start if history.startswith(turn, start) else -1


def _entry(history: str, at: int, turn: str) -> str | None:
    """The words of the `turn` line at `at` of `history`, up to the next entry's line
    (`_ENTRY`: a user's message may run over lines): a user message without its quotes, an
    intent as written; None for none (`at` -1) or an empty one."""
    if at < 0:
        return None
    start = at + len(turn)
    end = _ENTRY.search(history, start, start + TURN_WITHIN)
    words = history[start : end.start() if end else start + TURN_WITHIN].rstrip()
    if turn == USER_MESSAGE:
        words = words[:-1] if words.endswith('"') else words
    return words if words.strip() else None


def _chat_asks(messages: Sequence[Any]) -> AskPair | None:
    """The first and the latest user message of the history in a chat dialog-rail prompt:
    after the system message `CHAT_CURRENT` and the sample's first turns as they follow
    `CHAT_SAMPLE` (`_repeated`); None for any other request, or a history with no user
    message."""
    sample = current = -1
    for index, message in enumerate(messages[:CHAT_MESSAGES]):
        if role(message) == "system":
            content = message.get("content")
            if content == CHAT_SAMPLE and sample < 0:
                sample = index
            elif content == CHAT_CURRENT and sample >= 0:
                current = index
                break
    if current < 0:
        return None
    count = _repeated(messages[sample + 1 : current])
    if count is None:
        return None
    start = current + 1
    if start + count > len(messages):
        return None
    if not all(_same(messages[sample + 1 + i], messages[start + i]) for i in range(count)):
        return None
    history = range(start + count, len(messages))
    first = next((i for i in history[:CHAT_MESSAGES] if role(messages[i]) == "user"), None)
    if first is None:
        return None
    back = reversed(history[-SCAN_ROLES:])
    latest = next((i for i in back if role(messages[i]) == "user"), first)
    return AskPair(messages[first], messages[max(first, latest)])


def _repeated(sample: Sequence[Any]) -> int | None:
    """How many messages of the sample's `sample` NeMo repeats: those before its
    (`SAMPLE_TURNS` + 1)th user message; None for a sample of fewer."""
    seen = 0
    for index, message in enumerate(sample):
        if role(message) == "user":
            seen += 1
            if seen > SAMPLE_TURNS:
                return index
    return None


def _same(sample: object, repeated: object) -> bool:
    """Whether the message `repeated` is the sample's message `sample` again."""
    return (
        isinstance(sample, dict)
        and isinstance(repeated, dict)
        and role(sample) == role(repeated)
        and sample.get("content") == repeated.get("content")
    )
