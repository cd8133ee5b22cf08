"""Which conversation a request belongs to, and its user's words in it.

The conversation key groups a session's requests in the ledger and pins them to one
backend (sticky conversations, `router.sticky`); the user's words are what the key hashes
and the ledger keeps as the prompt. Both read the ask as the classifier does
(`classifier.ask_text.ask_content`), never an agent's own text around it. A session the
request names by a header or field (`router.session`) keys it instead of its opening.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from classifier import (
    adk,
    beeai,
    browser_use,
    crewai,
    dspy,
    gpt_researcher,
    haystack,
    langchain_summary,
    letta,
    marvin,
    semantic_kernel,
    sillytavern,
    smolagents,
    swarms,
)
from classifier.aider import without_reminder
from classifier.ask_text import ask_content
from classifier.asks import first_ask
from classifier.failure_log import FailureLog
from classifier.message import System, read_system
from classifier.system_ask import system_asks
from router.keyed_content import keyed
from router.record import Api
from router.session import session_id
from router.stored_responses import conversation_of
from router.system_key import KEY_CHARS, system_texts
from router.translate.text_parts import content_text

# In place of the system prompt, in a smolagents run's key, a DSPy call's, a crewAI run's,
# a Haystack side call's, a Google ADK run's and a browser-use run's (`conversation_key`)
FRAMEWORK = "framework:smolagents"
DSPY = "framework:dspy"
CREWAI = "framework:crewai"
HAYSTACK = "framework:haystack"
GPT_RESEARCHER = "framework:gpt-researcher"
ADK = "framework:google-adk"
BROWSER_USE = "framework:browser-use"
# In place of the system prompt and the first ask, in a Magentic run's key (`_marked_key`)
MAGENTIC = "framework:semantic-kernel-magentic"
# ...and with its agent's and conversation's ids, in a Letta agent's (`_marked_key`)
LETTA = "app:letta"
# ...and with its character (or group) and persona, in a SillyTavern chat's (`_marked_key`)
SILLYTAVERN = "app:sillytavern"
# ...and with its history file's path and system prompt, in a compacted Deep Agents thread's
DEEPAGENTS = "framework:deepagents-compacted"
# In place of all it reads, in the key of a request a reader failed on (`_sent_key`)
UNREAD = "unread"
_unread = FailureLog(
    logging.getLogger("smf_router"),
    "the router could not read a request's words",
    "its conversation key and prompt text are its messages as sent",
)


def conversation_key(
    body: dict[str, Any], headers: Any, caller: str, secret: bytes = b"", thread: str | None = None
) -> str:
    """A stable, non-reversible key for the conversation (never the text itself), keyed
    with `secret` so that a guess at a `user` or a prompt cannot be checked against it
    (`router.ledger.conversation_key`), and scoped by `caller` (the key's name): two callers
    sending one session id are two conversations, and neither pins the other's backend.

    A session id (`router.session.session_id`: the router's `x-smf-session-id`, Claude
    Code's header, pi's session affinity headers, Open WebUI's chat id, `prompt_cache_key`)
    names one conversation, and so does `thread`, what a Responses turn names stored on the server
    (`server_thread`): such a turn sends only its new items, no first user message (a turn
    continuing a response the router knows takes that response's key instead:
    `router.stored_responses`). OpenAI's
    `user` names an end user, the same on every chat of theirs: it only tells apart one
    opening sent by two users, mixed with the system prompt and first user message. Taken as
    the key alone, one math chat pinned all that user's later chats, of any intent, to the
    cloud for the sliding TTL.

    The first user message is the one the classifier reads as the first ask
    (`classifier.asks.first_ask`), else the first of all: an agent's own texts before it
    are the same in every session of the agent's, and Aider's example conversation made all
    of a user's Aider sessions one conversation, pinned to the cloud by any one's cloud turn
    (found in review). Its content is its user's words (`_users_words`), whatever their shape
    (`keyed`): the first request's first ask is the later ones'. Of gpt-engineer's improve
    ask, the request after the project's files (`classifier.gpt_engineer.request_ask`): keyed
    by the files' first characters, every ask on one project was one conversation (found in a
    live review). Of a BeeAI ReActAgent's, its text, inside its wrapper or not
    (`classifier.beeai.react_words`): its later turns hold it unwrapped, a text part as sent,
    and a chat's turns keyed apart. The system prompt is read without its clock text
    (`router.system_key.clockless`): an agent that writes the time into it keyed every turn
    apart. A smolagents run's is not read at all (`classifier.smolagents.framed`): each kind of its
    steps sends another (none for its initial plan), and one run was four conversations
    (found in review); its task, which each reads as the first ask, keys the run, marked as
    smolagents' so that a chat asking the same words is another conversation. A DSPy
    call's alike (`classifier.dspy.framed`): a ReAct run's step and extract prompts differ,
    and its first ask is the call's inputs, past a compiled program's demos, which made
    every call of it one conversation (found in review). A crewAI run's alike
    (`classifier.crewai.framed`): its summarizer's request holds the run's task under a system
    prompt of its own, and is keyed as the run's requests are. A Haystack ranker's or query
    expander's by its query (`classifier.haystack.framed`): one query's side calls are one
    conversation. gpt-researcher's sub-query request by its task
    (`classifier.gpt_researcher.framed`), marked as gpt-researcher's: a chat asking the same
    words is another conversation. A Semantic Kernel Magentic manager's by the task its first
    message holds (`_marked_key`). An OpenAI Agents SDK agent's after a nested handoff,
    which sends no user message, by the first user line of the history it is handed (`first_ask`,
    `classifier.openai_agents`): keyed by its instructions alone, every run's call of that
    agent was one conversation, one run's pin holding the others' (found running the SDK).
    A Google ADK agent's by its first ask and ADK's mark (`classifier.adk.framed`): each agent
    of a run sends a system prompt of its own (its instruction, ADK's line naming it, its
    transfer list), and one run was a conversation per agent (found running ADK 2.13.0); its
    relays and fillers passed over, its first ask is the user's. A browser-use run's (its
    agent steps' and its judge's, `classifier.browser_use.framed`) by the task in its
    `<user_request>`, marked as browser-use's: it rebuilds its one user message every step,
    page and all, and one 5-step run was 9 conversations (found in a live review). A swarms
    autonomous run's final summary, its history flattened into one timestamped transcript,
    by the task its transcript holds (`classifier.swarms.run_task`), which the run's loop
    sends as its first ask: keyed by the transcript, one run was two conversations (found in
    a live review). LangChain's summarization request, its template then the thread, by the
    thread's first human message (`classifier.langchain_summary`): keyed by the template, every
    thread's summary was one conversation (found in a live review). It sends no system
    message, so it is its thread's conversation only when the thread sends none either: an
    agent's that sends one (`create_agent(system_prompt=...)`'s; Deep Agents', an empty one
    by default) is keyed apart, a conversation of its own that may pin apart, until the
    thread is compacted (`_marked_key`); a `prompt_cache_key` keeps it with the thread
    (found in review). Keyed so, two sessions of one caller that open with the same ask are
    one conversation, as two smolagents runs are.

    Nor is what an agent writes anew into its system prompt within one conversation read
    (`router.system_key.unchanging`): the Continue CLI's snapshot of a run's start, Mastra's
    working memory, code-puppy's compaction summary.
    A Letta agent's system prompt is its memory, which its tools edit within a conversation,
    and a compaction changes its first ask: its requests are keyed by the agent's and the
    conversation's ids its prompt names instead (`_marked_key`), and a SillyTavern chat's by
    the character and persona its main prompt names (`classifier.sillytavern.chat_names`):
    its lorebook entries come and go, and its oldest messages drop out, so 6 turns of one
    chat were 5 conversations (found in a live review). A Marvin thread's first ask
    is hashed as sent (`classifier.marvin`): a task's frame holds its id, new for each task,
    and a thread's first task opens every later request of the thread, so two threads of
    `marvin.run` that open with the same words are two conversations; keyed by the
    instructions the classifier reads, they were one (`say()`'s threads open with the user's
    message, no task: two that open alike are one, as two chats of one app that open alike
    are; Marvin sends no thread id, and `prompt_cache_key` names one).

    A request of system messages alone (BAML's default, `classifier.system_ask`) asks by its
    system prompt: it is hashed as its first ask, as the classifier reads it, and not again
    as a system prompt, so it keys as the same words sent as a user message do.

    A request one of these readers fails on (a bug of the reader's) is keyed by its messages
    as sent (`_sent_key`), and logged, as `classify` takes the default route for it: a fan-in
    of mcp-agent's the classifier's guard read so failed the key, a 500 (found in review)."""
    digest = hashlib.blake2b(digest_size=8, key=secret)
    _hash_part(digest, caller)
    session, tab = session_id(body, headers)
    if session or thread:
        _hash_part(digest, f"session:{session}" if session else f"thread:{thread}")
        return digest.hexdigest()
    user = body.get("user")
    _hash_part(digest, f"user:{user}" if isinstance(user, str) else "")
    if tab:  # only then: every other request's key stays as it was
        _hash_part(digest, f"tab:{tab}")
    messages = body.get("messages")
    messages = messages if isinstance(messages, list) else []
    try:
        return _read_key(digest.copy(), messages)
    except Exception as exc:  # a reader's bug costs the request its reading, not a 500
        _unread.failed(exc)
        return _sent_key(digest, messages)


def _read_key(digest: hashlib.blake2b, messages: list[Any]) -> str:
    """`conversation_key` of `messages` read as the classifier reads them, `digest` holding
    what comes before them (the caller, the user)."""
    if (task := semantic_kernel.run_task(messages)) is not None:
        return _marked_key(digest, MAGENTIC, task.rstrip()[:KEY_CHARS])
    system = read_system(messages)
    if (ids := letta.agent_ids(system)) is not None:
        return _marked_key(digest, LETTA, *ids)
    if (names := sillytavern.chat_names(messages, system)) is not None:
        return _marked_key(digest, SILLYTAVERN, *names)
    if (path := langchain_summary.history_path(messages)) is not None:
        return _marked_key(digest, DEEPAGENTS, path, *filter(None, system_texts(messages)))
    first: object = None
    framework = _framework(messages, system)
    framed = framework is not None
    if framework is not None:
        _hash_part(digest, framework)
    alone = system_asks(messages)  # system messages alone: they are the asks
    if not (framed or alone is not None):
        for text in system_texts(messages):
            _hash_part(digest, text)
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "user":
            first = message
            break
    # `first_ask` of system messages alone is their first (no history is handed without an
    # assistant's message): read here already, not read again
    asked = alone.first if alone is not None else first_ask(messages, system=system)
    first = asked or first
    if (task := swarms.run_task(messages)) is not None:  # the run's first ask, as its loop's
        first = {"role": "user", "content": task}
    if isinstance(first, dict):  # as the classifier reads it, and the later requests hold it
        words = _users_words(first, messages, system, as_sent=marvin.framed(system))
        # without white space at the end, as `_users_words` gives a string: a part's text too
        _hash_part(digest, keyed(beeai.react_words(words, system)).rstrip()[:KEY_CHARS])
    return digest.hexdigest()


def _sent_key(digest: hashlib.blake2b, messages: list[Any]) -> str:
    """The key of `messages` a reader failed on (`conversation_key`): `UNREAD`, then each
    message's role and content as sent, up to the first user message. The turns of a
    conversation that opens so key alike, as long as the reader fails on each of them."""
    _hash_part(digest, UNREAD)
    for message in messages:
        if isinstance(message, dict):
            role = message.get("role")
            _hash_part(digest, f"{role}:{keyed(message.get('content'))[:KEY_CHARS]}")
            if role == "user":
                break
    return digest.hexdigest()


def _framework(messages: list[Any], system: System) -> str | None:
    """Which agent framework's requests `messages` (of the system prompt `system`) are whose
    system prompts a run's key leaves out (`conversation_key`), as the mark it takes
    instead; None for any other."""
    if smolagents.framed(messages, system):
        return FRAMEWORK
    if dspy.framed(system):
        return DSPY
    if haystack.framed(messages):
        return HAYSTACK
    if gpt_researcher.framed(messages):
        return GPT_RESEARCHER
    if adk.framed(system):
        return ADK
    if browser_use.framed(messages, system):
        return BROWSER_USE
    return CREWAI if crewai.framed(messages) else None


def _marked_key(digest: hashlib.blake2b, mark: str, *parts: str) -> str:
    """A key of `parts` in place of the system prompt and the first ask, marked as one app's.

    A Semantic Kernel Magentic run's manager's request (`MAGENTIC`): its task, which its first
    message holds (`classifier.semantic_kernel.run_task`). Not the first ask: the ledger that
    opens each request after the plan holds none, and a long run's progress check lies past
    `classifier.asks.first_ask`'s bound, behind the rounds so far; read so, one run was four
    conversations (found in review).

    A Letta agent's request (`LETTA`): the agent's and the conversation's ids in its system
    prompt's memory metadata (`classifier.letta.agent_ids`). Not its system prompt, which
    holds the agent's memory blocks: its memory tools edit them within a conversation, and
    one agent's conversation split in two at an edit, its pin lost (found in a live review).
    Nor its first ask, which a compaction hides. The ids are the server's: one agent's
    conversations are apart, its turns one.

    A SillyTavern chat's (`SILLYTAVERN`): its character, or its group's members, and the
    user's persona (`classifier.sillytavern.chat_names`), one conversation per character and
    persona. Not its system messages, among which World Info entries come and go, nor its
    first user message, which drops out of a long chat's context.

    A compacted Deep Agents thread's (`DEEPAGENTS`), and its later summarization requests': the
    path of the history file its compacted message names
    (`classifier.langchain_summary.history_path`), the thread's across its compactions, and its
    system prompt as the turns' keys hash it (`router.system_key.system_texts`; an empty one as
    none). Not that message, whose summary is new at each compaction, nor the ask after it,
    which a later compaction drops: keyed so, the thread took another key at each compaction,
    its pin lost (found in a live review). Not the path alone: deepagents 0.7.6 names the file
    by an id of its own kept in the thread's state (`session_<uuid4 hex>`), but earlier releases
    by the LangGraph thread id (`/conversation_history/{thread_id}.md`), and two agents under
    one key that both ran a thread "1" were one conversation, one pin (found in review). A
    summarization request sends no system prompt, so it keys apart from its thread's turns when
    theirs is not empty (deepagents 0.7.6's is empty unless given a `system_prompt`):
    `prompt_cache_key` keeps them together."""
    _hash_part(digest, mark)
    for part in parts:
        _hash_part(digest, part)
    return digest.hexdigest()


def _users_words(
    message: dict[str, Any],
    messages: list[Any],
    system: System | None = None,
    *,
    as_sent: bool = False,
) -> object:
    """The content of the user message `message` of `messages` as its user wrote it, which
    the key hashes and the ledger keeps (`prompt_text`): the one the classifier reads
    (`classifier.ask_text.ask_content`: without Aider's ask or context mode's reminder, the
    ask inside crush's title text), or its content as sent (`as_sent`: a Marvin task's,
    its id with it, for the key), without the reminder of Aider's edit format after it
    (`classifier.aider.without_reminder`) and white space at the end (the cut leaves a blank
    line's break, the ask mode's empty reminder a blank line). `system`: the system prompt of
    `messages`, when the caller has read it already (`read_system`)."""
    content = message.get("content") if as_sent else ask_content(message, messages, system=system)
    return without_reminder(content).rstrip() if isinstance(content, str) else content


def server_thread(api: Api, body: dict[str, Any]) -> str | None:
    """What a Responses turn names stored on the server, for its conversation key: the
    conversation (the Conversations API's, the same on every turn), else the response it
    continues when the router does not know it (made before a restart, or forgotten): the
    turns after it continue responses it knows and take this key from them."""
    if api != "responses":
        return None
    conversation = conversation_of(body)
    if conversation:
        return f"conversation:{conversation}"
    previous = body.get("previous_response_id")
    return f"response:{previous}" if isinstance(previous, str) and previous else None


def _hash_part(digest: hashlib.blake2b, text: str) -> None:
    """One part of a key, length first: parts that run together could not be told apart
    (caller `a` with user `bc` against caller `ab` with user `c`)."""
    data = text.encode(errors="replace")
    digest.update(len(data).to_bytes(4, "big") + data)


def prompt_text(view: dict[str, Any]) -> str:
    """The prompt this request adds, for the ledger's texts table (`ledger.store_text`): the
    text of the latest user message of the request's chat view (the whole conversation on
    every turn would store an agent's history over and over), as its user wrote it
    (`_users_words`): crush's title text or Aider's reminders were stored as the prompt."""
    messages: list[Any] = view.get("messages") or []
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            try:
                return content_text(_users_words(message, messages))
            except Exception as exc:  # as `conversation_key`'s: its text as sent
                _unread.failed(exc)
                return content_text(message.get("content"))
    return ""
