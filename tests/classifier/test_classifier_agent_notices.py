"""An agent's notices in a user turn are not the user's words; the user's words in them are.

Cline and Roo Code reopen an interrupted task with a "[TASK RESUMPTION]" text, and the user's
new message after it in `<user_message>`, followed by a file it names; a task stopped after a
tool ran is resumed in the turn of the tool's result, which asks nothing then. Roo Code puts
the file a tool read after the user's feedback on approving the read. Claude Code sends a peer
session's, a teammate's and a channel's message, a Stop hook's reason to go on and its
summary of a compacted conversation as user messages, and its note that the user stopped a
reply before what they typed next. Each was read as the user's ask, or the user's words
with the agent's around them, and gave the request another label than the user's words
alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, explain
from classifier.harness import has_words, own_words
from classifier.request import view
from router.translate.view import chat_view
from tests.agent_shapes import (
    CLAUDE_MD_REMINDER,
    CLINE_ENVIRONMENT,
    PEER,
    PLAN_NO_MESSAGE,
    PLAN_RESUMPTION,
    RESUMPTION,
    claude_code_body,
    cline_feedback,
    cline_task,
    resumed_with,
    roo_approved,
)

ASK = "Refactor parse_config in src/config.py to raise ValueError on unknown keys."
BIKE = "Why does my bike chain keep slipping when I climb hills?"
SONNET = "Write a sonnet about autumn leaves falling on a quiet river."
NAMED = f"'notes/ride.md' (see below for file content) {SONNET}"  # what `resumed_with` wraps

# Claude Code's own user messages, as its transcripts quoted in public repositories show
# them: a teammate's, a channel's (an MCP server's push: here a CI run's), a Stop hook's
# reason to go on, and the summary of a conversation compacted on its own (a peer session's
# message: `PEER`)
TEAMMATE = (
    '<teammate-message teammate_id="researcher" color="blue" summary="Config readers found">\n'
    "Three modules read the config: src/config.py, src/cli.py and src/server.py. Only "
    "src/config.py validates keys.\n</teammate-message>"
)
CHANNEL = (
    '<channel source="ci" run_id="812" status="failed">\nBuild 812 failed on main: 2 tests '
    "failed in tests/test_config.py (test_unknown_key, test_defaults).\n</channel>"
)
STOP_HOOK = (
    "Stop hook feedback:\n[~/.claude/stop-hook-git-check.sh]: There are untracked files in "
    "the repository. Please commit and push these changes to the remote branch."
)
SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\nAnalysis:\nThe user asked to refactor "
    "parse_config in src/config.py to raise ValueError on unknown keys; I added a KEYS set "
    "and ran pytest: 2 tests failed.\n\nSummary:\n1. Primary Request and Intent: reject "
    "unknown keys in parse_config.\n2. Pending Tasks: fix tests/test_config.py.\nPlease "
    "continue the conversation from where we left it off without asking the user any further "
    "questions. Continue with the last task that you were asked to work on."
)
CALL = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest -q"}}
REJECTED = {
    "type": "tool_result",
    "tool_use_id": "toolu_1",
    "is_error": True,
    "content": "The user doesn't want to proceed with this tool use. The tool use was rejected.",
}
DONE = {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}


def texts(*items: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text} for text in items]


def cline(last: list[str], joined: bool, task: str = ASK) -> dict[str, Any]:
    """A Cline conversation: the task, a reply, and a user turn of `last` and the editor's
    state, as text parts or joined into one string."""
    turn = [*last, CLINE_ENVIRONMENT]
    first = {"role": "user", "content": texts(cline_task(task), CLINE_ENVIRONMENT)}
    reply = {"role": "assistant", "content": "<attempt_completion>"}
    content = "\n".join(turn) if joined else texts(*turn)
    return {"messages": [first, reply, {"role": "user", "content": content}]}


def sent(words: str, task: str = ASK) -> dict[str, Any]:
    """The same conversation with `words` sent alone as the last turn."""
    body = cline([], joined=False, task=task)
    body["messages"][-1] = {"role": "user", "content": words}
    return body


@pytest.mark.parametrize("joined", [False, True])
@pytest.mark.parametrize(
    "last",
    [
        [RESUMPTION, resumed_with(SONNET)],  # Cline: two parts
        [f"{RESUMPTION}\n\n{resumed_with(SONNET)}"],  # Roo Code: one text
        [PLAN_RESUMPTION, resumed_with(SONNET, plan=True)],  # Cline's plan mode
    ],
)
def test_the_users_message_on_resuming_a_task_is_read_alone(last: list[str], joined: bool) -> None:
    """Cline's resumption text was read as the ask, and the user's message with it: a
    sonnet asked for on resuming was writing 0.24 (plan mode instruction 0.26), alone prose
    0.87. The message is in the middle of its text: a file it names follows it. The label
    is now the agent_session rule's; the model's reading is checked."""
    body = cline(last, joined)
    assert view(body).latest == NAMED
    assert classify(body) == classify(sent(NAMED))
    assert explain(body)["model_intent"] == "prose"


@pytest.mark.parametrize("joined", [False, True])
@pytest.mark.parametrize("notice", [[RESUMPTION], [PLAN_RESUMPTION, PLAN_NO_MESSAGE]])
def test_resuming_a_task_without_a_message_leaves_the_task_the_ask(
    notice: list[str], joined: bool
) -> None:
    """Resumed with no new message, the resumption was the latest ask: a sonnet task was
    reasoning 0.28 (plan mode writing 0.45). The task is the latest again, prose 0.99."""
    body = cline(notice, joined, task=SONNET)
    assert not any(has_words(text) for text in notice)
    assert (view(body).latest, view(body).first) == (SONNET, "")
    assert classify(body) == classify({"messages": body["messages"][:1]})
    assert classify(body).label == "prose"


def test_a_first_turn_resumed_is_read_as_its_task() -> None:
    """A task stopped before any reply is resumed with its first turn's texts and the
    resumption after them: joined into one text (as the router's view had them), it was
    read with the resumption, writing 0.28; the task alone is prose 0.99."""
    joined = "\n".join([cline_task(SONNET), CLINE_ENVIRONMENT, RESUMPTION, CLINE_ENVIRONMENT])
    assert own_words(joined) == SONNET
    with_message = "\n".join([cline_task(SONNET), RESUMPTION, resumed_with(BIKE)])
    named = f"'notes/ride.md' (see below for file content) {BIKE}"
    assert own_words(with_message) == f"{SONNET}\n{named}"
    body = {"messages": [{"role": "user", "content": joined}]}
    assert classify(body).label == "prose"


@pytest.mark.parametrize(
    "text",
    [
        f"Which tag holds this?\n<user_message>\n{SONNET}\n</user_message>\nand why?",
        f"New instructions for task continuation:\n<user_message>\n{SONNET}\n</user_message>\nOK?",
        f"{RESUMPTION[:17]} is what Cline sends. Explain it.",
    ],
)
def test_a_users_own_text_with_an_agents_tags_is_read_as_written(text: str) -> None:
    """Followed by words, not the agent's markup, a tagged message is the user's text."""
    assert own_words(text) is text


# Cline's note after its resumption when the task stopped under 30 seconds before
REVERTED = (
    "\n\nIMPORTANT: If the last tool use was a replace_in_file or write_to_file that was "
    "interrupted, the file was reverted back to its original state before the interrupted "
    "edit, and you do NOT need to re-read the file as you already have its up-to-date contents."
)
QUOTED = (
    "[TASK RESUMPTION] This task was interrupted 3 minutes ago: what does Cline mean by that? "
    "Explain the resume logic in Cline's source."
)


@pytest.mark.parametrize("resumption", [RESUMPTION, PLAN_RESUMPTION, RESUMPTION + REVERTED])
def test_a_resumption_is_matched_through_its_templates_end(resumption: str) -> None:
    """Cline's resumption is no ask to its last sentence (act or plan mode, and the note on
    a reverted edit); a user's words after the whole of it, as when they paste it and ask
    about it, are theirs (they were no ask: the question was unknown 0.0)."""
    assert not has_words(resumption)
    assert not has_words(f"{resumption}\n{CLINE_ENVIRONMENT}")
    assert own_words(f"{resumption}\n\n{BIKE}") == BIKE
    assert view(sent(QUOTED)).latest == QUOTED
    assert own_words(QUOTED) is QUOTED


# Roo Code's text on reopening a task with no message since it dropped the template, and
# Cline's older plan-mode note that no message came (appended to the resumption, no space)
ROO_RESUMED = "[TASK RESUMPTION] Resuming task..."
OLD_NO_MESSAGE = PLAN_NO_MESSAGE.replace("or suggest to them to switch", "or to switch")


@pytest.mark.parametrize("joined", [False, True])
def test_roo_codes_minimal_resumption_is_no_ask(joined: bool) -> None:
    """Newer Roo Code reopens a task with no message as "[TASK RESUMPTION] Resuming
    task...", which nothing matched: it was the latest ask, and a sonnet task was prose 0.95
    (alone 0.99). It is matched whole, as Cline's template is: the task is the latest again,
    and words after it (or a `<user_message>` in it) are read."""
    body = cline([ROO_RESUMED], joined, task=SONNET)
    assert (view(body).latest, view(body).first) == (SONNET, "")
    assert classify(body) == classify({"messages": body["messages"][:1]})
    assert own_words(f"{ROO_RESUMED}\n\n{BIKE}") == BIKE
    assert own_words(f"{ROO_RESUMED}\n<user_message>\n{BIKE}\n</user_message>") == BIKE
    quoted = "[TASK RESUMPTION] Resuming task is all Roo Code sends now: why?"
    assert own_words(quoted) is quoted


@pytest.mark.parametrize("note", [PLAN_NO_MESSAGE, OLD_NO_MESSAGE])
def test_the_note_that_no_message_came_is_matched_whole(note: str) -> None:
    """Cline's plan-mode note in place of a message was matched by its first sentence: a
    user's text starting with it was no ask. It is matched whole, a part of its own or after
    the resumption; words after it are read."""
    assert not has_words(note)
    assert not has_words(f"{PLAN_RESUMPTION}{note}\n{CLINE_ENVIRONMENT}")
    assert own_words(f"{PLAN_RESUMPTION}\n\n{note}\n\n{BIKE}") == BIKE
    typed = (
        "(The user did not provide a new message.) is all Cline shows in plan mode. How do I "
        "switch to Act mode?"
    )
    assert own_words(typed) is typed
    assert view(sent(typed)).latest == typed


@pytest.mark.parametrize("joined", [False, True])
def test_feedback_on_approving_a_read_is_read_alone(joined: bool) -> None:
    """Roo Code puts the file it read after the user's feedback on approving the read: the
    feedback is not at its text's end, and was read with the tool's header and the file,
    coding 0.79; alone prose 0.83. The label is now the agent_session rule's; the model's
    reading is checked."""
    feedback = "Now write it as a limerick instead."
    body = cline(roo_approved(feedback), joined)
    assert view(body).latest == feedback
    assert classify(body) == classify(sent(feedback))
    assert explain(body)["model_intent"] == "prose"


@pytest.mark.parametrize("joined", [False, True])
def test_feedback_before_a_resumption_is_read_alone(joined: bool) -> None:
    """A turn with the user's feedback, reopened before any reply, has the resumption after
    the feedback in the router's joined view: read with it, coding 0.28; alone prose 0.95."""
    turn = [*cline_feedback(SONNET), CLINE_ENVIRONMENT, RESUMPTION]
    body = cline(turn, joined=joined)
    assert view(body).latest == SONNET
    assert classify(body) == classify(sent(SONNET))


# A file Cline read, its tool's result: more than 2,000 characters, past which a reply
# followed by the agent's markup is not looked for from the text's start
READ = [
    "[read_file for 'src/config.py'] Result:",
    "".join(
        f"def check_{i}(d):\n    if 'key_{i}' not in d:\n        raise KeyError({i})\n"
        for i in range(30)
    ),
    CLINE_ENVIRONMENT,
]


@pytest.mark.parametrize("joined", [False, True])
@pytest.mark.parametrize(
    "resumed",
    [
        [RESUMPTION],
        [RESUMPTION, resumed_with(SONNET)],  # Cline: two parts
        [f"{RESUMPTION}\n\n{resumed_with(SONNET)}"],  # Roo Code: one text
    ],
)
def test_a_tool_result_before_a_resumption_is_not_read(resumed: list[str], joined: bool) -> None:
    """A task stopped after a tool ran is resumed in the turn that carries the tool's
    result, the resumption after it. The result was read as the latest ask: a sonnet task
    resumed was coding 0.66 (joined, reasoning 0.34), and a sonnet sent on resuming was
    read after the file it read, prose 0.75 (alone in a joined turn only when the file was
    short). The message is read alone, prose 0.98; without one, the task is the latest ask
    again, prose 0.99."""
    body = cline([*READ, *resumed], joined, task=SONNET)
    message = any("<user_message>" in text for text in resumed)
    alone = sent(NAMED, task=SONNET) if message else {"messages": body["messages"][:1]}
    assert len(READ[1]) > 2_000
    assert view(body).latest == (NAMED if message else SONNET)
    assert classify(body) == classify(alone)
    assert classify(body).label == "prose"


def claude_code(*turns: dict[str, Any]) -> dict[str, Any]:
    """The classifier's view of a Claude Code conversation (`chat_view`)."""
    return chat_view("messages", claude_code_body(list(turns)))


def user(*items: Any) -> dict[str, Any]:
    return {"role": "user", "content": [i if isinstance(i, dict) else texts(i)[0] for i in items]}


@pytest.mark.parametrize("message", [PEER, STOP_HOOK])
def test_claude_codes_own_user_messages_are_no_ask(message: str) -> None:
    """A peer's message, or a Stop hook's reason to go on, was the latest ask: a question on
    a bike chain was then coding (0.43, 0.56); it is the latest again, reasoning 0.82. The
    label is now the agent_session rule's; the model's reading is checked."""
    body = claude_code(user(BIKE), DONE, user(message))
    assert not has_words(message)
    assert (view(body).latest, view(body).first) == (BIKE, "")
    assert classify(body) == classify(claude_code(user(BIKE)))
    assert explain(body)["model_intent"] == "reasoning"


def test_a_stop_hooks_output_pasted_is_read_only_after_the_users_words() -> None:
    """The kept trade-off (`classifier.harness`): the hook's output is free-form, so a text
    that starts with it asks nothing, a user's question after it too; asked first, the
    question is read with the output, as docs/agents/claude-code.md tells users to."""
    pasted = "Stop hook feedback:\n[~/.claude/hooks/check.sh]: exit 2"
    question = "Why is my hook failing and how do I fix check.sh?"
    assert not has_words(f"{pasted}\n\n{question}")
    asked = f"{question}\n\n{pasted}"
    assert view(claude_code(user(BIKE), DONE, user(asked))).latest == asked


def test_a_users_words_starting_like_a_peers_note_are_read_as_written() -> None:
    """Claude Code puts its note on a peer's message after the message, in the same text,
    never at a text's start: a user's text starting with its words was no ask."""
    text = (
        "This came from another Claude session in my terminal: what does 'permission "
        "laundering' mean?"
    )
    assert own_words(text) is text
    assert "</cross-session-message>\n\nThis came from another Claude session" in PEER
    assert not has_words(PEER)


@pytest.mark.parametrize(
    ("before", "words", "marker"),
    [
        # stopped mid tool call: Claude Code's rejected tool result, its note, the prompt
        ([REJECTED], "Make it shorter.", "[Request interrupted by user for tool use]"),
        ([], "No, the other one.", "[Request interrupted by user]"),
    ],
)
def test_the_note_that_the_user_stopped_a_reply_is_not_their_words(
    before: list[dict[str, Any]], words: str, marker: str
) -> None:
    """The note comes before what the user types next, in the same turn: read with it,
    "Make it shorter." was tool_calling 0.60, "No, the other one." tool_calling 0.48; each
    alone is coding."""
    reply = {"role": "assistant", "content": [CALL]} if before else DONE
    body = claude_code(user(ASK), reply, user(*before, marker, words))
    plain = claude_code(user(ASK), reply, user(*before, words))
    assert view(body).latest == words
    assert classify(body) == classify(plain)
    assert classify(body).label == "coding"
    assert own_words(f"{words}\n{marker}") == words
    assert own_words(f"{marker}\nSort it [b, a]") == "Sort it [b, a]"
    assert own_words(f"Sort it.\n{marker}\nThen [b, a]") == f"Sort it.\n{marker}\nThen [b, a]"


@pytest.mark.parametrize(
    "text",
    [
        "[Request interrupted by user is weird; sort arr = [3, 1, 2]",
        "[Request interrupted by user for no reason] shows after every reply. Why?",
    ],
)
def test_a_users_words_starting_like_the_note_are_read_as_written(text: str) -> None:
    """The note is one of two exact texts: a user's words that start like it were cut up to
    their first "]" after it (the first, all of it, was no ask)."""
    assert own_words(text) is text
    assert view(claude_code(user(text))).latest == text


def test_a_compacted_conversations_summary_is_no_ask() -> None:
    """Claude Code compacts a full conversation before the prompt that filled it, and sends
    the summary with the prompt in one turn: read with it, a question on a bike chain was
    coding 0.51; alone it is reasoning 0.82. Sent alone, the summary asks nothing. The label
    is now the agent_session rule's; the model's reading is checked."""
    body = claude_code(user(SUMMARY, CLAUDE_MD_REMINDER, BIKE))
    assert view(body).latest == BIKE
    assert classify(body) == classify(claude_code(user(BIKE)))
    assert explain(body)["model_intent"] == "reasoning"
    assert not has_words(SUMMARY)
    assert view(claude_code(user(SUMMARY), DONE)).latest == ""


@pytest.mark.parametrize(
    ("message", "words"),
    [
        (TEAMMATE, TEAMMATE.split(">\n", 1)[1].removesuffix("\n</teammate-message>")),
        (CHANNEL, CHANNEL.split(">\n", 1)[1].removesuffix("\n</channel>")),
    ],
)
def test_a_teammates_or_a_channels_message_is_read_without_its_tags(
    message: str, words: str
) -> None:
    """A teammate's own session gets every task from its lead in `<teammate-message>`, and
    a channel brings a chat's or a CI run's message: the inside is the ask, its tag and
    attributes are not (read whole, the tag's "</" reads as code)."""
    body = claude_code(user(BIKE), DONE, user(message))
    assert view(body).latest == words
    assert classify(body) == classify(claude_code(user(BIKE), DONE, user(words)))
    assert own_words(f'<channel source="slack" chat_id="1">\n{BIKE}\n</channel>') == BIKE
