"""Which user messages of a chat request are the user's asks: the latest and the first.

Agents send huge conversations; the task lives in the latest and the first user message,
and these are found here, for the classifier's view of a request (`classifier.request`) and
for the conversation key, which hashes the first ask as the classifier reads it
(`router.conversation.conversation_key`). Kept apart from the view: this is the part that
grows with every agent and framework whose own turns it learns to pass over, and the key
reads it without the view. Every read here is bounded (message count, part count, bytes),
so a 200k-token conversation costs about what a short one does. This module tells which
messages are the asks; what of one the classifier and the key read, its content as its user
wrote it and its clipped text, is `classifier.ask_text`'s.

Not every user message is an ask. Agents put their own texts in user turns
(`classifier.harness`), and a tool result's image reaches chat as a user message after the
tool messages: a user message with no words of the user's is passed over, for the latest
and the first ask alike; nor, in Aider's requests (`classifier.aider.is_aiders`), are its
example conversation and fixed messages, which come before a session's first ask, nor its
reflections (`classifier.aider`), nor opencommit's example diff and commit message, which open
every request before the staged diff (`classifier.commit_message`), nor opencode's, Qwen
Code's or OpenHands' own messages (`classifier.opencode`, `classifier.qwen`,
`classifier.openhands`); of crush's,
OpenHands' and Claude Code's title calls, the ask inside the fixed text is read
(`classifier.crush`, `classifier.claude_code`), of
gpt-engineer's improve ask, the request after the project's files (`classifier.gpt_engineer`),
and of
Open WebUI's background tasks (title, tags, follow-ups, queries, autocompletion, emoji) the
chat's own asks inside its template, its history's first and latest user turns
(`classifier.open_webui`), which is no agent's; nor is the sentence jupyter-ai's `%%ai`
appends for its output format (`classifier.jupyter_ai`); of a browser-use agent step and
its judge, the run's task, never its page dump nor its nudges (`classifier.browser_use`).
Agent frameworks' texts (crewAI's, smolagents', DSPy's...) are read past to the user's task
and their own messages passed over (`classifier.frameworks`), none making the request an agent's
session (`classifier.request.RequestView.harness_cut`). The history the OpenAI Agents SDK
hands an agent, in an assistant message, holds the user's messages as its lines: they are
the first and the latest ask when it opens the conversation
(`classifier.frameworks.handed_asks`). Nor is mini-swe-agent's answer to a reply it could not
run an ask (`classifier.mini_swe_agent`), nor Kimi CLI's follow-up to a subagent's reply too
brief (`classifier.kimi`), nor pi's summary with an ask after it; its summarization request
asks by the conversation's inside (`classifier.pi`), as LangChain's does by its thread's
(`classifier.langchain_summary`). Of inspect_ai's multiple-choice prompt,
and evalscope's, the question and its choices are the ask, its answer-format directive the
tool's (`classifier.inspect_ai`, `classifier.evalscope`).
Nor is a tool's result that langroid sends as a user message after the reply requesting the
tool, or Qwen-Agent's `<tool_response>` turn under its tools block
(`classifier.frameworks.tool_result`): the ask before it is the latest, the request one
after a tool's result. Nor is the user's greeting or bare request for help alone ("Hi! Can
you help me?", `classifier.greeting`), nor one inside atomic-agents' JSON
(`classifier.frameworks.said`): a chat's first ask is its first task.
"""

from __future__ import annotations

from itertools import islice
from typing import Any, Literal, NamedTuple

from classifier import (
    aider,
    browser_use,
    commit_message,
    frameworks,
    kimi,
    langchain_summary,
    mini_swe_agent,
    open_webui,
    opencode,
    openhands,
    pi,
    qwen,
    system_ask,
)
from classifier.greeting import Greetings, greets_once
from classifier.harness import has_words, turn_asks
from classifier.message import SCAN_MESSAGES, SCAN_ROLES, System, read_system, scanned_texts

# Whose fixed user message one is (`_fixed`): a coding agent's, an agent framework's, or a
# framework's tool result (`classifier.frameworks.tool_result`), its ask before it the latest
_Own = Literal["agent", "framework", "result"] | None


def _asks(message: object, aiders: bool, known: Greetings, system: System) -> bool:
    """A user message with words of the user's: not only images, files or harness text
    (`turn_asks`, as the router's view of other APIs asks it), nor, in Aider's requests
    (`aiders`), one of its reflections, nor a greeting or a bare request for help alone
    (`greeting.greets_once`): "Hi! Can you help me?" asks nothing yet, and the chat's first
    ask is its first task, which keys the conversation (two chats opening with "hi" were one).
    `known`: the request's messages told greetings or not (`greeting.greets_once`);
    `system`: the system prompt of its request (`_greets`)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return has_words(content, aiders=aiders) and not _greets(message, known, system)
    return turn_asks(scanned_texts(content), aiders=aiders) and not _greets(message, known, system)


def _greets(message: object, known: Greetings, system: System) -> bool:
    """`greeting.greets_once` of the user message `message`, told by its content as its user
    typed it (`frameworks.said`: inside atomic-agents' JSON in its requests, told by their
    system prompt, `system`)."""
    return greets_once(message, known, frameworks.said(message, system))


def role_of(message: object) -> str:
    """A message's role; "" for anything else."""
    if isinstance(message, dict):
        role = message.get("role")
        return role if isinstance(role, str) else ""
    return ""


class Asks(NamedTuple):
    """What `user_messages` finds."""

    first: object  # the first user message that asks, or None
    latest: object  # the latest one, or None
    after_tool: bool  # a tool result is the last message, user messages that ask nothing aside
    harness: bool  # an agent's text alone in a user message passed over, or Aider's messages
    aiders: bool  # the request is Aider's (`classifier.aider.is_aiders`)
    greeting: bool = False  # a user message passed over greets (`greeting.greets_once`)

    @property
    def in_system(self) -> bool:
        """The asks are system messages, the request holding nothing else
        (`classifier.system_ask`): every other ask is a user's, sent or read in a history."""
        return role_of(self.first) in system_ask.ROLES

    @property
    def greeted(self) -> bool:
        """No user message asks and one passed over greets: nothing asked yet."""
        return self.greeting and self.first is None and self.latest is None


def user_messages(messages: list[Any], system: System, framed: frameworks.Framed) -> Asks:
    """The first and the latest user message that asks (`_asks`) and is not one of Aider's
    pairs (`classifier.aider.is_pair`, in its requests only: `is_aiders`; the first user
    message of "I updated the files." and an assistant's prefill asks), scanning a bounded
    number from each end, and whether
    a tool result is the last message (user messages that ask nothing after it aside: a
    reminder or an image beside a tool result follows it as one).
    The first sits near the start (`first_ask`); the latest may be far back behind a tool
    loop, so only each message's role is read on the way (`islice`: no copy of the list),
    and a user message's content only for the first `SCAN_MESSAGES` that ask nothing. A
    history a framework hands an agent opening the messages holds the first, and the latest
    when no user message asks after it (`classifier.frameworks.handed_asks`); an Open WebUI
    task's template holds the chat's (`classifier.open_webui.task_asks`), a browser-use
    agent step's or judge's task the run's (`classifier.browser_use.run_asks`: its page
    dump and nudges never are), pi's summarization request's the conversation's inside
    (`classifier.pi.summarized_asks`) and LangChain's the thread's inside
    (`classifier.langchain_summary.summarized_asks`), a NeMo Guardrails dialog prompt's the
    session's after its sample conversation (`classifier.frameworks.dialog_asks`). `system`: the
    system prompt of `messages`
    (`classifier.message.read_system`), read once for the request and handed to each reader
    that tells its requests by it; `framed`: the frameworks whose texts are passed over in
    their own requests only, read from the body (`classifier.frameworks.framed`:
    instructor's retries, Strands' nudge). A request of system messages alone asks by them
    (`classifier.system_ask.system_asks`)."""
    if (alone := system_ask.system_asks(messages)) is not None:
        return Asks(alone.first, alone.latest, False, False, False)
    latest: object = None
    after_tool: bool | None = None
    passed = 0
    harness = False
    greeting = False
    known: Greetings = {}
    aiders = aider.is_aiders(messages)
    last = len(messages) - 1
    for back, message in enumerate(islice(reversed(messages), SCAN_ROLES)):
        if isinstance(message, dict) and message.get("role") == "user":
            # past Aider's reflections, its pairs may come before the latest ask
            own = _fixed(messages, last - back, system, aiders, framed)
            if own is None and _asks(message, aiders, known, system):
                latest = message
                break
            if own == "result" and after_tool is None:
                after_tool = True  # a framework's tool result, a user message
            harness = harness or (own in ("agent", None) and _has_text(message, known, system))
            greeting = greeting or (own is None and _greets(message, known, system))
            passed += 1
            if passed == SCAN_MESSAGES:
                break
        elif after_tool is None:
            after_tool = role_of(message) in ("tool", "function")
    first, passed_over = _first(messages, system, latest, aiders, framed, known)
    if latest is not None and (task := open_webui.task_asks(messages)) is not None:
        first, latest = task.first, task.latest
    if latest is not None and (summarized := pi.summarized_asks(messages, system)) is not None:
        first, latest = summarized.first, summarized.latest
    if latest is not None and (thread := langchain_summary.summarized_asks(messages)) is not None:
        first, latest = thread.first, thread.latest
    if (run := browser_use.run_asks(messages, system)) is not None:
        first, latest = run.first, run.latest
    if (handed := frameworks.handed_asks(messages)) is not None:
        first, latest = handed.first, handed.latest if latest is None else latest
    if (dialog := frameworks.dialog_asks(messages)) is not None:
        first, latest = dialog.first, dialog.latest
    return Asks(first, latest, bool(after_tool), harness or passed_over, aiders, greeting)


def first_ask(messages: list[Any], *, system: System | None = None) -> object:
    """The first user message that asks (`_asks`) among the first `SCAN_MESSAGES` messages,
    past Aider's example conversation and not one of its fixed messages (`classifier.aider`),
    past opencommit's example pair (`classifier.commit_message.examples_end`),
    or the first of a history a framework hands an agent (`classifier.frameworks.handed_asks`),
    or the chat's first ask in an Open WebUI task's history (`classifier.open_webui.task_asks`),
    or the session's first after a NeMo Guardrails dialog prompt's sample conversation
    (`classifier.frameworks.dialog_asks`),
    or a browser-use run's first request (`classifier.browser_use.run_asks`), or pi's
    summarization request's conversation's (`classifier.pi`), or LangChain's thread's
    (`classifier.langchain_summary`), or the first system message of
    a request of system messages alone (`classifier.system_ask.system_asks`), or None: the
    message the classifier reads as the first, which keys a conversation too
    (`router.conversation.conversation_key`). `system`: the system prompt of `messages`, when
    the caller has read it already (`read_system`), so that it is read once."""
    if (handed := frameworks.handed_asks(messages)) is not None:
        return handed.first
    if (alone := system_ask.system_asks(messages)) is not None:
        return alone.first
    if (task := open_webui.task_asks(messages)) is not None:
        return task.first
    if (dialog := frameworks.dialog_asks(messages)) is not None:
        return dialog.first
    system = read_system(messages) if system is None else system
    if (run := browser_use.run_asks(messages, system)) is not None:
        return run.first
    if (summarized := pi.summarized_asks(messages, system)) is not None:
        return summarized.first
    if (thread := langchain_summary.summarized_asks(messages)) is not None:
        return thread.first
    aiders = aider.is_aiders(messages)
    return _first(messages, system, None, aiders, frameworks.Framed(), {})[0]


def _first(
    messages: list[Any],
    system: System,
    latest: object,
    aiders: bool,
    framed: frameworks.Framed,
    known: Greetings,
) -> tuple[object, bool]:
    """`first_ask`, known to be no later than `latest` when that is given (an ask already),
    and whether an agent's text alone or Aider's messages were passed over on the way;
    `aiders`: the request is Aider's (`classifier.aider.is_aiders`), `framed` the frameworks
    told by its body (`_fixed`). instructor and Strands send their texts after the ask only:
    for the first ask, without the body, none is passed over. opencommit's example pair is
    passed over as Aider's examples are, but as no agent's text: a commit message's request
    is no agent's session."""
    start = aider.examples_end(messages)  # none but in Aider's requests
    harness = start > 0  # an agent's texts; opencommit's example pair is no agent's
    start = start or commit_message.examples_end(messages, system)
    for index in range(start, min(len(messages), SCAN_MESSAGES)):
        message = messages[index]
        if role_of(message) != "user":
            continue
        if message is latest:
            return message, harness
        if own := _fixed(messages, index, system, aiders, framed):
            harness = harness or own == "agent"
        elif _asks(message, aiders, known, system):
            return message, harness
        else:
            harness = harness or _has_text(message, known, system)
    return None, harness


def _fixed(
    messages: list[Any], index: int, system: System, aiders: bool, framed: frameworks.Framed
) -> _Own:
    """Whose fixed message the user message `messages[index]` is, passed over: a coding
    agent's (one of Aider's pairs in its requests, `aiders`, or opencode's or Qwen Code's
    own, mini-swe-agent's answer to a reply it could not run, OpenHands' condenser's events
    or the summary it wrote,
    Kimi CLI's follow-up to a subagent's reply too brief, pi's summary with an ask after it),
    an agent framework's (`classifier.frameworks.passed_over`; instructor's retries and
    Strands' nudge in their own requests, `framed`), which makes the request no agent's
    session, or a framework's tool result sent as a user message
    (`classifier.frameworks.tool_result`, langroid's, Qwen-Agent's), which makes the request
    one after a tool's result; None for any other."""
    if aiders and aider.is_pair(messages, index):
        return "agent"
    if opencode.passed_over(messages, index, system) or qwen.passed_over(messages, index):
        return "agent"
    if mini_swe_agent.passed_over(messages, index) or pi.passed_over(messages, index):
        return "agent"
    if openhands.passed_over(messages, index, system) or kimi.passed_over(messages, index, system):
        return "agent"
    if frameworks.passed_over(messages, index, system, framed):
        return "framework"
    if frameworks.tool_result(messages, index, system):
        return "result"
    return None


def _has_text(message: object, known: Greetings, system: System) -> bool:
    """Whether a message holds text other than white space and is no greeting
    (`_greets`, told once a request: `known`, by the system prompt `system`): one that asks
    nothing (`_asks`) is then an agent's text alone, not an image, an empty message or the
    user's "hello"."""
    if _greets(message, known, system):
        return False
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return not content.isspace() and bool(content)
    return any(text and not text.isspace() for text in scanned_texts(content))
