"""What an agent adds to a user turn is not the user's ask: Claude Code's reminders, Codex's
AGENTS.md and environment, Cline's editor state, Goose's note, OpenHands' workspace context,
Aider's example conversation and fixed messages. Served through the router as the agents
send them, a request is classified as the same conversation without those texts is (found
in review: a reminder beside a tool result made a coding task tool_calling 0.90, and Codex's
AGENTS.md, read as the first message, made a sonnet coding 0.82). Nor are an agent's own
tools the request's: they do not hide the MCP tools it offers after them."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.agent_apis.agent_stack import anthropic_client, openai_client
from tests.agent_shapes import (
    AGENTS_MD,
    AGENTS_MD_NEW,
    CLAUDE_CODE_TOOLS,
    CLAUDE_MD_REMINDER,
    CLINE_ENVIRONMENT,
    ENVIRONMENT,
    GITHUB_MCP_TOOLS,
    GOOSE_NOTE,
    LOCAL_CAVEAT,
    LOCAL_STDOUT,
    QUEUED_OLDER,
    RECALLED,
    REFLECTIONS,
    RESUMPTION,
    SHELL_NOTIFICATION,
    TODO_REMINDER,
    WORKSPACE,
    aider_body,
    aider_reflection,
    claude_code_body,
    cline_task,
    codex_body,
    goose_body,
    openhands_body,
    openhands_sdk_body,
    openhands_user,
    queued,
    slash_command,
    user_item,
)
from tests.harness import RunningRouter

ASK = (
    "Refactor the parse_config function in src/config.py so it raises a ValueError on "
    "unknown keys, and add a pytest unit test for it."
)
SONNET = "Write a sonnet about autumn leaves falling on a quiet river."
CODE = (
    "def parse_config(d):\n    for key in d:\n        if key not in KEYS:\n"
    '            raise ValueError(f"unknown key: {key}")\n    return dict(d)'
)


def cline_body(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A Messages body as Cline's Anthropic provider sends it without native tool calls."""
    system = "You are Cline, a highly skilled software engineer."
    return {"model": "auto", "max_tokens": 64, "system": system, "messages": messages}


def explained(proxy: RunningRouter, api: str, body: dict[str, Any]) -> dict[str, Any]:
    reply = httpx.post(f"{proxy.root}/v1/router/explain", json={"api": api, **body})
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def claude_code_loop(reminders: bool, cline: bool = False) -> list[dict[str, Any]]:
    """Claude Code's turns: the ask (after its claudeMd context), two rounds of reading a
    file, the last result with the todo list's reminder beside it. Or Cline's (`cline`):
    the ask in its task tag, the editor's state after the ask and after each result."""
    ask: list[dict[str, Any]] = [{"type": "text", "text": cline_task(ASK) if cline else ASK}]
    if reminders:
        ask.insert(0, {"type": "text", "text": CLAUDE_MD_REMINDER})
    if cline:
        ask.append({"type": "text", "text": CLINE_ENVIRONMENT})
    turns: list[dict[str, Any]] = [{"role": "user", "content": ask}]
    for i in range(2):
        use = {
            "type": "tool_use",
            "id": f"toolu_{i}",
            "name": "Read",
            "input": {"file_path": "/repo/src/config.py"},
        }
        result: list[dict[str, Any]] = [
            {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": "def parse_config(d):"}
        ]
        if reminders and i == 1:
            result.append({"type": "text", "text": TODO_REMINDER})
        if cline:
            result.append({"type": "text", "text": CLINE_ENVIRONMENT})
        turns += [
            {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}, use]},
            {"role": "user", "content": result},
        ]
    return turns


def test_claude_codes_reminders_are_not_the_ask(proxy: RunningRouter) -> None:
    plain = explained(proxy, "messages", claude_code_body(claude_code_loop(reminders=False)))
    assert plain["intent"]["label"] == "coding"
    body = claude_code_body(claude_code_loop(reminders=True))
    served = anthropic_client(proxy).messages.with_raw_response.create(**body)
    assert served.headers["x-smf-intent"] == "coding"
    plan = explained(proxy, "messages", body)
    assert plan["intent"] == plain["intent"]
    assert plan["classifier"]["read"] == plain["classifier"]["read"]
    assert plan["classifier"]["read"]["after_tool_result"]  # the reminder aside, it is


def test_clines_task_tag_and_editor_state_are_not_the_ask(proxy: RunningRouter) -> None:
    plain = explained(proxy, "messages", claude_code_body(claude_code_loop(reminders=False)))
    body = claude_code_body(claude_code_loop(reminders=False, cline=True))
    served = anthropic_client(proxy).messages.with_raw_response.create(**body)
    assert served.headers["x-smf-intent"] == "coding"
    plan = explained(proxy, "messages", body)
    assert plan["intent"] == plain["intent"]
    assert plan["classifier"]["read"] == plain["classifier"]["read"]


def test_an_mcp_tool_after_claude_codes_own_is_named(proxy: RunningRouter) -> None:
    """Claude Code offers some twenty tools of its own first: the view kept 16 tools and the
    classifier read 16, so an ask for its MCP tool was classified from its words alone."""
    ask = [{"role": "user", "content": "Create an issue in our GitHub repo for the flaky test."}]
    tools = [*CLAUDE_CODE_TOOLS, *GITHUB_MCP_TOOLS]
    plan = explained(proxy, "messages", claude_code_body(ask, tools=tools))
    assert plan["intent"]["label"] == "tool_calling"
    assert plan["classifier"]["rule"] == "tools offered and names an offered tool: create issue"


@pytest.mark.parametrize("agents_md", [AGENTS_MD, AGENTS_MD_NEW])
def test_codexs_agents_md_and_environment_are_not_the_first_ask(
    proxy: RunningRouter, agents_md: str
) -> None:
    conversation = [
        user_item(SONNET),
        {"role": "assistant", "content": "Shall I go on with a second stanza?"},
        user_item("continue"),
    ]
    plain = explained(proxy, "responses", codex_body(conversation))
    assert plain["intent"]["label"] == "prose"
    body = codex_body([user_item(agents_md), user_item(ENVIRONMENT), *conversation])
    served = openai_client(proxy).responses.with_raw_response.create(**body)
    assert served.headers["x-smf-intent"] == "prose"
    plan = explained(proxy, "responses", body)
    assert plan["intent"] == plain["intent"]
    assert plan["classifier"]["read"]["first_chars"] == len(SONNET)


def test_a_local_commands_echo_and_a_task_notification_are_not_the_ask(
    proxy: RunningRouter,
) -> None:
    """`/model opus` typed before the prompt comes in its turn, a text block each (the
    prompt with Claude Code's cache mark): its arguments were read as the ask's first words.
    A background shell's completion comes later as a user message of its own: it was read
    as the latest ask. Served, each is classified as the conversation without it is."""
    echo = [CLAUDE_MD_REMINDER, LOCAL_CAVEAT, slash_command("model", "opus"), LOCAL_STDOUT]
    cached = {"type": "text", "text": SONNET, "cache_control": {"type": "ephemeral"}}
    turn = [*({"type": "text", "text": text} for text in echo), cached]
    said = {"role": "assistant", "content": "I started the build in the background."}
    plain = explained(proxy, "messages", claude_code_body([{"role": "user", "content": SONNET}]))
    assert plain["intent"]["label"] == "prose"
    for turns in (
        [{"role": "user", "content": turn}],
        [{"role": "user", "content": turn}, said, {"role": "user", "content": SHELL_NOTIFICATION}],
    ):
        body = claude_code_body(turns)
        served = anthropic_client(proxy).messages.with_raw_response.create(**body)
        assert served.headers["x-smf-intent"] == "prose"
        plan = explained(proxy, "messages", body)
        assert plan["intent"] == plain["intent"]
        assert plan["classifier"]["read"] == plain["classifier"]["read"]


def test_a_message_typed_while_claude_code_works_is_the_ask(proxy: RunningRouter) -> None:
    """Claude Code hands a message typed while it works to the model after the next tool's
    result: older versions in a reminder beside it, cut whole as the agent's (the coding ask
    stayed the latest, coding 0.93), newer ones as a system turn of its own, read with its
    header and footer (prose 0.54). Served, each is classified as the same conversation with
    the message sent beside the result is (prose 0.81). The label is now the agent_session
    rule's; the model's reading is checked."""

    def after_result(extra: str, system: bool = False) -> dict[str, Any]:
        turns = claude_code_loop(reminders=True)
        if system:
            turns.append({"role": "system", "content": extra})
        else:
            last = turns[-1]["content"]
            turns[-1] = {"role": "user", "content": [*last, {"type": "text", "text": extra}]}
        return claude_code_body(turns)

    plain = explained(proxy, "messages", after_result(SONNET))
    assert plain["classifier"]["model_intent"] == "prose"
    for body in (
        after_result(queued(SONNET, QUEUED_OLDER, reminder=True)),
        after_result(queued(SONNET), system=True),
    ):
        served = anthropic_client(proxy).messages.with_raw_response.create(**body)
        assert served.headers["x-smf-intent"] == plain["intent"]["label"]
        plan = explained(proxy, "messages", body)
        assert plan["intent"] == plain["intent"]
        assert plan["classifier"]["model_intent"] == "prose"
        assert plan["classifier"]["top_intents"] == plain["classifier"]["top_intents"]
        assert plan["classifier"]["read"] == plain["classifier"]["read"]


def test_clines_mentions_and_a_resumed_tool_result_are_not_the_ask(proxy: RunningRouter) -> None:
    """Cline appends a file the task mentions to the task's text, and resumes a task stopped
    after a tool ran in the turn that carries the tool's result, its last block marked for
    the cache (so the router's view keeps the blocks apart). The file and the result were
    read as the ask, coding; served, each request is classified as its task's words are in
    Cline's session: the model reads the sonnet (prose), and the file the task names makes
    it coding (`classifier.source_files`), as it does not outside an agent's session."""
    named = f"'src/config.py' (see below for file content) {SONNET}"
    task = f'{cline_task(named)}\n\n<file_content path="src/config.py">\n{CODE}\n</file_content>'
    cached = {"type": "text", "text": CLINE_ENVIRONMENT, "cache_control": {"type": "ephemeral"}}
    first = {"role": "user", "content": [{"type": "text", "text": task}, cached]}
    read = ["[read_file for 'src/config.py'] Result:", CODE, CLINE_ENVIRONMENT, RESUMPTION]
    resumed = {"role": "user", "content": [*({"type": "text", "text": t} for t in read), cached]}
    said = {"role": "assistant", "content": "<read_file>\n<path>src/config.py</path>\n</read_file>"}
    plain = explained(proxy, "messages", cline_body([{"role": "user", "content": named}]))
    assert (plain["intent"]["label"], plain["classifier"]["rule"]) == ("prose", None)
    words = [{"type": "text", "text": cline_task(named)}, cached]
    alone = explained(proxy, "messages", cline_body([{"role": "user", "content": words}]))
    assert (alone["intent"]["label"], alone["classifier"]["model_intent"]) == ("coding", "prose")
    assert alone["classifier"]["rule"].endswith("names a source file: src/config.py")
    for turns in ([first], [first, said, resumed]):
        body = cline_body(turns)
        served = anthropic_client(proxy).messages.with_raw_response.create(**body)
        assert served.headers["x-smf-intent"] == "coding"
        plan = explained(proxy, "messages", body)
        assert plan["intent"] == alone["intent"]
        assert plan["classifier"]["top_intents"] == alone["classifier"]["top_intents"]
        assert plan["classifier"]["read"]["latest_chars"] == len(named)


def served_as_plain(
    proxy: RunningRouter, body: dict[str, Any], plain: dict[str, Any], *, same_intent: bool = True
) -> dict[str, Any]:
    """Served over chat, `body` is classified and read as the chat `plain` is: the same
    label, the same reading, and, unless not `same_intent`, the same confidence and source.
    Its explanation returned."""
    expected = explained(proxy, "chat", plain)
    served = openai_client(proxy).chat.completions.with_raw_response.create(**body)
    assert served.headers["x-smf-intent"] == expected["intent"]["label"]
    plan = explained(proxy, "chat", body)
    assert plan["intent"] == expected["intent"] or not same_intent
    assert plan["intent"]["label"] == expected["intent"]["label"]
    assert plan["classifier"]["read"] == expected["classifier"]["read"]
    assert plan["classifier"]["top_intents"] == expected["classifier"]["top_intents"]
    return plan


def test_gooses_note_is_not_the_ask(proxy: RunningRouter) -> None:
    """Goose puts its note (the time, working directory, tokens used, todo list) in the user
    message before the last assistant message: before a first ask, its digits made "add a
    --verbose flag to cli.py" math 0.35, for the cloud (found in review). The note, cut, is
    an agent's text in a user turn: the session's rule decides the model's reading there,
    coding 0.45, below even odds (the same ask without the note, whose tools say no
    agent's session, is that reading, by the model)."""
    ask = "add a --verbose flag to cli.py"
    plain = goose_body([{"role": "user", "content": ask}])
    body = goose_body([{"role": "user", "content": GOOSE_NOTE + ask}])
    plan = served_as_plain(proxy, body, plain, same_intent=False)
    assert plan["classifier"]["rule"].startswith("agent_session: an agent's text in a user turn")
    assert (plan["intent"]["label"], plan["intent"]["source"]) == ("coding", "rule")
    assert explained(proxy, "chat", plain)["classifier"]["read"]["latest_chars"] == len(ask)


def test_openhands_workspace_context_and_recalled_knowledge_are_not_the_ask(
    proxy: RunningRouter,
) -> None:
    """OpenHands sends the workspace's context as a user message after the first ask, and
    what a keyword recalls after the ask that named it: each was read as the latest ask."""
    done = {"role": "assistant", "content": "Done."}
    fail = "now the tests fail:\n\nE   NameError: name 'logging' is not defined"
    ask, later = openhands_user(ASK), openhands_user(fail)
    served_as_plain(proxy, openhands_body([ask, openhands_user(WORKSPACE)]), openhands_body([ask]))
    served_as_plain(
        proxy,
        openhands_body([ask, openhands_user(WORKSPACE), done, later, openhands_user(RECALLED)]),
        openhands_body([ask, done, later]),
    )


def test_openhands_sdk_recalled_knowledge_is_not_the_ask(proxy: RunningRouter) -> None:
    """The SDK (1.x) puts what a keyword recalls after the ask, in the same message, and its
    tools (`terminal`, `file_editor`, `task_tracker`) say a coding agent's session: an unsure
    ask is coding with or without the recalled text (without it, reasoning for the cloud,
    found in a live review)."""
    ask = "explain what sync_dir does"
    served_as_plain(proxy, openhands_sdk_body(ask, recalled=True), openhands_sdk_body(ask))
    plan = explained(proxy, "chat", openhands_sdk_body(ask, recalled=True))
    assert plan["intent"]["label"] == "coding"
    assert plan["classifier"]["rule"].startswith("agent_session: an agent's built-in tools")


@pytest.mark.parametrize("mode", ["whole", "diff", "ask"])
def test_aiders_examples_and_fixed_messages_are_not_the_first_ask(
    proxy: RunningRouter, mode: str
) -> None:
    """Aider opens every request with its edit format's example conversation and pairs of
    its own (the repository map, the files added): the first was read as the first ask, the
    repository map in `/ask` mode. The first ask is the session's own, or none but the
    latest on a session's first turn."""
    verbose = "add a --verbose flag to app/cli.py"
    later = explained(proxy, "chat", aider_body(verbose, "ok, do that", mode))
    assert later["classifier"]["read"]["first_chars"] == len(verbose)
    first_turn = explained(proxy, "chat", aider_body(verbose, None, mode))
    assert first_turn["classifier"]["read"]["first_chars"] == 0


def test_aiders_reminder_after_the_current_message_is_not_the_ask(proxy: RunningRouter) -> None:
    """With `reminder: user` (the default for `openai/auto`), Aider appends its edit
    format's rules to the current message: read with them, a sonnet was coding by the rule
    of an agent's session. Read as the same message without them."""
    body = aider_body(SONNET)
    plain = aider_body(SONNET)
    plain["messages"][-1]["content"] = SONNET
    served_as_plain(proxy, body, plain)
    plan, expected = explained(proxy, "chat", body), explained(proxy, "chat", plain)
    assert plan["classifier"]["model_intent"] == "prose"
    assert plan["classifier"]["top_intents"] == expected["classifier"]["top_intents"]
    assert plan["classifier"]["read"]["latest_chars"] == len(SONNET)


@pytest.mark.parametrize("mode", ["ask", "context"])
def test_aiders_mode_reminders_and_reflections_are_not_the_ask(
    proxy: RunningRouter, mode: str
) -> None:
    """In `/ask` and `/context` mode Aider appends "Reply in English.\n" or "\nNEVER RETURN
    CODE!\n" to the current message (a short story was coding 0.61, found in review), and
    when a reply's edits fail it sends its own error as the next user message ("No filename
    provided before ``` in file listing"). Each is read as the ask alone."""
    story = "Write a short story about a lighthouse keeper"
    body = aider_body(story, None, mode)
    plain = {**body, "messages": [*body["messages"][:-1], {"role": "user", "content": story}]}
    served_as_plain(proxy, body, plain)
    assert explained(proxy, "chat", body)["classifier"]["model_intent"] == "prose"
    edit_mode, failure = REFLECTIONS["no filename"]
    reflected = explained(proxy, "chat", aider_reflection(story, [failure], edit_mode))
    assert reflected["classifier"]["read"]["latest_chars"] == len(story)
    assert reflected["classifier"]["model_intent"] == "prose"
