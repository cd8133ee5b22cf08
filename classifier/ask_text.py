"""What of an ask the classifier reads: its content as its user wrote it, and its text.

`classifier.asks` finds which user messages are the asks; this reads one. An ask's content
is cleaned of what an agent or a framework wrote around the user's words (`ask_content`:
a crewAI task's frame, an Open WebUI task's template, crush's title text, Aider's mode
reminder...), then read as one text, without its harness blocks and clipped to a head and a
tail (`read_ask`, `content_text`); for the classifier alone, without what an app appends
whose words the conversation key needs (HolmesGPT's time: `classifier.holmes`). Kept apart
from finding the asks: the classifier's view (`classifier.request`) and the conversation
key (`router.conversation.conversation_key`) each read an ask's content, and finding asks
never reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier import (
    aider,
    claude_code,
    code_puppy,
    crush,
    frameworks,
    gpt_engineer,
    holmes,
    inspect_ai,
    jupyter_ai,
    langchain_summary,
    open_webui,
    openhands,
    pi,
)
from classifier.clip import HEAD_BYTES, TAIL_BYTES, clip, clip_head, clip_tail
from classifier.harness import own_words, turn_words
from classifier.message import SCAN_PARTS, System, part_text, read_system, scanned_texts


def content_text(content: object) -> str:
    """Text of a message's content: a string, or the text parts of a part array (images
    skipped), joined by line breaks, each without its harness blocks (`own_words`);
    clipped alike, so parts read as their joined string."""
    return _read(content, False)[0]


def _read(content: object, aiders: bool) -> tuple[str, bool]:
    """`content_text(content)`, and whether an agent's text was cut from it (`own_words`
    gives a text with nothing of an agent's back as it is); `aiders`: the request is
    Aider's (`classifier.aider.is_aiders`), whose reflections are no words."""
    if isinstance(content, str):
        words = own_words(content, aiders=aiders)
        return clip(words), words != content
    texts = scanned_texts(content)
    kept = turn_words(texts, aiders=aiders)
    cut = kept != [text for text in texts if text]
    size = sum(map(len, kept)) + len(kept) - 1
    if size <= HEAD_BYTES + TAIL_BYTES:
        return clip("\n".join(kept)), cut
    # `clip` of the joined text, without joining whole parts: each part's ends suffice
    first = "\n".join(t[:HEAD_BYTES] for t in kept)[:HEAD_BYTES]
    last = "\n".join(t[-TAIL_BYTES:] for t in kept)[-TAIL_BYTES:]
    return f"{clip_head(first, HEAD_BYTES)}\n…\n{clip_tail(last, TAIL_BYTES)}", cut


def _texts(content: object, aiders: bool) -> list[str]:
    """The texts of a part array's scanned parts, without their harness blocks
    (`turn_words`: each part is read with the one after it, and a resumed tool result with
    the resumption after it); none for anything else."""
    return turn_words(scanned_texts(content), aiders=aiders)


def ask_content(
    message: object, messages: Sequence[Any], *, system: System | None = None
) -> object:
    """The content of the ask `message` of `messages` as its user wrote it: a crewAI task's words
    inside its frame, the task of a smolagents run wherever its request holds it, a DSPy call's
    inputs... (`classifier.frameworks.task_ask`), the chat's ask inside an Open WebUI task's
    template (`classifier.open_webui`), the latest of the conversation in pi's summarization request
    (`classifier.pi`) and of the thread in LangChain's (`classifier.langchain_summary`), a `%%ai`
    cell's prompt without the sentence jupyter-ai appends for its format (`classifier.jupyter_ai`),
    the question and its choices inside inspect_ai's multiple-choice template
    (`classifier.inspect_ai`), the ask inside crush's, OpenHands' or Claude Code's title text
    (`classifier.crush`, `classifier.openhands`, `classifier.claude_code`), the first user entry of
    code-puppy's title digest (`classifier.code_puppy`), the request after the project's files in
    gpt-engineer's improve ask (`classifier.gpt_engineer`), else without the reminder of Aider's ask
    or context mode (`classifier.aider.without_mode_reminder`); any other as it is. What the
    classifier reads of an ask (`classifier.request.view`), `explain` measures
    (`classifier.request.view_cut`) and the conversation key hashes
    (`router.conversation.conversation_key`): each cleaned it apart, and a crush title call's key
    hashed the fixed words the classifier leaves out. `system`: the system prompt of `messages`,
    when the caller has read it already (`read_system`)."""
    system = read_system(messages) if system is None else system
    return _ask_content(message, messages, system)[0]


def _ask_content(message: object, messages: Sequence[Any], system: System) -> tuple[object, bool]:
    """`ask_content`, and whether a coding agent's text was cut around the ask (crush's,
    OpenHands', Claude Code's, gpt-engineer's, Aider's): not an agent framework's
    (`classifier.frameworks.task_ask`) nor Open WebUI's (`classifier.open_webui`) nor
    jupyter-ai's (`classifier.jupyter_ai`) nor an eval tool's (`classifier.inspect_ai`), no
    coding agents' (`classifier.rules.agent_session`). `system`: the system prompt of
    `messages` (`classifier.asks.user_messages`)."""
    sent = message.get("content") if isinstance(message, dict) else None
    task = frameworks.task_ask(message, messages, system)
    if task is sent:
        task = open_webui.task_ask(message, messages)
    if task is sent:
        task = pi.task_ask(message, messages, system)
    if task is sent:
        task = langchain_summary.task_ask(message, messages)
    if task is sent:
        task = jupyter_ai.prompt_words(message, messages)
    if task is sent:
        task = inspect_ai.question_ask(message)
    if task is not sent:
        return task, False
    content = crush.title_ask(message, messages)
    if content is sent:
        content = openhands.title_ask(message, messages, system)
    if content is sent:
        content = claude_code.title_ask(message, messages, system)
    if content is sent:
        content = claude_code.monitor_ask(message, messages, system)
    if content is sent:
        content = code_puppy.title_ask(message, messages, system)
    if content is sent:
        content = gpt_engineer.request_ask(message, messages, system)
    if content is sent:
        content = aider.without_mode_reminder(message, messages)
    return content, content is not sent


def read_ask(
    message: object, messages: list[Any], system: System, aiders: bool
) -> tuple[str, bool]:
    """`_read` of the ask `message`'s `ask_content` without what only the classifier leaves
    out (`_read_content`; "" for no ask), and whether a coding agent's text was cut from it:
    in it (`_read`) or around it (`_ask_content`). `system`: the system prompt of `messages`
    (`classifier.asks.user_messages`)."""
    if not isinstance(message, dict):
        return "", False
    content, around = _read_content(message, messages, system)
    text, cut = _read(content, aiders)
    return text, cut or around


def _read_content(message: object, messages: Sequence[Any], system: System) -> tuple[object, bool]:
    """`_ask_content`, without what an app appends that the conversation key keeps: the
    paragraph on time HolmesGPT appends to a question (`classifier.holmes`), whose time keeps
    two runs of one question two conversations. What the classifier reads of an ask and
    `explain` measures."""
    content, around = _ask_content(message, messages, system)
    return holmes.without_appended(content, system), around


def read_in_part(message: object, messages: list[Any], system: System, aiders: bool) -> bool:
    """Whether the ask `message` (None: no ask) was read only in part
    (`classifier.request.view_cut`); `system`: the system prompt of `messages`."""
    content = _read_content(message, messages, system)[0]
    if isinstance(content, list):
        if len(content) > SCAN_PARTS and any(part_text(part) for part in content[8:-8]):
            return True  # parts `content_text` skips
        content = "\n".join(_texts(content, aiders))
    elif isinstance(content, str):
        content = own_words(content, aiders=aiders)
    return isinstance(content, str) and clip(content) is not content
