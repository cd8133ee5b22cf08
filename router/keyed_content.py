"""What a conversation key hashes of a message's content (`router.conversation`): its
words, whatever their shape, and never its parts' prompt-caching marks. Apart from the key's
reading of which messages it hashes, so that `router.conversation` holds one idea.
"""

from __future__ import annotations

from classifier.message import scanned_texts

# A content part's prompt-caching marks (`said`): Anthropic's and OpenRouter's, litellm's
CACHE_MARKS = ("cache_control",)


def keyed(content: object) -> str:
    """What a key hashes of `content` (a message's, or its ask's): its words, whatever their
    shape. A string is itself; a part array the texts of its text parts, one a line, its other
    parts (images, files) passed over, read as the classifier reads them
    (`classifier.message.scanned_texts`: the first and the last 8 parts of a long array, a
    thousand images are not each read): "X" and `[{"type": "text", "text": "X"}]` are one
    conversation. Keyed as sent, they were two, and a client that sends an ask as a string,
    then as parts in the history it resends, keyed every follow-up anew, its pin lost
    (llama-stack 0.2.12's Responses API does, a math chat pinned to the cloud went local on
    its second turn: found live; the OpenAI Agents SDK and the Vercel AI SDK convert between
    the two too). A Responses input's `input_text` parts and a Messages request's text blocks
    reach it as a chat view's text parts (`router.request.readable_view`), and key so too.
    Content of no text (an image alone, none, an odd shape) is keyed by its shape as sent
    (`said`), as before: the same parts sent again key alike."""
    if isinstance(content, list):
        texts = [text for text in scanned_texts(content) if text]
        if texts:
            return "\n".join(texts)
    return str(said(content))


def said(content: object) -> object:
    """`content` (a message's, or its ask's) without its parts' prompt-caching marks
    (`CACHE_MARKS`), which say nothing of what was said: litellm's
    `cache_control_injection_points`, and Cline, Roo or an OpenRouter user, mark the newest
    one or two user messages' parts `cache_control`, so a session's first ask was marked on
    its first turn only and its key changed on the second (a BeeAI chat of three turns was
    two conversations, found running BeeAI Framework 0.1.85 through litellm). Content
    without such a mark is `content` itself. Its text parts' marks no longer reach a key,
    which hashes their text alone (`keyed`); the marks of content of no text still would. A
    Messages request's blocks need none of this: its chat view drops their `cache_control`
    (`router.translate.anthropic_request`)."""
    if not isinstance(content, list) or not any(_marked(part) for part in content):
        return content
    return [
        {k: v for k, v in part.items() if k not in CACHE_MARKS} if _marked(part) else part
        for part in content
    ]


def _marked(part: object) -> bool:
    return isinstance(part, dict) and any(mark in part for mark in CACHE_MARKS)
