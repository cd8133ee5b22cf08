"""The chat-shaped view of any API's request: what the classifier and the conversation key read.

The classifier reads chat requests (messages with text, tools, tool_choice). A Messages or
Responses body is translated for it, bounded like the classifier's own reading: the first
few and the last `_TAIL` turns and the user's first and latest words between them (an
agent's own text in a user turn is none: `classifier.harness.turn_asks`; a message the user
typed mid-turn, in a Messages system turn, is some: `_typed`), the first and last
`_PARTS` blocks of each (and of a tool result's own blocks), the tools the classifier reads
(`classifier.toolset.scanned_tools`; those the tool choice allows or names first) and system
blocks from each end, so a 200k-token conversation, or one turn of 300k blocks, costs what
a short one does. Nor does it hold what no reader of it reads: an assistant turn's text and
tool input (`_unread_cut`), the router's placeholder for an attachment chat cannot carry
(the classifier would read it as the user's words), a Responses developer item after the
conversation began (the backend gets it as a user turn, which the classifier would read as
the ask: `instructions.without_later`), or a Messages system turn of Claude Code's own
(its list of its agents and skills, or its environment, after the first ask:
`_claude_codes_system_turn`). A user turn's text blocks (a Responses user message's text
parts) stay text parts, as the classifier reads them and as `_asks` asks of them
(`turn_words`: each block with the one after it): joined into one text, as the backend gets
them, an agent's notice that runs to its text's end took the blocks after it too ("Stop
hook feedback:\n[check.sh]: exit 2", then "Why is my hook failing?", was no ask), while the
view kept that turn as the latest ask and dropped the one before it past the tail (found in
review).
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from classifier.aider import is_aiders
from classifier.claude_code_turns import own_turn, typed
from classifier.harness import has_words, turn_asks
from classifier.message import SCAN_MESSAGES, SCAN_ROLES
from classifier.toolset import SCAN_TOOLS, scanned_tools
from router.record import Api
from router.scoring import scores_prompt
from router.translate import anthropic_request, instructions, responses_request

_HEAD = 2
_TAIL = 62
_PARTS = 8  # blocks kept from each end of a list: the classifier reads 8 + 8 parts
_NESTED = ("content", "output")  # where a turn or a tool result keeps its blocks
_TEXT_TYPES = ("text", "input_text")  # a user's words, in Messages and in Responses


def chat_view(api: Api, body: dict[str, Any]) -> dict[str, Any]:
    if api == "chat":
        return body
    if api == "completions":
        # a scoring request asks no task: each choice of one question, read alone, went to
        # another backend, and lm-eval compared two models' log probabilities (`router.scoring`)
        prompt = "" if scores_prompt(body) else _prompt_text(body.get("prompt"))
        return {"messages": [{"role": "user", "content": prompt}]}
    if api == "messages":
        bounded = _bounded(body, "messages")
        # every tool sent, loaded by a tool search or not: the classifier reads the toolset
        view = anthropic_request.to_chat(bounded, placeholders=False, joined=False, every_tool=True)
    else:
        bounded = _bounded(body, "input")  # the view reads no stored state
        readable = responses_request.without_server_state(bounded)
        if isinstance(readable.get("input"), list):  # no later instruction read as an ask
            readable["input"] = instructions.without_later(readable["input"])
        view = responses_request.to_chat(readable, placeholders=False, joined=False)
    if body.get("prompt_cache_key"):
        view["prompt_cache_key"] = body["prompt_cache_key"]
    return view


def _prompt_text(prompt: object) -> str | list[dict[str, str]]:
    """A completions `prompt` as user content: a string as it is, a batch of strings as text
    parts (the ends of the batch). Token ids are no text the classifier can read: a prompt of
    them is classified as empty (confidence 0, the default route), not from its repr."""
    if isinstance(prompt, str):
        return prompt
    if not isinstance(prompt, list):
        return ""
    return [{"type": "text", "text": p} for p in _ends(prompt) if isinstance(p, str)]


def _bounded(body: dict[str, Any], key: str) -> dict[str, Any]:
    """`body` with every list the translation walks cut to a constant size."""
    out = dict(body)
    turns = body.get(key)
    if isinstance(turns, list):
        kept = turns if len(turns) <= _HEAD + _TAIL else _head_ask_tail(turns, key)
        if key == "messages":  # Claude Code's own system turns are no one's ask
            kept = [turn for turn in kept if not _claude_codes_system_turn(turn)]
        out[key] = [_clipped(turn, depth=2) for turn in kept]
        if key == "messages":
            out[key] = [_unread_cut(turn) for turn in out[key]]
    if isinstance(body.get("system"), list):
        out["system"] = _ends(body["system"])
    if isinstance(body.get("tools"), list):
        out["tools"] = _tools_kept(body["tools"], body.get("tool_choice"))
    return out


def _head_ask_tail(turns: list[Any], key: str) -> list[Any]:
    """The first `_HEAD` and last `_TAIL` turns, and between them the first and the latest
    turn in which the user wrote something: an agent's tool loop adds two turns a round, so
    after 31 rounds the ask fell out of the view and the first message decided alone (found
    in review); Codex's first two turns are its AGENTS.md and environment, no asks. Looked
    for by role and block type, and a text block's ends (`_asks`), as far as the classifier
    looks in a chat body: the first among `SCAN_MESSAGES`, the latest `SCAN_ROLES` back;
    Aider's reflections are no asks in its requests only (`is_aiders`), as there."""
    tail = len(turns) - _TAIL
    aiders = is_aiders(turns)
    first = next((i for i in range(min(tail, SCAN_MESSAGES)) if _asks(turns[i], key, aiders)), tail)
    latest = next(
        (
            index
            for index in range(len(turns) - 1, max(len(turns) - 1 - SCAN_ROLES, _HEAD - 1), -1)
            if _asks(turns[index], key, aiders)
        ),
        tail,
    )
    between = sorted({i for i in (first, latest) if _HEAD <= i < tail})
    return [*turns[:_HEAD], *(turns[i] for i in between), *turns[tail:]]


def _asks(turn: object, key: str, aiders: bool) -> bool:
    """A user turn with words of the user's in it: not only tool results, images or an
    agent's harness text (`has_words` of a string, `turn_asks` of its text blocks: the
    classifier's own test). The texts are read together, as the classifier reads the
    turn: each block alone, a Cline tool's result it resumes after, or a local command's
    echo before its output, counted as an ask here and not there, and the view kept it
    rather than the ask before it (found in review). A system turn of Messages asks when it
    holds a message the user typed while a reply ran (`_typed`)."""
    if not isinstance(turn, dict):
        return False
    content = turn.get("content")
    if key == "messages" and turn.get("role") == "system":
        return _typed(content)
    if turn.get("role") != "user":
        return False
    if isinstance(content, str):
        return has_words(content, aiders=aiders)
    return turn_asks(_block_texts(content), aiders=aiders)


def _block_texts(content: object) -> list[str]:
    """The texts of the text blocks at a turn's ends (`_ends`)."""
    blocks = _ends(content) if isinstance(content, list) else []
    return [
        text
        for b in blocks
        if isinstance(b, dict)
        and b.get("type") in _TEXT_TYPES
        and isinstance(text := b.get("text"), str)
    ]


def _typed(content: object) -> bool:
    """Whether a Messages system turn's content holds a message the user typed while a reply
    ran, with words (`classifier.queued`): newer Claude Code sends it so, after the tool's
    result, and the translation reads the turn as a user's. Passed over as no user's turn,
    it was dropped once a tool loop ran on past the tail, and the ask before it kept in its
    place. Its other system turns (a note that the date changed, its agents' list) are no
    asks, and the view leaves them out (`_claude_codes_system_turn`); another client's
    system turn is no ask here either, as before, but the view keeps it."""
    return typed([content] if isinstance(content, str) else _block_texts(content))


def _claude_codes_system_turn(turn: object) -> bool:
    """Whether a Messages turn is a system turn of Claude Code's own: each of its texts starts
    with one of Claude Code's own openings (`classifier.claude_code_turns.own_turn`: past
    white space and a `<system-reminder>` opening), and it holds no message the user typed
    (`_typed`). The translation makes a
    system turn a user message, as the backend gets it (a chat template may refuse a system
    message after the first, and litellm moves every system message to Anthropic's
    `system`), and the classifier read it as the latest ask: Claude Code (2.1.197, its
    `mid-conversation-system` beta) sends one after the first user message on every request,
    its agents' and skills' list, and "write a python function is_prime in primes.py" was
    read by its 2,001 characters, tool_calling 0.9 (found in review); 2.1.332 sends its
    environment so, and a haiku's ask was read by its 840 characters, coding 0.95 (found in
    review). Left out of the view, it is read by no one: not as the ask, nor in the
    conversation key or the ledger's prompt text. Told by Claude Code's fixed wording, not
    by the role alone: another client's system turn holds its own words ("Write a Python
    function that parses ISO 8601 dates" after a greeting, a haiku ask alone), read as
    before (found in review)."""
    if not isinstance(turn, dict) or turn.get("role") != "system":
        return False
    content = turn.get("content")
    return own_turn([content] if isinstance(content, str) else _block_texts(content))


def _unread_cut(turn: object) -> object:
    """A Messages turn with an assistant's texts cut to their first character and its tool
    inputs emptied: no reader of the view (the classifier, the conversation key, the
    ledger's prompt text) reads an assistant turn, yet translating them joined their texts
    (64 kept turns of 1 MB merged in 1.3 s). A text keeps one character so that the turn
    stays empty or not, and so merges or is dropped as the forwarded one is."""
    if not isinstance(turn, dict) or turn.get("role") != "assistant":
        return turn
    content = turn.get("content")
    if isinstance(content, str):
        return {**turn, "content": content[:1]}
    if not isinstance(content, list):
        return turn
    return {**turn, "content": [_block_cut(b) for b in content]}


def _block_cut(block: object) -> object:
    if not isinstance(block, dict):
        return block
    if block.get("type") == "text" and isinstance(block.get("text"), str):
        return {**block, "text": block["text"][:1]}
    if block.get("type") == "tool_use":
        return {**block, "input": {}}
    return block


def _tools_kept(tools: list[Any], choice: object) -> list[Any]:
    """The tools the classifier reads (`scanned_tools`: 16, an agent's built-ins aside; past
    them only "any tools?" matters), those the choice allows or names first: cut blindly, a
    Responses request allowed only its 20th tool read as one with tools disabled."""
    chosen = _chosen_names(choice)
    if len(tools) <= SCAN_TOOLS or not chosen:
        return list(scanned_tools(tools))
    first = list(islice((t for t in tools if _tool_name(t) in chosen), SCAN_TOOLS))
    rest = (t for t in scanned_tools(tools) if _tool_name(t) not in chosen)
    return list(scanned_tools([*first, *rest]))


def _chosen_names(choice: object) -> frozenset[str]:
    """Tools a tool choice allows (Responses' `allowed_tools`) or names (any API's forced tool)."""
    if not isinstance(choice, dict):
        return frozenset()
    listed = choice.get("tools") if choice.get("type") == "allowed_tools" else [choice]
    if not isinstance(listed, list):
        return frozenset()
    return frozenset(n for t in listed[:SCAN_TOOLS] if isinstance(n := _tool_name(t), str))


def _tool_name(tool: object) -> object:
    return tool.get("name") if isinstance(tool, dict) else None


def _clipped(item: object, depth: int) -> object:
    """`item` with its block lists cut to their ends, `depth` levels down (a turn's blocks,
    then a tool result's blocks)."""
    if depth == 0 or not isinstance(item, dict):
        return item
    lists = {k: item[k] for k in _NESTED if isinstance(item.get(k), list)}
    if not lists:
        return item
    return {**item, **{k: [_clipped(b, depth - 1) for b in _ends(v)] for k, v in lists.items()}}


def _ends(items: list[Any]) -> list[Any]:
    return items if len(items) <= 2 * _PARTS else items[:_PARTS] + items[-_PARTS:]
