"""A bounded view of a chat request: which texts the classifier reads, and how much of them.

Agents send long system prompts, tool schemas on every turn and huge conversations; the task
lives in the latest and the first user message. Every read here is bounded (message count,
part count, bytes), so a 200k-token conversation costs about what a short one does.

Not every user message is an ask. Agents put their own texts in user turns
(`classifier.harness`), and a tool result's image reaches chat as a user message after the
tool messages: a user message with no words of the user's is passed over, for the latest
and the first ask alike. Nor is every tool the request's own: an agent offers its built-in
tools first, and they are read past the bound on tools (`scanned_tools`).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any, NamedTuple

from classifier.harness import has_words, own_words, turn_asks, turn_words
from classifier.harness_tools import HARNESS_SEEN, HARNESS_TOOLS

# The latest and first user messages are read to a head and a tail of so many bytes of UTF-8:
# characters of English, a third as many of Chinese or Japanese. Counted in characters, a CJK
# text (a token a character, where English has about four characters a token) was read to
# four times the tokens, and a 1,500-character Chinese message took 0.48 ms CPU p50 to
# classify on the build machine (0.33 ms read in bytes; English at the bound 0.21 ms,
# docs/benchmarks.md). Tokenisers work on bytes too: per byte, scripts differ far less in
# tokens than per character.
HEAD_BYTES = 1500
TAIL_BYTES = 500
SYSTEM_CHARS = 300
TOOL_CHARS = 600
SCAN_MESSAGES = 64
# How far back the latest user message is looked for, by role alone (50-90 ns a message:
# 0.2-0.35 ms at the bound on the build machine, docs/benchmarks.md, a tenth or less of
# what parsing those messages' JSON took). An agent's tool loop adds two or more messages a
# round and runs hundreds of rounds: at 64, the ask was lost after 32 and the first message
# decided alone. 4,096 is ~2,000 rounds, more than a 200k-token window holds at ~100 tokens
# a round; beyond it, the first user message decides alone, as it did past 64.
SCAN_ROLES = 4096
SCAN_PARTS = 16
SCAN_TOOLS = 16
# How many tools are looked at, at most, for `SCAN_TOOLS` of the request's own: an agent's
# built-in tools (`classifier.harness_tools.HARNESS_TOOLS`) are not counted. Claude Code offers
# some twenty of its own before its MCP tools, so the first 16 tools held none of those,
# and "create an issue" could never name `mcp__github__create_issue` (found in review).
SCAN_TOOLS_READ = 64
_TEXT_PART_TYPES = {"text", "input_text", "output_text"}


def clip(text: str, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> str:
    """Keep a bounded head and tail, in bytes of UTF-8: the ask is usually at the start or
    the end. ASCII text (most requests) is never encoded; text of up to head + tail
    characters is encoded once, and cut from that encoding."""
    if len(text) > head + tail:  # over the bound whatever the script: encode only the ends
        return f"{_head(text, head)}\n…\n{_tail(text, tail)}"
    if text.isascii():
        return text
    raw = text.encode(errors="surrogatepass")
    if len(raw) <= head + tail:
        return text
    return f"{_head_of(raw, head)}\n…\n{_tail_of(raw, tail)}"


def _head(text: str, size: int) -> str:
    """The longest start of `text` within `size` bytes."""
    part = text[:size]
    return part if part.isascii() else _head_of(part.encode(errors="surrogatepass"), size)


def _head_of(raw: bytes, size: int) -> str:
    """The longest start of the UTF-8 text `raw` within `size` bytes, decoded."""
    cut = min(size, len(raw))
    while cut < len(raw) and _continues(raw[cut]):  # not inside a character
        cut -= 1
    return raw[:cut].decode(errors="surrogatepass")


def _tail(text: str, size: int) -> str:
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


class RequestView(NamedTuple):
    """The parts of a request that carry its intent, already clipped. (A named tuple rather
    than a frozen dataclass: one is built per request, and that made `view()` a quarter
    dearer.)"""

    latest: str = ""
    first: str = ""
    system: str = ""
    tool_names: str = ""
    has_tools: bool = False
    tool_forced: bool = False
    tools_disabled: bool = False
    after_tool_result: bool = False


def content_text(content: object) -> str:
    """Text of a message's content: a string, or the text parts of a part array (images
    skipped), joined by line breaks, each without its harness blocks (`own_words`);
    clipped alike, so parts read as their joined string."""
    if isinstance(content, str):
        return clip(own_words(content))
    texts = _texts(content)
    size = sum(map(len, texts)) + len(texts) - 1
    if size <= HEAD_BYTES + TAIL_BYTES:
        return clip("\n".join(texts))
    # `clip` of the joined text, without joining whole parts: each part's ends suffice
    head = "\n".join(t[:HEAD_BYTES] for t in texts)[:HEAD_BYTES]
    tail = "\n".join(t[-TAIL_BYTES:] for t in texts)[-TAIL_BYTES:]
    return f"{_head(head, HEAD_BYTES)}\n…\n{_tail(tail, TAIL_BYTES)}"


def _texts(content: object) -> list[str]:
    """The texts of a part array's scanned parts, without their harness blocks
    (`turn_words`: each part is read with the one after it, and a resumed tool result with
    the resumption after it); none for anything else."""
    return turn_words(_part_texts(content))


def _part_texts(content: object) -> list[str]:
    """The text of each of a part array's scanned parts (the first and last 8 of a long
    one), "" for a part of no text; none for anything else."""
    if not isinstance(content, list):
        return []
    parts = content if len(content) <= SCAN_PARTS else content[:8] + content[-8:]
    return [*map(_part_text, parts)]


def _asks(message: object) -> bool:
    """A user message with words of the user's: not only images, files or harness text
    (`turn_asks`, as the router's view of other APIs asks it)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return has_words(content)
    return turn_asks(_part_texts(content))


def _part_text(part: object) -> str:
    """A part's text; "" for anything else, so one odd part does not cost the others."""
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return ""
    kind, text = part.get("type", "text"), part.get("text")
    if isinstance(kind, str) and kind in _TEXT_PART_TYPES and isinstance(text, str):
        return text
    return ""


def _role(message: object) -> str:
    if isinstance(message, dict):
        role = message.get("role")
        return role if isinstance(role, str) else ""
    return ""


def _user_messages(messages: list[Any]) -> tuple[object, object, bool]:
    """The first and the latest user message that asks (`_asks`), scanning a bounded number
    from each end, and whether a tool result is the last message (user messages that ask
    nothing after it aside: a reminder or an image beside a tool result follows it as one).
    The first sits near the start; the latest may be far back behind a tool loop, so only
    each message's role is read on the way (`islice`: no copy of the list), and a user
    message's content only for the first `SCAN_MESSAGES` that ask nothing."""
    latest: object = None
    after_tool: bool | None = None
    passed = 0
    for message in islice(reversed(messages), SCAN_ROLES):
        if isinstance(message, dict) and message.get("role") == "user":
            if _asks(message):
                latest = message
                break
            passed += 1
            if passed == SCAN_MESSAGES:
                break
        elif after_tool is None:
            after_tool = _role(message) in ("tool", "function")
    first = next(
        (m for m in messages[:SCAN_MESSAGES] if _role(m) == "user" and (m is latest or _asks(m))),
        None,
    )
    return first, latest, bool(after_tool)


def _tool_names(tools: list[Any]) -> str:
    """The names of the offered tools a request can name, space-separated, to `TOOL_CHARS`:
    what it must name to ask for them (`rules.asks_for_tools`). Not their descriptions: an
    agent's tools are described in everyday words (Claude Code's Bash "executes a given bash
    command", Codex's update_plan "a list of plan items"), and two of them shared with an ask
    made "Make the export command write a CSV file" tool_calling (found in review). Nor an
    agent's built-in tools (`HARNESS_TOOLS`), when at least `HARNESS_SEEN` of them among the
    tools read say the tools are an agent's harness. The tools read are `scanned_tools`',
    with the names it looked up (`_scanned`): each is looked up once."""
    names: list[str] = []
    harness = 0
    for _, name in _scanned(tools):
        if not isinstance(name, str):
            continue
        if name in HARNESS_TOOLS:
            harness += 1
            names.append(name)
        else:
            names.append(name[:200])
    if harness >= HARNESS_SEEN:
        names = [name for name in names if name not in HARNESS_TOOLS]
    return " ".join(names)[:TOOL_CHARS]


def scanned_tools(tools: list[Any]) -> Iterator[Any]:
    """The tools read for their names: the first `SCAN_TOOLS` that are not an agent's
    built-ins (`HARNESS_TOOLS`), and the built-ins before and among them, from the first
    `SCAN_TOOLS_READ` tools. What the router's view of other APIs keeps of a request's
    tools, too (`router.translate.view`)."""
    return (tool for tool, _ in _scanned(tools))


def _scanned(tools: list[Any]) -> Iterator[tuple[Any, object]]:
    """`scanned_tools`, each with its name (`tool_name`)."""
    own = 0
    for tool in islice(tools, SCAN_TOOLS_READ):
        if own == SCAN_TOOLS:
            return
        name = tool_name(tool)
        if not (isinstance(name, str) and name in HARNESS_TOOLS):
            own += 1
        yield tool, name


def tool_name(tool: object) -> object:
    """A tool's name, or whatever a body holds in its place: a chat tool keeps its name under
    `function`, or under `custom` (a freeform tool); other APIs' at the top."""
    if not isinstance(tool, dict):
        return None
    inner = tool.get("function") or tool.get("custom")
    return (inner if isinstance(inner, dict) else tool).get("name")


def _forced(tool_choice: object) -> bool:
    """Whether `tool_choice` makes the model call a tool: `required` (Anthropic: `any`), a
    named function or custom tool, or `allowed_tools` in `required` mode (chat nests the
    mode in `allowed_tools`, Responses does not)."""
    if tool_choice in ("required", "any"):
        return True
    if not isinstance(tool_choice, dict):
        return False
    kind = tool_choice.get("type")
    if kind == "allowed_tools":
        nested = tool_choice.get("allowed_tools")
        return (nested if isinstance(nested, dict) else tool_choice).get("mode") == "required"
    return kind in ("function", "tool", "any", "custom")


def view(body: object) -> RequestView:
    """Read a chat-completions body into a `RequestView`; never raises on odd input.

    Only the chat shape is read fully. A bare Responses `input` or completions `prompt` is
    read as one user message and a string `system` as the system prompt, but Anthropic
    system blocks, tool results and `tool_choice: {"type": "none"}`, and Responses
    `instructions`, are not: the router translates those bodies to chat first
    (`router.translate.view.chat_view`), and so must any other caller."""
    if not isinstance(body, dict):
        return RequestView()
    messages = _messages(body)
    first_msg, latest_msg, after_tool = _user_messages(messages)
    latest = content_text(latest_msg.get("content")) if isinstance(latest_msg, dict) else ""
    first = ""  # the first user message, unless it is the latest (not clipped again)
    if first_msg is not latest_msg and isinstance(first_msg, dict):
        first = content_text(first_msg.get("content"))
    system = body.get("system") if isinstance(body.get("system"), str) else ""
    if messages and _role(messages[0]) in ("system", "developer") and isinstance(messages[0], dict):
        system = content_text(messages[0].get("content"))
    raw_tools = body.get("tools")
    tools: list[Any] = raw_tools if isinstance(raw_tools, list) else []
    tool_choice = body.get("tool_choice")
    if "functions" in body or "function_call" in body:  # rare: a lookup, not a call
        tools, tool_choice = _legacy_tools(body, tools, tool_choice)
    return RequestView(
        latest=latest,
        first=first,
        system=str(system)[:SYSTEM_CHARS],
        tool_names=_tool_names(tools),
        has_tools=bool(tools) and tool_choice != "none",
        tool_forced=bool(tools) and _forced(tool_choice),
        tools_disabled=tool_choice == "none",
        after_tool_result=after_tool,
    )


def cut_short(body: object) -> tuple[bool, bool]:
    """Whether the latest and the first user message were read only in part (a head and a
    tail, or their first and last parts): what `explain` tells of a long message, whose
    `latest_chars` alone cannot say it was cut. Not for `classify`: it joins and measures
    whole texts, which a request's classification must not."""
    if not isinstance(body, dict):
        return False, False
    first_msg, latest_msg, _ = _user_messages(_messages(body))
    first = first_msg if first_msg is not latest_msg else None
    return _cut(latest_msg), _cut(first)


def _cut(message: object) -> bool:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        if len(content) > SCAN_PARTS and any(_part_text(part) for part in content[8:-8]):
            return True  # parts `content_text` skips
        content = "\n".join(_texts(content))
    elif isinstance(content, str):
        content = own_words(content)
    return isinstance(content, str) and clip(content) is not content


def _messages(body: dict[str, Any]) -> list[Any]:
    messages = body.get("messages")
    return messages if isinstance(messages, list) else _fallback_messages(body)


def _legacy_tools(
    body: dict[str, Any], tools: list[Any], tool_choice: object
) -> tuple[list[Any], object]:
    """The offered tools and the tool choice, read from the deprecated chat fields
    `functions` (`{name, description, parameters}` entries) and `function_call` where the
    current ones are absent: the router passes both upstream, and a call they force was
    classified from its text alone (found in review). `function_call` is `"none"`,
    `"auto"` or `{"name": ...}`, which forces that function."""
    if not tools and isinstance(legacy := body.get("functions"), list):
        tools = legacy
    if tool_choice is None:
        tool_choice = _function_call_choice(body.get("function_call"))
    return tools, tool_choice


def _function_call_choice(function_call: object) -> object:
    """`function_call` as the `tool_choice` it stands for."""
    if isinstance(function_call, dict) and "name" in function_call:
        return {"type": "function", "function": function_call}
    return function_call if function_call in ("none", "auto") else None


def _fallback_messages(body: dict[str, Any]) -> list[Any]:
    """Responses-API `input` or a bare `prompt`: treat it as one user message."""
    for key in ("input", "prompt"):
        value = body.get(key)
        if isinstance(value, str):
            return [{"role": "user", "content": value}]
        if isinstance(value, list) and key == "input":
            return [m for m in value[-SCAN_ROLES:] if isinstance(m, dict)]
    return []
