"""Reading a text to a bounded head and tail, in bytes of UTF-8: how much of a request's
texts the classifier reads (`classifier.asks`), and of a training row's (`classifier.train`)."""

from __future__ import annotations

# The latest and first user messages are read to a head and a tail of so many bytes of UTF-8:
# characters of English, a third as many of Chinese or Japanese. Counted in characters, a CJK
# text (a token a character, where English has about four characters a token) was read to
# four times the tokens, and a 1,500-character Chinese message took 0.48 ms CPU p50 to
# classify on the build machine (0.33 ms read in bytes; English at the bound 0.21 ms,
# docs/benchmarks.md). Tokenisers work on bytes too: per byte, scripts differ far less in
# tokens than per character.
HEAD_BYTES = 1500
TAIL_BYTES = 500


def clip(text: str, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> str:
    """Keep a bounded head and tail, in bytes of UTF-8: the ask is usually at the start or
    the end. ASCII text (most requests) is never encoded; text of up to head + tail
    characters is encoded once, and cut from that encoding."""
    if len(text) > head + tail:  # over the bound whatever the script: encode only the ends
        return f"{clip_head(text, head)}\n…\n{clip_tail(text, tail)}"
    if text.isascii():
        return text
    raw = text.encode(errors="surrogatepass")
    if len(raw) <= head + tail:
        return text
    return f"{_head_of(raw, head)}\n…\n{_tail_of(raw, tail)}"


def clip_head(text: str, size: int) -> str:
    """The longest start of `text` within `size` bytes."""
    part = text[:size]
    return part if part.isascii() else _head_of(part.encode(errors="surrogatepass"), size)


def _head_of(raw: bytes, size: int) -> str:
    """The longest start of the UTF-8 text `raw` within `size` bytes, decoded."""
    cut = min(size, len(raw))
    while cut < len(raw) and _continues(raw[cut]):  # not inside a character
        cut -= 1
    return raw[:cut].decode(errors="surrogatepass")


def clip_tail(text: str, size: int) -> str:
    """The longest end of `text` within `size` bytes."""
    part = text[-size:]
    return part if part.isascii() else _tail_of(part.encode(errors="surrogatepass"), size)


def _tail_of(raw: bytes, size: int) -> str:
    """The longest end of the UTF-8 text `raw` within `size` bytes, decoded."""
    start = max(0, len(raw) - size)
    while start < len(raw) and _continues(raw[start]):
        start += 1
    return raw[start:].decode(errors="surrogatepass")


def _continues(byte: int) -> bool:
    """A UTF-8 continuation byte: the middle of a character."""
    return byte & 0xC0 == 0x80
