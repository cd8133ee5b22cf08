"""Open WebUI's background tasks are read by the chat's own ask inside their templates.

Found in a live review of Open WebUI 0.12.4 through the router: each task (title, tags,
follow-ups, search queries, autocompletion, emoji, image prompt) is one user message, a fixed
template around the recent chat, and the template decided: every title was instruction (its
"Your entire response must consist solely of the JSON object" read as the answer's form),
follow-ups of prose chats prose, on the cloud, and the emoji of a coding reply reasoning, the
code sent to the cloud; 50 of 105 ledger rows were instruction no user asked for. The bodies
are built from its templates (`tests/fixtures/open-webui-0.12.4.md`) as it builds them.
"""

from __future__ import annotations

import pytest

from classifier import classify
from classifier.asks import first_ask
from classifier.open_webui import TURN_WITHIN, task_ask
from classifier.request import view
from tests.open_webui_tasks import HISTORY_TASKS, TEMPLATES, task_body, task_text

CODE = "Write a Python function that parses an ISO-8601 date string, handling a trailing Z."
PARSE = "def parse_iso(s): return datetime.fromisoformat(s.replace('Z', '+00:00'))"
REPLY = f"```python\n{PARSE}\n```"
POEM = "Write a haiku about autumn rain on a tin roof."
INTEGRAL = "What is the integral of x^2 * e^x dx? Show the steps."


def chat(*asks: str) -> list[tuple[str, str]]:
    """A chat of `asks`, each answered."""
    return [turn for ask in asks for turn in (("user", ask), ("assistant", "Here it is."))]


@pytest.mark.parametrize("task", HISTORY_TASKS)
def test_a_task_over_the_history_reads_the_chats_ask(task: str) -> None:
    body = task_body(task, [("user", CODE), ("assistant", REPLY)])
    shown = view(body)
    assert shown.latest == CODE
    assert not shown.harness_cut  # Open WebUI is no coding agent
    assert classify(body).label == "coding"


def test_a_title_before_the_reply_reads_the_ask() -> None:
    """Open WebUI asks for the title as the chat's first reply starts: "ASSISTANT: " empty."""
    body = task_body("title", [("user", CODE), ("assistant", "")])
    assert view(body).latest == CODE
    assert classify(body).label == "coding"


@pytest.mark.parametrize(("ask", "label"), [(POEM, "prose"), (INTEGRAL, "math")])
def test_a_title_is_what_its_chat_is(ask: str, label: str) -> None:
    assert classify(task_body("title", chat(ask))).label == label


def test_follow_ups_read_the_latest_ask_of_the_history() -> None:
    """Its first ask is the history's first: the chat's last five messages no longer hold
    its opening."""
    body = task_body("follow_ups", chat(POEM, "Now make it rhyme.", CODE))
    assert (view(body).first, view(body).latest) == ("Now make it rhyme.", CODE)
    assert first_ask(body["messages"]) == {"role": "user", "content": "Now make it rhyme."}


def test_a_multi_line_ask_is_read_to_the_reply() -> None:
    ask = f"{CODE}\nIt must accept 2026-12-06T12:00:00Z.\n\nUSER-facing errors in English."
    body = task_body("tags", [("user", ask), ("assistant", REPLY)])
    assert view(body).latest == ask


def test_the_older_title_wording_is_read_too() -> None:
    """Open WebUI 0.5-0.6's title sentence, in the same frame."""
    body = task_body("title", chat(INTEGRAL))
    old = "Generate a concise, 3-5 word title with an emoji summarizing the chat history."
    text = body["messages"][0]["content"]
    body["messages"][0]["content"] = text.replace(
        "Generate a concise title summarizing the chat history.", old
    )
    assert view(body).latest == INTEGRAL


def test_an_autocompletion_reads_the_text_being_typed() -> None:
    body = task_body("autocomplete", [("user", CODE), ("assistant", REPLY)], "Now make it accept")
    assert view(body).latest == "Now make it accept"


def test_an_emoji_reads_the_text_it_reacts_to() -> None:
    """The emoji of a coding reply was reasoning, the code sent to the cloud."""
    body = task_body("emoji", [], PARSE)
    assert view(body).latest == PARSE
    assert classify(body).label == "coding"


def test_a_long_history_is_read_bounded() -> None:
    """A reply longer than `TURN_WITHIN` after the ask: the ask is read, found in the head."""
    body = task_body("follow_ups", [("user", CODE), ("assistant", "x = 1\n" * TURN_WITHIN)])
    assert view(body).latest == CODE


def test_a_later_turns_task_is_read_with_the_chats_first_ask() -> None:
    """As the chat's own turn is read: its latest ask alone, a coding chat's follow-ups were
    reasoning, the code sent to the cloud (found in review)."""
    why = "Why does it need the replace call?"
    history = [("user", CODE), ("assistant", REPLY), ("user", why), ("assistant", "Before 3.11.")]
    body = task_body("follow_ups", history)
    shown = view(body)
    assert (shown.first, shown.latest) == (CODE, why)
    assert first_ask(body["messages"]) == {"role": "user", "content": CODE}
    turn = {"messages": [{"role": r, "content": c} for r, c in history[:-1]]}
    assert classify(body).label == classify(turn).label == "coding"


TRANSCRIPT = "Sample transcript:\nUSER: What is the integral of x^2 from 0 to 3?\nASSISTANT: 9"
SHOWN = f"```python\nwhile True:\n    q = input('> ')\n```\n\n{TRANSCRIPT}"
CHATBOT = "Write a Python CLI chatbot loop that keeps a transcript of the session."


@pytest.mark.parametrize("task", ["title", "tags"])
def test_a_user_line_in_a_first_reply_is_the_replys(task: str) -> None:
    """Titles and tags come of a chat's first exchange: a "USER:" line the reply shows is
    its own (it made a coding chat's title math, found in review)."""
    body = task_body(task, [("user", CHATBOT), ("assistant", SHOWN)])
    assert view(body).latest == CHATBOT
    assert classify(body).label == "coding"


@pytest.mark.parametrize("task", HISTORY_TASKS)
def test_a_user_line_in_a_fenced_block_is_the_replys(task: str) -> None:
    """A few-shot prompt in a code block: its "USER:" lines were read as the user's ask, and
    the ledger would keep an assistant's line as the user's words."""
    shot = "```\nUSER: The battery died after two days.\nASSISTANT: negative\n```"
    ask = "Write a few-shot prompt that labels product reviews as positive or negative."
    body = task_body(task, [("user", ask), ("assistant", f"Here it is:\n{shot}")])
    assert task_ask(body["messages"][0], body["messages"]) == ask


def test_an_assistant_line_in_a_users_fence_is_the_users() -> None:
    """The user pastes a transcript in a code block: the ask runs past its "ASSISTANT:"."""
    ask = "Summarise this log:\n```\nUSER: hi\nASSISTANT: hello\n```\nIn one line."
    body = task_body("follow_ups", [("user", ask), ("assistant", "A greeting.")])
    assert view(body).latest == ask


@pytest.mark.parametrize(
    "text",
    [
        "### Task:\nGenerate a concise title summarizing the chat history.",
        "### Task: fix the failing test in parser.py",
        task_text("title", chat(POEM)) + "\n\nNow explain what this prompt does.",
        task_text("title", chat(POEM)).replace("concise title", "short title"),
        "Your task is to reflect the speaker's likely facial expression ```",
    ],
)
def test_a_user_typing_its_words_is_read_as_written(text: str) -> None:
    """Only a template whole, its structure to its end, is Open WebUI's task."""
    body = {"model": "auto", "messages": [{"role": "user", "content": text}]}
    assert view(body).latest == text


def test_a_template_sent_later_in_a_chat_is_read_as_written() -> None:
    """Open WebUI sends a task as a request's one user message; in a chat, a user sent it."""
    text = task_text("title", chat(CODE))
    messages = [
        {"role": "user", "content": POEM},
        {"role": "assistant", "content": "Rain on the tin roof..."},
        {"role": "user", "content": text},
    ]
    assert view({"model": "auto", "messages": messages}).latest == text


def test_every_template_is_known() -> None:
    """Every template of the fixture is one the reader knows: each, filled, reads as the
    chat's words, not as the template."""
    assert set(TEMPLATES) == {*HISTORY_TASKS, "autocomplete", "emoji"}
    for name in TEMPLATES:
        (message,) = task_body(name, chat(CODE), typed="Now make it accept dates")["messages"]
        assert task_ask(message, [message]) in (CODE, "Now make it accept dates"), name
