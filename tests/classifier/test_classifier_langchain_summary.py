"""LangChain's summarization request is read and keyed by the thread it summarises, and a
compacted Deep Agents thread keys by its history file's path (`classifier.langchain_summary`).

Found in a live review of deepagents 0.7.6 (langchain 1.5.2) through the router: the summary
request is one user message, `DEFAULT_SUMMARY_PROMPT` with the thread some 3,300 characters
in, so a coding session's and a haiku session's summaries had one conversation key (and were
instruction 0.56-0.78, by the template); after a compaction the thread opened with "You are in
the middle of a conversation that has been summarized...", its summary new at each compaction,
and took another key each time. The bodies are the recorded ones' shapes, trimmed (tools and
stream options dropped), the summaries told apart as a real model's are.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from classifier import classify, langchain_summary
from classifier.ask_text import ask_content
from classifier.asks import first_ask
from classifier.langchain_summary import (
    ENTRY_WITHIN,
    MEDIA_NOTE,
    MESSAGES_END,
    MESSAGES_OPENING,
    SUMMARY_PROMPT,
    history_path,
    human_texts,
    summarized_asks,
)
from classifier.request import view
from router.conversation import conversation_key

CODING = "Write fib.py with a fib function."
HAIKU = "Write a haiku about the sea into sea.txt."
EXPLAIN = "Read fib.py and explain it line by line in great detail."
PATH = "/conversation_history/session_71a3d5d5225c471cbf8b06e23189cc84.md"
OTHER_PATH = "/conversation_history/session_111500ecb68c475388373f876c27fb4c.md"


def compacted(summary: str, path: str = PATH) -> str:
    """Deep Agents' message opening a compacted thread (`_build_new_messages_with_path`)."""
    return (
        "You are in the middle of a conversation that has been summarized.\n\nThe full"
        f" conversation history has been saved to {path} should you need to refer back to it"
        f" for details.\n\nA condensed summary follows:\n\n<summary>\n{summary}\n</summary>"
    )


def escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def summarizing(*entries: str, note: str = MEDIA_NOTE) -> dict[str, Any]:
    """A summarization request of the thread `entries` (`get_buffer_string(format="xml")`'s),
    Deep Agents' note in its prompt unless `note` is ""."""
    thread = "\n".join(entries)
    prompt = SUMMARY_PROMPT + note + MESSAGES_OPENING + thread + MESSAGES_END
    return {"model": "auto", "stream": True, "messages": [{"role": "user", "content": prompt}]}


def human(text: str) -> str:
    return f'<message type="human">{escaped(text)}</message>'


TOOL_TURN = (
    '<message type="ai">\n  <tool_call id="chatcmpl-tool-d8f3" name="write_file">'
    '{"file_path": "fib.py", "content": "def fib(n): ..."}</tool_call>\n</message>\n'
    '<message type="tool">Updated file /fib.py</message>\n'
    '<message type="ai">Wrote fib.py.</message>'
)


def turn(*users: str, system: str = "") -> dict[str, Any]:
    """A main agent's turn: its system prompt (recorded empty: `create_deep_agent` given no
    `system_prompt`), then the user messages, a tool call and its result after the first."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    messages.append({"role": "user", "content": users[0]})
    messages += [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"file_path": "/fib.py"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "1  def fib(n): ..."},
        {"role": "assistant", "content": "Done."},
    ]
    messages += [{"role": "user", "content": user} for user in users[1:]]
    return {"model": "auto", "stream": True, "messages": messages}


def key(body: dict[str, Any]) -> str:
    return conversation_key(body, {}, "caller")


def test_two_threads_summaries_key_apart_each_by_its_first_ask() -> None:
    """Both had key 2dcfd2b35edc48cf live: one pin and one ledger conversation. Keyed by the
    first ask alone, as a chat that sends no system message is: the request sends none, so
    it keys apart from a thread that sends one, even an empty one (Deep Agents' recorded
    turns), and only `prompt_cache_key` keeps it with its thread."""
    coding = summarizing(human(CODING), TOOL_TURN, human(EXPLAIN))
    haiku = summarizing(human(HAIKU), TOOL_TURN)
    assert key(coding) != key(haiku)
    assert key(coding) == key({"messages": [{"role": "user", "content": CODING}]})
    for system in ("", "You are a coding agent."):
        assert key(coding) != key(turn(CODING, EXPLAIN, system=system))
    named = {"prompt_cache_key": "thread-1"}
    assert key(coding | named) == key(turn(CODING, EXPLAIN, system="You code.") | named)


@pytest.mark.parametrize("note", [MEDIA_NOTE, ""])  # Deep Agents' prompt and LangChain's
def test_a_summary_request_is_read_by_its_threads_human_messages(note: str) -> None:
    body = summarizing(human(CODING), TOOL_TURN, human(EXPLAIN), note=note)
    messages = body["messages"]
    shown = view(body)
    assert (shown.first, shown.latest) == (CODING, EXPLAIN)
    assert first_ask(messages) == {"role": "user", "content": CODING}
    assert ask_content(messages[0], messages) == EXPLAIN  # the ledger's prompt
    assert classify(body).label != "instruction"  # the template's, read whole


def test_a_haiku_threads_summary_is_no_instruction() -> None:
    label = classify(summarizing(human(HAIKU), TOOL_TURN)).label
    assert label == classify({"messages": [{"role": "user", "content": HAIKU}]}).label


def test_a_compacted_thread_keys_alike_across_compactions() -> None:
    """After each compaction the thread opens with a new summary, and the ask after it drops
    out at a later one; the history file's path stays the thread's."""
    first = turn(compacted("The user asked for fib.py; it was written."), EXPLAIN)
    second = turn(compacted("fib.py was written and explained line by line."), "List them.")
    resummary = summarizing(human(compacted("fib.py was written.")), TOOL_TURN)
    assert history_path(first["messages"]) == PATH
    assert key(first) == key(second) == key(resummary)
    assert key(first) != key(turn(compacted("A haiku was written.", OTHER_PATH), EXPLAIN))


def test_two_agents_compacted_threads_of_one_path_key_apart() -> None:
    """Deep Agents before 0.7.6 named the history file by the LangGraph thread id: a coding
    agent's and a poetry assistant's thread "1" under one API key were one conversation
    after their compactions, keyed by the path alone (found in review)."""
    path = "/conversation_history/1.md"
    coding = turn(compacted("fib.py was written.", path), EXPLAIN, system="You code.")
    poetry = turn(compacted("A haiku was written.", path), "Another.", system="You write.")
    assert key(coding) != key(poetry)
    later = turn(compacted("fib.py was explained.", path), "List them.", system="You code.")
    assert key(coding) == key(later)  # still one thread across its compactions
    # its resummary sends no system prompt: keyed apart from its turns, as documented
    assert key(summarizing(human(compacted("fib.py was written.", path)))) != key(coding)


def test_a_resummary_with_no_ask_of_a_users_is_read_by_its_thread() -> None:
    body = summarizing(human(compacted("fib.py was written.")), TOOL_TURN)
    asks = summarized_asks(body["messages"])  # the thread whole, clipped as any ask
    assert asks is not None and asks.latest["content"].startswith('<message type="human">You')


@pytest.mark.parametrize(
    "text",
    [
        compacted("s").replace(" should you need", " if you need"),  # not its line
        "Note: " + compacted("s"),  # not at the message's head
    ],
)
def test_another_opening_keys_as_sent(text: str) -> None:
    assert history_path(turn(text, EXPLAIN)["messages"]) is None


def test_the_template_with_words_after_it_is_read_as_written() -> None:
    body = summarizing(human(CODING))
    body["messages"][0]["content"] += "\nAnd a haiku."
    assert summarized_asks(body["messages"]) is None
    body = summarizing(human(CODING))
    body["messages"].insert(0, {"role": "system", "content": "You summarise."})
    assert summarized_asks(body["messages"]) is None


MB = 1_000_000
OPENING = '<message type="human">'
# The reader's former regex: what the scan must find on a well-formed thread
HUMAN = re.compile(r'<message type="human">(.*?)</message>', re.DOTALL)
# Threads of a client's making, about 1 MB: openings with no end (the review's, 3,000 of them
# in 68 KB, took 6.5 s a request), one end after them all, nested openings each closed,
# near-openings, ends alone
HOSTILE = {
    "unclosed": OPENING * (MB // len(OPENING)),
    "one-end-after": OPENING * (MB // len(OPENING)) + "</message>",
    "nested": (OPENING * 50 + "x" + "</message>" * 50) * (MB // 1600),
    "near": '<message type="huma' * (MB // 19),
    "ends": "</message>" * (MB // 10),
}


@pytest.mark.timeout(5)  # milliseconds in all; before, some 16 s, 2 s or 3 s a read
def test_a_summarization_request_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The classifier, the conversation key and the ledger each ask for the thread's asks;
    its two windows are scanned once for the request, as pi's are, not once for each."""
    scans: list[tuple[int, int]] = []
    scan = langchain_summary._human_entries

    def counted(thread: str, start: int, end: int) -> tuple[str, str] | None:
        scans.append((start, end))
        return scan(thread, start, end)

    monkeypatch.setattr(langchain_summary, "_human_entries", counted)
    body = summarizing(*(human(f"ask {n}") for n in range(3000)))
    messages = body["messages"]
    classify(body)
    key(body)
    assert ask_content(messages[0], messages) == "ask 2999"
    assert first_ask(messages) == {"role": "user", "content": "ask 0"}
    assert len(scans) == 2  # its first window and its last


def test_a_thread_of_openings_with_no_end_is_read_in_linear_time() -> None:
    """`<message type="human">(.*?)</message>` tried each opening with no end to the
    window's end: quadratic in it, the event loop held for every client (found in a
    review). Each read here returns: the key, the classifier's view and label, the
    ledger's prompt."""
    for thread in HOSTILE.values():
        body = summarizing(thread)
        messages = body["messages"]
        assert history_path(messages) is None
        assert summarized_asks(messages) is not None
        key(body)
        view(body)
        classify(body)
        ask_content(messages[0], messages)


WELL_FORMED = [
    "\n".join([human(CODING), TOOL_TURN, human(EXPLAIN)]),
    "\n".join([human(compacted("fib.py was written.")), TOOL_TURN, human(HAIKU)]),
    human("") + human(" ") + human("a\n<b>\n") + '<message type="ai">x</message>',
    human(CODING) + OPENING + "no end",  # the end cut off: the messages before it
    OPENING + OPENING + "inner</message>outer</message>",  # an opening inside one
    "\n".join(human(f"ask {n}") for n in range(3000)),  # past ENTRY_WITHIN: two windows
]


@pytest.mark.parametrize("thread", WELL_FORMED)
def test_the_scan_finds_what_the_regex_found(thread: str) -> None:
    """The first and latest ask of each window, and the first human message's path, are
    the regex's."""
    end = min(len(thread), ENTRY_WITHIN)
    windows = [(0, end), (max(0, len(thread) - ENTRY_WITHIN), len(thread))]
    for start, stop in windows:
        texts = [m.group(1) for m in HUMAN.finditer(thread, start, stop)]
        assert list(human_texts(thread, start, stop)) == texts
