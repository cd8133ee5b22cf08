"""A deterministic stand-in tokenizer: words and punctuation marks count as one token each.

Real tokenizers differ, but the router only needs counts that are stable, roughly
proportional to text length, and consistent between the prompt check and the usage report.
"""

from __future__ import annotations

import re
import zlib
from typing import Any

_TOKEN = re.compile(r"\w+|[^\w\s]")
_PIECE = re.compile(r"\s*(?:\w+|[^\w\s])")
_PER_MESSAGE = 4  # role markers and separators of a chat template
VOCAB = 32000  # what vLLM's `logprobs: -1` (the whole vocabulary) asks for
_TEMPLATE_ID = 1  # the id every chat-template token gets
BOS = "<s>"  # the token a completions prompt (a string) begins with, as Llama's tokenizer adds it
BOS_ID = _TEMPLATE_ID


def count(text: str) -> int:
    return len(_TOKEN.findall(text))


def pieces(text: str) -> list[str]:
    """Split text into token-sized pieces whose concatenation is exactly `text`.

    Trailing whitespace joins the last piece, so there are exactly `count(text)` pieces.
    """
    out: list[str] = _PIECE.findall(text)
    tail = text[sum(map(len, out)) :]
    if tail:
        if out:
            out[-1] += tail
        else:
            out = [tail]
    return out


def content_text(content: Any) -> str:
    """The text of a message `content`: a string, or OpenAI/Anthropic content parts (a
    plain string part as text, as vLLM reads one: `checks.check_messages`)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                text = part.get("text") or part.get("content")
                if isinstance(text, str):
                    parts.append(text)
                elif isinstance(text, list):
                    parts.append(content_text(text))
        return "\n".join(parts)
    return ""


def messages_tokens(messages: list[Any], extra: str = "") -> int:
    """Prompt tokens of a chat: every message's text plus template overhead."""
    total = 2 + count(extra)
    for message in messages:
        if isinstance(message, dict):
            total += _PER_MESSAGE + count(content_text(message.get("content")))
            for call in message.get("tool_calls") or []:
                total += count(str(call))
    return total


def ids(text: str, total: int) -> list[int]:
    """Stand-in token ids for `/tokenize`: a stable hash per piece of `text`, then template
    tokens up to `total` (the count the chat template gives)."""
    out = [token_id(p) for p in pieces(text)][:total]
    return out + [_TEMPLATE_ID] * (total - len(out))


def token_id(piece: str) -> int:
    """A piece's stand-in id: a stable hash of it."""
    return zlib.crc32(piece.strip().encode()) % VOCAB + 3


def decoded(token: int) -> str:
    """The text a token id given in a completions `prompt` reads as: a word of its own (the
    stand-in ids are hashes, which no text can be read back from)."""
    return f" t{token}"
