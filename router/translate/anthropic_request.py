"""An Anthropic Messages request as a chat completions request.

Mapping: `system` → a system message; `tool_use` blocks → assistant `tool_calls`;
`tool_result` blocks → `tool` messages placed before the user's other content (Anthropic
puts results first in the turn that follows the call); a system turn within `messages`
(Claude Code's, newer versions) → a user message, after the tool results when it came
between the calls and them (`router.translate.after_results`; the classifier's view keeps
only one with a message the user typed, `router.translate.view`); `tools[].input_schema` →
`function.parameters`; `tool_choice` any/tool/none → required/function/none (a named
tool only when it is among the tools sent); `stop_sequences` → `stop` (more than chat's
4 are refused per backend, `router.translate.stop_limit`). Thinking blocks and server tools
have no chat equivalent and are dropped. Pure: dict in, dict out.

A document of plain text (a `text` or `content` source) and a search result become text
parts, under their title (and a result's source); what chat cannot carry (a PDF, an image
or a document given by Files API id) becomes a placeholder text telling the model so. The
classifier's view (`router.translate.view`) asks for none (`placeholders=False`): it would
read the router's words, and a document's or search result's text, as the user's ask.

Claude Code's attribution block (`router.translate.attribution`, the first system block from
2.1.36 on) is left out: its `cch` nonce changes on every request, and at the head of the
prompt it made every turn miss a backend's prefix cache (vllm#36829,
anthropics/claude-code#68900). A backend that speaks Messages itself gets it as sent
(`native_messages`).

A prefill (a last turn of the assistant's text) is continued on vLLM alone (`prefill=True`,
`router.translate.prefill`).

A tool search's deferred tools (`defer_loading`) are offered once a `tool_reference` in the
history loaded them, and a reference is a line of text ("Tool loaded: NAME"; the
classifier's view has neither change: `router.translate.tool_search`).

`cache_control` (Claude Code's prompt-cache breakpoints) is chat's only for a backend that
hands it back to Anthropic (`cache=True`: litellm reads it on the system's and the user's
text parts, on tools and on tool messages); vLLM and OpenAI-compatible servers may refuse a
field they do not know in a content part, so every other backend gets the plain shapes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from router.translate.after_results import after_tool_results, held
from router.translate.attribution import is_attribution
from router.translate.prefill import CONTINUE, prefilled
from router.translate.tool_search import offered, reference_part
from router.translate.wire import MAX_TOKENS, streamed

_TOOL_CHOICE = {"auto": "auto", "any": "required", "none": "none"}


def to_chat(
    body: dict[str, Any],
    stream: bool | None = None,
    *,
    placeholders: bool = True,
    cache: bool = False,
    joined: bool = True,
    prefill: bool = False,
    every_tool: bool = False,
) -> dict[str, Any]:
    """The chat body for a Messages body; `stream` asks for the usage chunk too;
    `placeholders=False` puts a textless file part where a document's placeholder would go;
    `cache=True` keeps the blocks' `cache_control` (see the module's docstring);
    `joined=False` keeps a user turn's text blocks as text parts rather than one text (the
    classifier's view: it reads each block as the agent wrote it); `prefill=True` asks the
    backend (vLLM) to continue a final assistant turn of text; `every_tool=True` offers the
    deferred tools no tool search loaded too (the classifier's view: the toolset sent)."""
    messages: list[dict[str, Any]] = []
    system = _system(body.get("system"), cache)
    if system:
        messages.append({"role": "system", "content": system})
    translated = (
        each
        for message in body.get("messages") or ()
        if isinstance(message, dict)
        for each in _message(message, placeholders, cache, joined)
    )
    messages.extend(after_tool_results(list(_merged(translated))))
    out: dict[str, Any] = {"model": body.get("model"), "messages": messages}
    if isinstance(body.get("max_tokens"), int):
        out[MAX_TOKENS] = body["max_tokens"]
    for key in ("temperature", "top_p"):
        if key in body:
            out[key] = body[key]
    if body.get("stop_sequences"):
        out["stop"] = body["stop_sequences"]
    given = [t for t in body.get("tools") or () if _is_client_tool(t)]
    given = given if every_tool else offered(given, body.get("messages"))
    tools = [_cached(_tool(t), t, cache) for t in given]
    if tools:
        out["tools"] = tools
    _tool_choice(body.get("tool_choice"), out)
    response_format = _output_format(body)
    if response_format:
        out["response_format"] = response_format
    if prefill and prefilled(messages):
        out.update(CONTINUE)
    out.update(streamed(stream))
    return out


def _output_format(body: dict[str, Any]) -> dict[str, Any] | None:
    """Structured output, `output_config.format` (or the beta's `output_format`) with a JSON
    schema, as chat's `response_format`: dropped, the client asked for JSON and got prose
    with a 200 (found in review). Chat needs a name; Anthropic's format has none."""
    config = body.get("output_config")  # also holds `effort`, with or without a format
    fmt = (config.get("format") if isinstance(config, dict) else None) or body.get("output_format")
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return None
    if not isinstance(fmt.get("schema"), dict):
        return None
    return {"type": "json_schema", "json_schema": {"name": "output", "schema": fmt["schema"]}}


def text_of(content: Any) -> str:
    """The text of a string or of a list of blocks (text blocks only)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    )


def _system(content: Any, cache: bool) -> str | list[dict[str, Any]]:
    """The system prompt as one text, or, to keep a block's cache breakpoint, as its text
    parts (Claude Code marks the end of its long system prompt); without the attribution
    block (`router.translate.attribution`)."""
    if isinstance(content, list):
        content = [b for b in content if not is_attribution(b)]
    if not (cache and isinstance(content, list) and any(_marked(b) for b in content)):
        return text_of(content)
    return [
        _cached({"type": "text", "text": b["text"]}, b, cache)
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]


def _marked(block: Any) -> bool:
    return isinstance(block, dict) and isinstance(block.get("cache_control"), dict)


def _cached(out: dict[str, Any], block: dict[str, Any], cache: bool) -> dict[str, Any]:
    """`out` with the `cache_control` of the block it came from, when it is kept."""
    if cache and _marked(block):
        out["cache_control"] = block["cache_control"]
    return out


def _message(
    message: dict[str, Any], placeholders: bool, cache: bool = False, joined: bool = True
) -> list[dict[str, Any]]:
    if message.get("role") == "system":  # a user turn in chat, not between calls and results
        turn = _message({**message, "role": "user"}, placeholders, cache, joined)
        return [held(m) if m["role"] == "user" else m for m in turn]
    role = "assistant" if message.get("role") == "assistant" else "user"
    content = message.get("content")
    if isinstance(content, str):
        return [{"role": role, "content": content}]
    blocks = [b for b in content or () if isinstance(b, dict)]
    if role == "assistant":
        return [_assistant(blocks)]
    tool_results = [b for b in blocks if b.get("type") == "tool_result"]
    results = [_cached(_tool_result(b, placeholders), b, cache) for b in tool_results]
    # a chat tool message carries text only: a result's images go to the user turn after it
    parts = [p for b in tool_results for p in _result_images(b, placeholders)]
    parts += [
        _cached(p, b, cache) for b in blocks if (p := _user_part(b, placeholders)) is not None
    ]
    if parts:
        only_text = joined and all(p["type"] == "text" and "cache_control" not in p for p in parts)
        merged: Any = "\n".join(p["text"] for p in parts) if only_text else parts
        results.append({"role": "user", "content": merged})
    return results


def _merged(messages: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The chat messages, consecutive assistant turns merged. Anthropic joins consecutive
    turns of one role; chat needs an assistant's tool calls in one message followed by their
    results, so consecutive assistant turns merge: texts joined by line breaks, calls in
    order. An assistant turn with nothing left (thinking only) is dropped: chat refuses an
    assistant message without content or calls. A run is joined once, at its end: merging
    turn by turn copied the text so far at every turn, quadratic (10,000 turns of 700
    characters, within the body limit, held the event loop 1.4 s)."""
    run: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] == "assistant":
            if message.get("content") is None and not message.get("tool_calls"):
                continue
            if _plain(message):
                run.append(message)
                continue
        if run:
            yield _joined(run)
            run = []
        yield message
    if run:
        yield _joined(run)


def _joined(run: list[dict[str, Any]]) -> dict[str, Any]:
    """One assistant message for a run of plain ones (a run of one stays as it is)."""
    first = run[0]
    if len(run) == 1:
        return first
    first["content"] = "\n".join(t for m in run if (t := m.get("content"))) or None
    calls = [call for m in run for call in m.get("tool_calls", ())]
    if calls:
        first["tool_calls"] = calls
    return first


def _plain(message: dict[str, Any]) -> bool:
    return message.get("content") is None or isinstance(message.get("content"), str)


def _assistant(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    texts = [
        b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)
    ]
    calls = [
        {
            "id": str(b.get("id", "")),
            "type": "function",
            "function": {
                "name": str(b.get("name", "")),
                "arguments": orjson.dumps(b.get("input") or {}).decode(),
            },
        }
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    out: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) or None}
    if calls:
        out["tool_calls"] = calls
    return out


def _tool_result(block: dict[str, Any], placeholders: bool) -> dict[str, Any]:
    """A tool message: a tool result's text, with its search results' and documents' as
    `_user_part` gives them (they vanished, found in review) and a tool search's references
    as lines (`tool_search`); its images follow it."""
    content = block.get("content")
    if isinstance(content, list):
        parts = [
            _user_part(b, placeholders)
            for b in content
            if isinstance(b, dict) and b.get("type") != "image"
        ]
        text = "\n".join(p["text"] for p in parts if p is not None and p["type"] == "text")
    else:
        text = text_of(content)
    if not text and _result_images(block, placeholders):
        text = "(the result is the image in the next message)"
    if block.get("is_error"):
        text = f"Error: {text}"
    return {"role": "tool", "tool_call_id": str(block.get("tool_use_id", "")), "content": text}


def _result_images(block: dict[str, Any], placeholders: bool) -> list[dict[str, Any]]:
    content = block.get("content")
    if not isinstance(content, list):
        return []
    return [
        part
        for b in content
        if isinstance(b, dict) and b.get("type") == "image" and (part := _image(b, placeholders))
    ]


def _user_part(block: dict[str, Any], placeholders: bool = True) -> dict[str, Any] | None:
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    if kind == "image":
        return _image(block, placeholders)
    if not placeholders:  # the classifier's view: a document or search result is no ask of
        # the user's; an empty file part is read as an image is (no text)
        return {"type": "file", "file": {}} if kind == "document" else None
    if kind == "document":  # a PDF or a text: chat has no document part, but text it carries
        text = _document_text(block)
        return {"type": "text", "text": text if text is not None else _NOT_PASSED % "a document"}
    if kind == "search_result":  # a retrieved passage for the model: it vanished (review)
        head = _labelled(("Search result", block.get("title")), ("Source", block.get("source")))
        return {"type": "text", "text": _headed(head, text_of(block.get("content")))}
    if kind == "tool_reference":  # a tool search's, in a tool result (`tool_search`)
        return reference_part(block)
    return None


_NOT_PASSED = "(%s was attached here; it could not be passed on)"


def _image(block: dict[str, Any], placeholders: bool) -> dict[str, Any]:
    """An image as chat's `image_url`: base64 data as a data URL, a URL as it is. Any other
    source (a Files API `file` id) has no chat form: it was an empty URL, which a backend
    refuses (found in review); it becomes the placeholder note (a textless part in the
    classifier's view)."""
    source = block.get("source")
    source = source if isinstance(source, dict) else {}
    if source.get("type") == "base64":
        url = f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
        return {"type": "image_url", "image_url": {"url": url}}
    if source.get("type") == "url" and isinstance(source.get("url"), str) and source["url"]:
        return {"type": "image_url", "image_url": {"url": source["url"]}}
    if not placeholders:
        return {"type": "file", "file": {}}
    return {"type": "text", "text": _NOT_PASSED % "an image"}


def _document_text(block: dict[str, Any]) -> str | None:
    """A document's text, under its title and context: a plain-text source (`data`) or a
    content source (a string or text blocks; an image among them is noted). None for a PDF
    or a file id (base64, url, file), which chat cannot carry as text. Text documents were
    replaced by the placeholder note (found in review)."""
    source = block.get("source")
    source = source if isinstance(source, dict) else {}
    if source.get("type") == "text" and isinstance(source.get("data"), str):
        text = source["data"]
    elif source.get("type") == "content" and isinstance(source.get("content"), str | list):
        text = _blocks_text(source["content"])
    else:
        return None
    title = block.get("title")  # untitled, it ran on unmarked from the user's text (review)
    named = f"Document: {title}" if isinstance(title, str) and title else "Document:"
    return _headed([named, *_labelled(("Context", block.get("context")))], text)


def _blocks_text(content: str | list[Any]) -> str:
    """The text of a content list's text blocks, an image among them as the note."""
    if isinstance(content, str):
        return content
    texts = []
    for b in content:
        if not isinstance(b, dict):
            continue
        if b.get("type") == "text" and isinstance(b.get("text"), str):
            texts.append(b["text"])
        elif b.get("type") == "image":
            texts.append(_NOT_PASSED % "an image")
    return "\n".join(texts)


def _labelled(*fields: tuple[str, Any]) -> list[str]:
    """ "Label: value" lines for the fields that hold a string."""
    return [f"{label}: {value}" for label, value in fields if isinstance(value, str) and value]


def _headed(head: list[str], text: str) -> str:
    """The head's lines, then the text if any (no trailing newline for an empty one)."""
    return "\n".join([*head, text] if text else head)


def is_server_tool(tool: Any) -> bool:
    """Anthropic's server tools (web search, code execution, bash, …) carry a versioned
    `type` (`web_search_20250305`) and no `input_schema`: only Anthropic runs them."""
    return isinstance(tool, dict) and tool.get("type") not in (None, "custom")


def _is_client_tool(tool: Any) -> bool:
    return isinstance(tool, dict) and not is_server_tool(tool) and "name" in tool


def _tool(tool: dict[str, Any]) -> dict[str, Any]:
    function: dict[str, Any] = {
        "name": tool["name"],
        "parameters": tool.get("input_schema") or {"type": "object", "properties": {}},
    }
    if tool.get("description"):
        function["description"] = tool["description"]
    return {"type": "function", "function": function}


def _tool_choice(choice: Any, out: dict[str, Any]) -> None:
    """Chat's `tool_choice` for Messages': a named one only when it names a tool `out` offers.
    One naming a server tool (dropped above) or no tool at all was sent on, and vLLM refused
    it ("When using `tool_choice`, `tools` must be set.", or that it "does not match any of
    the specified `tools`"; found in review): it is dropped, as the server tool is."""
    if not isinstance(choice, dict):
        return
    kind = choice.get("type")
    if kind == "tool":
        name = choice.get("name")
        offered = (t["function"]["name"] for t in out.get("tools", ()))
        if isinstance(name, str) and name in offered:
            out["tool_choice"] = {"type": "function", "function": {"name": name}}
    elif kind in _TOOL_CHOICE and "tools" in out:
        out["tool_choice"] = _TOOL_CHOICE[kind]
    if choice.get("disable_parallel_tool_use") and "tools" in out:
        out["parallel_tool_calls"] = False
