"""A chat message's one text: what an agent's fixed messages are matched against; and the
request's first user message, which some of them come only after.

Agents' fixed user and assistant messages (Aider's pairs and examples, opencode's and Qwen
Code's own: `classifier.aider`, `classifier.opencode`, `classifier.qwen`) are one text each,
sent as a string or as one text part (an SDK may send it so, Qwen Code does, and Aider
when it marks a message for Anthropic's prompt cache). Each module read it with a helper
of its own, two of them alike but for what they gave back for no text; one reads it now.

The asks' reader (`classifier.asks`) and the eval tools' template reader
(`classifier.templates`) read a part with `part_text`, and only the first and the last 8 of
a long part array (`scanned_at`, `SCAN_PARTS`): the template reader had a part reader of its
own, which took a part of no text for a text (a request with `[{"type": "text"}]` failed
with a 500) and read all of a message's parts (160,000 images: classify went from 0.4 ms to
50-85 ms), both found in review. A message's opening text (`opening_text`, a system
prompt's: `System.opening`) is read by it too.

Some fixed user messages are a framework's only after its task, the request's first user
message (ADK's relays and fillers, mini-swe-agent's answer to a reply it could not run):
`after_first_user` tells whether a message comes after that one and that one is none of
them, looking for it within the bound the first ask is looked for in (`SCAN_MESSAGES`,
`classifier.asks.first_ask`). Each module had that loop of its own, alike but for what it
asked of the message (found in review).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import islice
from typing import Any, NamedTuple, TypeVar

T = TypeVar("T")

# How many of a request's first messages are read for its first user message, and for its
# first ask (`classifier.asks.first_ask`): bounded, however long the conversation.
SCAN_MESSAGES = 64
# How far back a request's latest user message is looked for, by role alone: by the asks'
# reader (`classifier.asks`) and Marvin's and NeMo Guardrails' readers, which each had a copy
# of it (found in review). 50-90 ns a message: 0.2-0.35 ms at the bound on the build
# machine (docs/benchmarks.md), a tenth or less of what parsing those messages' JSON took. An
# agent's tool loop adds two or more messages a round and runs hundreds of rounds: at 64, the
# ask was lost after 32 and the first message decided alone. 4,096 is ~2,000 rounds, more
# than a 200k-token window holds at ~100 tokens a round; beyond it, the first user message
# decides alone, as it did past 64.
SCAN_ROLES = 4096
# How many of a message's parts are read: all of them up to 16, else the first and the last
# 8 (`scanned_parts`), however many images a message carries.
SCAN_PARTS = 16
# A content part that holds text: a chat body's, a Responses body's input and its output's
TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})
# How many messages after a tool's summary are read, at most, for a user message (by role
# alone): `user_after`
USER_AFTER = 4096


def part_text(part: object) -> str | None:
    """A content part's text when it is a text part (`TEXT_PART_TYPES`, or no type: an SDK
    may leave it out) of a string text, or a bare string; None for any other part, so one
    odd part does not cost the others."""
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return None
    kind, text = part.get("type", "text"), part.get("text")
    if isinstance(kind, str) and kind in TEXT_PART_TYPES and isinstance(text, str):
        return text
    return None


def scanned_parts(content: Sequence[Any]) -> list[Any]:
    """The parts of a part array that are read (`scanned_at`)."""
    return [content[at] for at in scanned_at(len(content))]


def scanned_texts(content: object) -> list[str]:
    """The text of each of a part array's scanned parts (`scanned_parts`: the first and last
    8 of a long one), "" for a part of no text; none for anything else. One reading for the
    user's asks (`classifier.asks`) and a request of system messages alone
    (`classifier.system_ask`), which each had it."""
    if not isinstance(content, list):
        return []
    return [part_text(part) or "" for part in scanned_parts(content)]


def scanned_at(count: int) -> Sequence[int]:
    """Where the parts read of an array of `count` parts are: all of them, or the first and
    the last 8 of more than `SCAN_PARTS` (a task's text comes first, a tool result's last)."""
    half = SCAN_PARTS // 2
    return range(count) if count <= SCAN_PARTS else (*range(half), *range(count - half, count))


def opening_text(message: object) -> str | None:
    """A message's opening text: its content when a string, else its first part's text when
    that is a text part (`part_text`); None otherwise. Exactly its opening: a text after an
    image is not looked for (an agent's fixed text opens the message it sends, browser-use's
    step and judge a screenshot after it)."""
    return lead_text(message.get("content") if isinstance(message, dict) else None)


def lead_text(content: object) -> str | None:
    """A content's opening text (`opening_text`'s of a message): the content when a string,
    else its first part's text when that is a text part (`part_text`); None otherwise. A
    framework puts a task's files or images after its text (crewAI, PraisonAI)."""
    if isinstance(content, list):
        content = part_text(content[0]) if content else None
    return content if isinstance(content, str) else None


def one_text(message: object) -> str | None:
    """A message's content when it is one text: a string, or the text of its one text
    part; None otherwise (no content, several parts, a part of no text)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
        content = content[0].get("text") if content[0].get("type") == "text" else None
    return content if isinstance(content, str) else None


class System(NamedTuple):
    """A request's system prompt, read once for the request (`read_system`) and handed to
    each app's or framework's reader that tells its requests by it. Each reader found it
    anew, some for each user message scanned: 10 to 23 readings a request of the classifier
    bench's, most of them of no system prompt (found profiling a short request)."""

    # Its one text (`one_text`): what an agent's or a framework's reader looks for its
    # identity in (ADK's, Kimi CLI's, Open Interpreter's, gptme's, instructor's), before it
    # passes any of its texts over.
    prompt: str | None = None
    # Its opening text (`opening_text`): what an agent's reader looks for its identity at the
    # start of when the prompt may come in several parts (opencode's in two, OpenHands' with
    # the repository's context, Claude Code's blocks kept apart through a gateway), where
    # `prompt` is only one text.
    opening: str | None = None
    # Its content as sent (None for no system prompt): what the classifier's view reads of
    # it whole, every text part (`classifier.request.RequestView.system`), which read the
    # request's first message and its role apart (found in review).
    content: object = None


# A request that opens with no system prompt
NO_SYSTEM = System()


def read_system(messages: Sequence[Any]) -> System:
    """The system prompt of a request's `messages`: its first message when that is a system
    or a developer message (OpenAI's APIs take either); `NO_SYSTEM` otherwise. One reading
    for both texts: the one took a developer message and the other did not, so an identity
    was found in a developer prompt by one reader and missed by the next (found in
    review)."""
    first = messages[0] if messages else None
    if not isinstance(first, dict) or first.get("role") not in ("system", "developer"):
        return NO_SYSTEM
    return System(one_text(first), opening_text(first), first.get("content"))


class AskPair(NamedTuple):
    """The first and the latest ask read out of one text of a tool's own (an Open WebUI
    task's history, pi's summarization request's conversation, a browser-use run's task),
    each a user message of its text: the same object when they are one text
    (`classifier.asks.user_messages` reads them as a chat's). One for all: each module had a
    NamedTuple and its builder of its own, alike (found in review)."""

    first: dict[str, Any]
    latest: dict[str, Any]


def ask_pair(first: str, latest: str) -> AskPair:
    """The asks `first` and `latest` as user messages (`AskPair`)."""
    last = {"role": "user", "content": latest}
    return AskPair(last if first == latest else {"role": "user", "content": first}, last)


def windowed_asks(
    text: str, within: int, entries: Callable[[str, int, int], tuple[str, str] | None]
) -> tuple[str, str]:
    """The first and the latest ask of a tool's own `text` of entries (pi's summarization
    request's conversation, LangChain's thread): the first found in its first `within`
    characters, the latest in its last (`entries(text, start, end)`: the first and the last
    ask of `text[start:end]`, None for none), the first window's when the last holds none;
    with none in either, `text` whole ("" for white space alone), clipped as any ask.
    Bounded, however long the text. pi's reader and LangChain's each had a copy (found in
    review)."""
    head = entries(text, 0, min(len(text), within))
    tail = head
    if len(text) > within:
        tail = entries(text, len(text) - within, len(text)) or head
    if tail is None:  # no ask in either window: the text whole
        whole = "" if text.isspace() else text
        return whole, whole
    return (head or tail)[0], tail[1]


def per_text(read: Callable[[str], T]) -> Callable[[str], T]:
    """`read`, its last answer kept for the very text it was given (by identity: a string
    never changes, and the one kept is held, so its id is never another's). A framework's
    reader tells its requests by their first message, and is asked so for each message
    scanned (`classifier.asks`): read anew each time, one request of a few hundred
    messages around a 64 KB first message took a second to classify (found in review). Only
    the last text is kept: the texts of one request are read together."""
    last: list[tuple[str, T]] = []

    def cached(text: str) -> T:
        kept = last[0] if last else None
        if kept is not None and kept[0] is text:
            return kept[1]
        answer = read(text)
        last[:] = [(text, answer)]
        return answer

    return cached


def role(message: object) -> object:
    """A message's role, None for no message: a body's messages are read as sent."""
    return message.get("role") if isinstance(message, dict) else None


def user_after(messages: Sequence[Any], index: int) -> bool:
    """Whether a user message comes after `messages[index]` (among the next `USER_AFTER`): a
    tool's summary of a compacted conversation (pydantic-ai's, pi's) is passed over only
    then, the turn read by that later ask. pi's reader wrote pydantic-ai's loop, its bound and
    its role reader again (found in review)."""
    return any(role(m) == "user" for m in islice(messages, index + 1, index + 1 + USER_AFTER))


def after_first_user(messages: Sequence[Any], index: int, own: Callable[[object], bool]) -> bool:
    """Whether `messages[index]` comes after the request's first user message (looked for
    among the first `SCAN_MESSAGES`), and that message is not `own` (one of the framework's
    fixed messages): a framework that sends its task first, always, sends its own texts only
    after it, so one with no task before it is a user's paste, read as written."""
    for message in islice(messages, min(index, SCAN_MESSAGES)):
        if isinstance(message, dict) and message.get("role") == "user":
            return not own(message)
    return False
