"""An OpenAI Responses request as a chat completions request.

Mapping: `instructions` and the leading `developer` or `system` items → one system message,
first, and a later developer or system item → a user message in its place (chat templates
that refuse a system message anywhere but first, Qwen's: `router.translate.instructions`),
or after the tool results when it came among them (`router.translate.after_results`);
other input `message` items → chat messages, of the text their parts hold (a refusal's
words too: `router.translate.text_parts`); `function_call` items →
assistant `tool_calls`; `function_call_output` → `tool` messages. Codex's freeform
`custom` tools (apply_patch) become functions with one string argument `input`, their
input's grammar told in the description (`custom_format`), and their calls and outputs map
the same way; an `allowed_tools` choice offers only those tools. A `namespace` tool's
tools (Codex's sub-agent tools) become functions of their own, named `<namespace>__<name>`,
and a replayed call of one (its item names the `namespace`) is sent under that name
(`router.translate.namespaces`). A
replayed call's arguments that are no JSON object (a call cut mid-arguments, `incomplete`)
go wrapped as the Messages translation wraps them (`{"_raw_arguments": "..."}`, a value
that is no object `{"value": ...}`): vLLM json-parses every assistant tool call's arguments
for the chat template, which wants an object (`_postprocess_messages` in
vllm/entrypoints/chat_utils.py), and refuses the request otherwise, so every later turn of
the conversation.
Reasoning items and hosted tools (`web_search`, `file_search`, …: they run at OpenAI) have
no chat equivalent and are dropped; `dropped_tools` names the tools dropped, for the log.
`previous_response_id` and `conversation` need server-side state a chat backend does not
have, and `background: true` a server that runs the response while no one waits: the
translator refuses them (the policy sends them to no chat backend). A turn continuing a
response the router made over chat carries no such id by then: the gateway told it whole
(`router.stored_responses.whole`). Pure.

Attachments chat can carry become its parts: an image by URL, audio. What it cannot (a
file, inline or by URL, or an image by its id in OpenAI's file store) becomes a placeholder
text telling the model so, as for the Messages translation's documents: dropped, the model
answered as if nothing was attached. An inline file too: chat's `file` part is OpenAI's
alone (vLLM refuses it: "Unsupported chat content part type"). The classifier's view asks
for none (`placeholders=False`).

Of the settings only `temperature` and `top_p` pass on: every chat backend takes them.
`reasoning.effort` does not: reasoning items are not carried, and a backend that turns it
into thinking (litellm to Anthropic, vLLM's `enable_thinking`) then meets an assistant tool
call with no thinking before it (Anthropic refuses from the second turn) or thinks where its
operator turned thinking off. `text.verbosity`, `prompt_cache_key`, `safety_identifier`,
`service_tier` and `user` are OpenAI's: strict OpenAI-compatible servers (Gemini's, Mistral)
refuse fields they do not know. The backend's own settings (`extra_body`) decide those.
`store` and `metadata` stay behind too: chat's `store` keeps the completion for OpenAI's
distillation and evals, not for a later turn, and OpenAI's chat refuses `metadata` without
it. vLLM's own `structured_outputs` passes on: vLLM's chat takes it as its Responses does,
and the plan sends a request carrying it to no backend but a local one (`router.vllm_fields`);
dropped here, a Responses request kept local for it was answered unconstrained all the same.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from router import echoed_fields
from router.translate import after_results, instructions
from router.translate.custom_format import described
from router.translate.namespaces import ChatNames, chat_names, flattened
from router.translate.text_parts import content_text, part_text
from router.translate.wire import MAX_TOKENS, streamed, tool_input
from router.vllm_fields import FIELD as VLLM_FIELD

CUSTOM_PARAMETERS = {
    "type": "object",
    "properties": {"input": {"type": "string", "description": "the raw tool input"}},
    "required": ["input"],
}


class Untranslatable(ValueError):
    """The request uses a Responses feature that chat cannot express."""


# The fields that name what the server stored: a conversation (`previous_response_id`, the
# Conversations API's `conversation`) or a prompt template (`prompt: {"id": "pmpt_…"}`); and
# `background: true`, which asks the server to run the response and keep it for polling
# (answered while the client waited, by a chat backend, it was no background run).
STATEFUL = ("previous_response_id", "conversation", "prompt", "background")
# Settings every chat backend takes under the same name and meaning: passed on as sent.
SHARED = ("temperature", "top_p")


def server_state(body: dict[str, Any]) -> str | None:
    """The field of `body` that names something stored on the server, if any: only a backend
    that speaks Responses itself can serve it. Dropped in translation, the turn was answered
    without what came before it, or without its template (found in review); so was an
    `input` item that only references a stored one (`{"type": "item_reference"}`)."""
    found = next((field for field in STATEFUL if body.get(field)), None)
    if found is None and _references_items(body.get("input")):
        return "input"
    return found


def without_server_state(body: dict[str, Any]) -> dict[str, Any]:
    """`body` without what names stored state (for a reader of what the turn itself says:
    the classifier's view), which `to_chat` refuses."""
    readable = {**body, **dict.fromkeys(STATEFUL)}
    items = body.get("input")
    if isinstance(items, list) and _references_items(items):
        readable["input"] = [item for item in items if not is_reference(item)]
    return readable


def _references_items(items: Any) -> bool:
    return isinstance(items, list) and any(is_reference(item) for item in items)


def is_reference(item: Any) -> bool:
    """An input item that names a stored one: `{"type": "item_reference", "id"}`, or, its
    `type` being optional, an `id` alone (no role, no content: read as a message, it was an
    empty user turn)."""
    if not isinstance(item, dict):
        return False
    kind = item.get("type")
    if kind == "item_reference":
        return True
    return kind is None and "id" in item and "role" not in item and "content" not in item


def to_chat(
    body: dict[str, Any],
    stream: bool | None = None,
    *,
    placeholders: bool = True,
    joined: bool = True,
) -> dict[str, Any]:
    """The chat body for a Responses body; `stream` asks for the usage chunk too;
    `placeholders=False` puts a textless file part where an attachment's note would go;
    `joined=False` keeps a user message's text parts as parts rather than one text (the
    classifier's view: it reads each part as the client wrote it)."""
    stateful = server_state(body)
    if stateful:
        raise Untranslatable(f"{stateful!r} needs a backend that serves Responses")
    names = chat_names(body.get("tools"))
    items = body.get("input")
    listed = items if isinstance(items, list) else []
    messages, held = instructions.leading(body, listed)
    if isinstance(items, str):
        messages.append({"role": "user", "content": items})
    else:
        for item in listed[held:]:
            if isinstance(item, dict):
                _item(item, messages, placeholders, names, joined)
        messages = after_results.after_tool_results(messages)
    out: dict[str, Any] = {"model": body.get("model"), "messages": messages}
    if isinstance(body.get("max_output_tokens"), int):
        out[MAX_TOKENS] = body["max_output_tokens"]
    out.update(_settings(body))
    tools = [t for t in (_tool(t) for t in flattened(body.get("tools"), names)) if t]
    tools, raw_choice = _allowed_tools(tools, body.get("tool_choice"), names)
    if tools:  # OpenAI refuses parallel_tool_calls without tools (Codex's compaction turn)
        out["tools"] = tools
        if body.get("parallel_tool_calls") is not None:
            out["parallel_tool_calls"] = body["parallel_tool_calls"]
        choice = _tool_choice(raw_choice, names)
        if choice is not None:
            out["tool_choice"] = choice
    response_format = _format(body.get("text"))
    if response_format:
        out["response_format"] = response_format
    if body.get(VLLM_FIELD) is not None:
        out[VLLM_FIELD] = body[VLLM_FIELD]
    out.update(streamed(stream))
    return out


def _settings(body: dict[str, Any]) -> dict[str, Any]:
    """The `SHARED` settings as sent; no other (the module's docstring says why: forwarded,
    Anthropic through litellm refused the second turn of a Codex tool loop, found in review).
    `top_logprobs` stays behind too: the translated reply carries no log probabilities back,
    so the backend would compute them for nothing."""
    return {key: body[key] for key in SHARED if body.get(key) is not None}


def reply_tools(body: dict[str, Any]) -> tuple[frozenset[str], dict[str, tuple[str, str]]]:
    """What a chat reply's tool calls go back as, from one reading of the request's tools:
    the chat names of the freeform tools (`custom_tool_call` items), and the namespace and
    name of each namespaced tool, by its chat name."""
    names = chat_names(body.get("tools"))
    tools = flattened(body.get("tools"), names)
    custom = frozenset(
        str(t.get("name")) for t in tools if isinstance(t, dict) and t.get("type") == "custom"
    )
    return custom, names.pairs


# The Responses tool types (the `openai` SDK's `ToolParam`, `router.echoed_fields`): a
# dropped tool is named by one of these or `OTHER`, and by its name only when it looks like
# one (`_LOGGABLE`). Both are the client's text: logged as sent, a request could write its
# prompt into the log (found in review), and a log told once per value could be made to tell
# nothing more.
TOOL_TYPES = frozenset(echoed_fields.TOOL_TYPES)
OTHER = "other"
_LOGGABLE = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def dropped_tools(body: dict[str, Any]) -> list[str]:
    """The tools chat cannot offer, for the log: hosted tools, which run at OpenAI
    (`web_search`, `file_search`, …), by their type (`TOOL_TYPES`, else `OTHER`) and
    `type:name` when they have a name of `_LOGGABLE`."""
    tools = flattened(body.get("tools"), chat_names(body.get("tools")))
    return [_label(t) for t in tools if isinstance(t, dict) and _tool(t) is None]


def _label(tool: dict[str, Any]) -> str:
    kind = tool.get("type")
    kind = kind if isinstance(kind, str) and kind in TOOL_TYPES else OTHER
    name = tool.get("name")
    if isinstance(name, str) and _LOGGABLE.fullmatch(name):
        return f"{kind}:{name}"
    return kind


def _item(
    item: dict[str, Any],
    messages: list[dict[str, Any]],
    placeholders: bool,
    names: ChatNames,
    joined: bool = True,
) -> None:
    kind = item.get("type", "message")
    if kind == "message":
        messages.append(_message(item, placeholders, joined))
    elif kind in ("function_call", "custom_tool_call"):
        arguments = item.get("arguments")
        if kind == "custom_tool_call":
            arguments = orjson.dumps({"input": item.get("input", "")}).decode()
        elif isinstance(arguments, str):  # a JSON object, or wrapped as one (see above)
            arguments = tool_input(arguments)
        name = names.chat(item.get("namespace"), str(item.get("name") or ""))
        call = {
            "id": str(item.get("call_id") or item.get("id") or ""),
            "type": "function",
            "function": {"name": name, "arguments": arguments or "{}"},
        }
        last = messages[-1] if messages else {}
        if last.get("role") == "assistant":
            last.setdefault("tool_calls", []).append(call)
        else:
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
    elif kind in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output")
        if isinstance(output, str):
            text, parts = output, []
        else:
            parts = _parts(output, placeholders)
            # a chat tool message holds text: a note joins it, the rest follows the results
            text = "\n".join(p["text"] for p in parts if p["type"] == "text")
            parts = [p for p in parts if p["type"] != "text"]
        if parts and not text:
            noun = "image" if all(p["type"] == "image_url" for p in parts) else "attachment"
            text = f"(the result is the {noun} in the next message)"
        message: dict[str, Any] = {
            "role": "tool",
            "tool_call_id": str(item.get("call_id", "")),
            "content": text,
        }
        if parts:
            message[after_results.IMAGES] = parts
        messages.append(message)


UNPASSED = "({} was attached here; it could not be passed on)"


def _parts(content: Any, placeholders: bool) -> list[dict[str, Any]]:
    """A user turn's or a tool output's parts (Codex's view_image, MCP tools) as chat's."""
    parts: list[dict[str, Any]] = []
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, dict):
            continue
        if (text := part_text(part)) is not None:  # a refusal's too (`text_parts`)
            parts.append({"type": "text", "text": text})
        elif (attached := _attachment(part, placeholders)) is not None:
            parts.append(attached)
    return parts


def _attachment(part: dict[str, Any], placeholders: bool) -> dict[str, Any] | None:
    """An image or audio part as chat's, or the note for one chat cannot carry: a file's id
    names OpenAI's file store, which a chat server does not share (dropped, the model
    answered without it and never knew: found in review); an inline file, as chat's `file`
    part, was vLLM's 400 where a PDF sent to Messages is this note (found in review)."""
    kind = part.get("type")
    if kind == "input_image" and part.get("image_url"):
        return {"type": "image_url", "image_url": {"url": part["image_url"]}}
    audio = part.get("input_audio")
    if kind == "input_audio" and isinstance(audio, dict) and audio.get("data"):
        sound = {"data": audio["data"], "format": audio.get("format") or "wav"}
        return {"type": "input_audio", "input_audio": sound}
    if kind == "input_image" and part.get("file_id"):
        noun = "an image"
    elif kind == "input_file" and any(part.get(k) for k in ("file_data", "file_id", "file_url")):
        noun = "a file"
    else:
        return None
    if not placeholders:  # chat's file part, empty: no text of the client's
        return {"type": "file", "file": {}}
    return {"type": "text", "text": UNPASSED.format(noun)}


def _message(item: dict[str, Any], placeholders: bool, joined: bool = True) -> dict[str, Any]:
    role = item.get("role", "user")
    content = item.get("content")
    if instructions.instructs(item):  # a later one: the leading ones are the system message
        text = content_text(content)  # not between calls and their results
        return after_results.held({"role": instructions.LATER_ROLE, "content": text})
    if isinstance(content, str) or role != "user":
        return {"role": role, "content": content_text(content)}
    parts = _parts(content, placeholders)
    if joined and all(p["type"] == "text" for p in parts):
        return {"role": role, "content": "\n".join(p["text"] for p in parts)}
    return {"role": role, "content": parts}


def _tool(tool: Any) -> dict[str, Any] | None:
    if not isinstance(tool, dict) or not tool.get("name"):
        return None
    if tool.get("type") == "function":
        function = {
            "name": tool["name"],
            "parameters": tool.get("parameters") or {"type": "object", "properties": {}},
        }
    elif tool.get("type") == "custom":
        function = {"name": tool["name"], "parameters": CUSTOM_PARAMETERS}
    else:
        return None  # hosted tools (web_search, file_search, …) run at OpenAI only
    description = tool.get("description")
    if tool.get("type") == "custom":  # its input's grammar, which chat has no field for
        description = described(description, tool.get("format"))
    if description:
        function["description"] = description
    if tool.get("strict") is not None:
        function["strict"] = tool["strict"]
    return {"type": "function", "function": function}


def _allowed_tools(
    tools: list[dict[str, Any]], choice: Any, names: ChatNames
) -> tuple[list[dict[str, Any]], Any]:
    """The tools and tool choice once an `allowed_tools` choice is applied. Chat has the same
    choice in another shape, but vLLM's chat API knows only none/auto/required/a function:
    offering only the allowed tools with `auto` or `required` means the same everywhere.
    When none of the allowed tools exists in chat (hosted tools only), none may be called."""
    if not isinstance(choice, dict) or choice.get("type") != "allowed_tools":
        return tools, choice
    listed = choice.get("tools")
    allowed = listed if isinstance(listed, list) else []
    chat = {
        names.chat(t.get("namespace"), t["name"])
        for t in allowed
        if isinstance(t, dict) and isinstance(t.get("name"), str)
    }
    kept = [t for t in tools if t["function"]["name"] in chat]
    if not kept:
        return tools, "none"
    return kept, "required" if choice.get("mode") == "required" else "auto"


def _tool_choice(choice: Any, names: ChatNames) -> Any:
    if choice in ("auto", "none", "required"):
        return choice
    if isinstance(choice, dict) and choice.get("type") in ("function", "custom"):
        name = choice.get("name")
        chat = names.chat(choice.get("namespace"), name) if isinstance(name, str) else name
        return {"type": "function", "function": {"name": chat}}
    return None


def _format(text: Any) -> dict[str, Any] | None:
    fmt = text.get("format") if isinstance(text, dict) else None
    if not isinstance(fmt, dict):
        return None
    if fmt.get("type") == "json_object":
        return {"type": "json_object"}
    if fmt.get("type") == "json_schema":
        schema = {k: fmt[k] for k in ("name", "schema", "strict", "description") if k in fmt}
        return {"type": "json_schema", "json_schema": schema}
    return None
