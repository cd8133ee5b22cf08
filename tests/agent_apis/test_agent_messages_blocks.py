"""Messages blocks chat has no part for, as a chat backend receives them: an image given by
Files API id, a document of plain text, a search result. Real sockets: Anthropic-shaped
bodies through the router to the `cloud` simulator (chat only), which keeps what it got."""

from __future__ import annotations

from typing import Any

import httpx

from tests.harness import Running, RunningRouter

ASK = {"type": "text", "text": "Summarize this."}
NOT_PASSED = "(%s was attached here; it could not be passed on)"


def sent_for(
    proxy: RunningRouter, servers: dict[str, Running], content: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The chat messages the `cloud` backend received for one user turn of `content`."""
    body = {"model": "cloud", "max_tokens": 20, "messages": [{"role": "user", "content": content}]}
    reply = httpx.post(f"{proxy.url}/messages", json=body, timeout=30)
    assert reply.status_code == 200, reply.text
    messages: list[dict[str, Any]] = servers["cloud"].stats()["last_request"]["messages"]
    return messages


def texts(message: dict[str, Any]) -> list[str]:
    content = message["content"]
    return content.split("\n") if isinstance(content, str) else [content]


def test_an_image_by_file_id_is_a_note_not_an_empty_url(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """An image whose source is neither base64 nor a URL reached chat as `image_url` with
    an empty URL, which real backends refuse (found in review); a URL image still passes."""
    by_id = {"type": "image", "source": {"type": "file", "file_id": "file_011"}}
    sent = sent_for(proxy, servers, [ASK, by_id])
    assert sent == [{"role": "user", "content": "Summarize this.\n" + NOT_PASSED % "an image"}]
    by_url = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    sent = sent_for(proxy, servers, [ASK, by_url])
    assert sent[0]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "https://example.com/a.png"},
    }


def test_a_plain_text_document_passes_as_text_a_pdf_as_the_note(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """A `text` document was replaced by the note that a document could not be passed on,
    though chat carries text (found in review); a `content` document passes its text blocks
    (an image among them noted). A PDF is still the note."""
    text_doc = {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "The secret is 42."},
        "title": "notes.txt",
        "context": "Written by Alice.",
    }
    sent = sent_for(proxy, servers, [ASK, text_doc])
    assert texts(sent[0]) == [
        "Summarize this.",
        "Document: notes.txt",
        "Context: Written by Alice.",
        "The secret is 42.",
    ]
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}
    chunks = [{"type": "text", "text": "Part one."}, image, {"type": "text", "text": "Part two."}]
    content_doc = {"type": "document", "source": {"type": "content", "content": chunks}}
    sent = sent_for(proxy, servers, [ASK, content_doc])
    assert texts(sent[0]) == [
        "Summarize this.",
        "Document:",
        "Part one.",
        NOT_PASSED % "an image",
        "Part two.",
    ]
    pdf = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf"}}
    sent = sent_for(proxy, servers, [ASK, pdf])
    assert texts(sent[0]) == ["Summarize this.", NOT_PASSED % "a document"]


def test_an_untitled_document_is_labelled_and_an_empty_one_ends_without_a_newline(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """An untitled text document ran on from the user's text with nothing to tell them
    apart, and an empty one left a trailing newline (found in review)."""
    untitled = {"type": "document", "source": {"type": "text", "data": "The secret is 42."}}
    sent = sent_for(proxy, servers, [ASK, untitled])
    assert sent[0]["content"] == "Summarize this.\nDocument:\nThe secret is 42."
    empty = {"type": "document", "source": {"type": "text", "data": ""}, "title": "empty.txt"}
    sent = sent_for(proxy, servers, [ASK, empty])
    assert sent[0]["content"] == "Summarize this.\nDocument: empty.txt"


def test_a_search_result_passes_as_text_in_a_turn_and_in_a_tool_result(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """A `search_result` block vanished without a word, in a user turn and in a tool
    result (found in review): its text reaches the model under its title and source."""
    result = {
        "type": "search_result",
        "source": "https://example.com/guide",
        "title": "Guide",
        "content": [{"type": "text", "text": "Install with pip."}],
    }
    sent = sent_for(proxy, servers, [ASK, result])
    assert texts(sent[0]) == [
        "Summarize this.",
        "Search result: Guide",
        "Source: https://example.com/guide",
        "Install with pip.",
    ]
    call = {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "install"}}
    body = {
        "model": "cloud",
        "max_tokens": 20,
        "tools": [{"name": "search", "input_schema": {"type": "object"}}],
        "messages": [
            {"role": "user", "content": "How do I install it?"},
            {"role": "assistant", "content": [call]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [result]}],
            },
        ],
    }
    reply = httpx.post(f"{proxy.url}/messages", json=body, timeout=30)
    assert reply.status_code == 200, reply.text
    tool = servers["cloud"].stats()["last_request"]["messages"][-1]
    assert tool["role"] == "tool" and tool["tool_call_id"] == "toolu_1"
    assert (
        tool["content"]
        == "Search result: Guide\nSource: https://example.com/guide\nInstall with pip."
    )


def test_the_classifier_reads_none_of_these_texts(
    proxy: RunningRouter, servers: dict[str, Running]
) -> None:
    """The texts passed on are the model's to read, not the user's ask: a document or a
    search result alone is classified as an image alone is (a guard)."""
    png = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}
    doc = {"type": "document", "source": {"type": "text", "data": "Prove that 2 + 2 = 4."}}
    found = {
        "type": "search_result",
        "source": "s",
        "title": "t",
        "content": [{"type": "text", "text": "Write a poem."}],
    }
    heard = set()
    for block in (png, doc, found):
        body = {
            "model": "auto",
            "max_tokens": 20,
            "messages": [{"role": "user", "content": [block]}],
        }
        reply = httpx.post(f"{proxy.url}/messages", json=body, timeout=30)
        assert reply.status_code == 200, reply.text
        heard.add((reply.headers["x-smf-intent"], reply.headers["x-smf-confidence"]))
    assert len(heard) == 1
