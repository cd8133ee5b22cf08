"""Tool signals: forced calls and clear asks are rules; tools merely present are a prior."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from classifier import classify, explain
from classifier.harness_tools import HARNESS_SEEN, HARNESS_TOOLS, PLAIN_NAMES
from classifier.request import view
from classifier.toolset import SCAN_TOOLS_READ, TOOL_CHARS, scanned_tools
from router.translate.view import chat_view
from tests.agent_shapes import (
    CLAUDE_CODE_TOOLS,
    CODEX_TOOLS,
    GITHUB_MCP_TOOLS,
    claude_code_body,
    codex_body,
    user_item,
)

WEATHER = {
    "type": "function",
    "function": {"name": "get_current_weather", "description": "Current weather for a city"},
}


def chat(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "auto", "messages": [{"role": "user", "content": text}], **extra}


ALLOWED = {"mode": "required", "tools": [{"type": "function", "name": "get_current_weather"}]}


@pytest.mark.parametrize(
    "tool_choice",
    [
        "required",
        {"type": "function", "function": {"name": "get_current_weather"}},
        # the OpenAI SDK's ChatCompletionNamedToolChoiceCustomParam and
        # ChatCompletionAllowedToolChoiceParam, then Responses' ToolChoiceAllowedParam (a
        # raw Responses body), all forcing a call: they were read as offered tools only
        {"type": "custom", "custom": {"name": "get_current_weather"}},
        {"type": "allowed_tools", "allowed_tools": ALLOWED},
        {"type": "allowed_tools", **ALLOWED},
    ],
)
def test_forced_tool_choice_is_tool_calling_whatever_the_text(tool_choice: object) -> None:
    intent = classify(chat("Write a sonnet about spring", tools=[WEATHER], tool_choice=tool_choice))
    assert (intent.label, intent.source) == ("tool_calling", "rule")
    assert intent.confidence > 0.9


def test_allowed_tools_in_auto_mode_only_offer_them() -> None:
    choice = {"type": "allowed_tools", "allowed_tools": {**ALLOWED, "mode": "auto"}}
    body = chat("Write a sonnet about spring", tools=[WEATHER], tool_choice=choice)
    assert classify(body).source == "model"


def test_tools_with_a_request_naming_them_is_a_rule() -> None:
    intent = classify(chat("What's the current weather in Oslo?", tools=[WEATHER]))
    assert (intent.label, intent.source) == ("tool_calling", "rule")
    assert (
        "weather" in explain(chat("What's the current weather in Oslo?", tools=[WEATHER]))["rule"]
    )


def test_tools_present_do_not_turn_a_coding_task_into_tool_calling() -> None:
    agent_tools = [
        {"type": "function", "function": {"name": "read_file", "description": "Read a file"}},
        {"type": "function", "function": {"name": "apply_patch", "description": "Edit files"}},
    ]
    body = chat(
        "Refactor the parse_config function in config.py to raise ValueError on bad keys",
        tools=agent_tools,
    )
    intent = classify(body)
    assert intent.source == "model"
    assert intent.label == "coding"


def test_tool_choice_none_disables_the_tool_rules() -> None:
    body = chat("What's the current weather in Oslo?", tools=[WEATHER], tool_choice="none")
    assert classify(body).source == "model"


def test_tool_result_as_latest_message_still_classifies_the_user_task() -> None:
    body = {
        "messages": [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": "Fix the failing test in tests/test_api.py"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]},
            {"role": "tool", "tool_call_id": "1", "content": "E   AssertionError: 404 != 200"},
        ]
    }
    assert classify(body).label == "coding"


def test_camel_case_tool_names_count_as_named_tools() -> None:
    # only the name carries the shared words: the rule must split `getStockQuote`
    stock = {
        "type": "function",
        "function": {"name": "getStockQuote", "description": "Market data service"},
    }
    intent = classify(chat("What's the latest stock quote for ACME?", tools=[stock]))
    assert (intent.label, intent.source) == ("tool_calling", "rule")
    assert "quote" in explain(chat("stock quote for ACME please", tools=[stock]))["rule"]


def test_upper_case_tool_names_count_as_named_tools() -> None:
    # Composio's names are upper case: one splitter (`classifier.tool_parts.name_words`)
    # reads `GITHUB_CREATE_ISSUE` as words, where splitting before each capital read letters
    issue = {"type": "function", "function": {"name": "GITHUB_CREATE_ISSUE"}}
    body = chat("Please create an issue titled crash on startup", tools=[issue])
    assert "create issue" in explain(body)["rule"]


LEGACY_WEATHER = WEATHER["function"]  # a deprecated `functions` entry: name, description


@pytest.mark.parametrize(
    ("function_call", "label", "source"),
    [
        ({"name": "get_current_weather"}, "tool_calling", "rule"),  # forces the call
        ("none", "prose", "model"),  # no tool may be called
    ],
)
def test_legacy_functions_and_function_call_are_read_as_tools(
    function_call: object, label: str, source: str
) -> None:
    """The deprecated chat fields, which the router passes upstream, were not read: a call
    `function_call` forced was classified from its text alone, prose 0.99 (found in
    review)."""
    body = chat("Write a sonnet about spring", functions=[LEGACY_WEATHER])
    intent = classify({**body, "function_call": function_call})
    assert (intent.label, intent.source) == (label, source)


def test_legacy_functions_offered_are_tools_a_request_can_name() -> None:
    body = chat("What's the current weather in Oslo?", functions=[LEGACY_WEATHER])
    assert classify({**body, "function_call": "auto"}).source == "rule"
    assert classify(body).source == "rule"  # no function_call: offered, as OpenAI reads it
    assert explain(body)["read"]["has_tools"]
    assert classify({**body, "function_call": "none"}).source == "model"


AGENT_ASKS = [
    # the review's: two everyday words shared with Claude Code's or Codex's descriptions
    "Make the export command write a CSV file instead of JSON.",
    "Explain how the session handling works in this codebase.",
    "Write a function that returns the median of a list of numbers.",
    # two words shared with the names of two tools (Read, Write), or of one out of order
    # (TodoWrite) or apart (BashOutput): the agent's tools, not named
    "Read the config loader and write a test for it.",
    "Write a todo list app in React with local storage.",
    "Why does the bash script output nothing when run from cron?",
]


def agent_view(agent: str, ask: str) -> dict[str, Any]:
    """`ask` as the first turn of Claude Code or Codex, with its tools, as the router's view
    hands it to the classifier."""
    if agent == "claude_code":
        return chat_view("messages", claude_code_body([{"role": "user", "content": ask}]))
    return chat_view("responses", codex_body([user_item(ask)]))


@pytest.mark.parametrize("ask", AGENT_ASKS)
@pytest.mark.parametrize("agent", ["claude_code", "codex"])
def test_an_agents_tools_are_not_named_by_everyday_words(agent: str, ask: str) -> None:
    """The rule compared the ask with the tools' names and descriptions: Claude Code's Bash
    "executes a given bash command", Glob "returns matching file paths", Codex's update_plan
    takes "a list of plan items", so these tasks read tool_calling 0.90 (found in review).
    Only a tool's name is compared, two of its words in order. The label may now be the
    agent_session rule's; the rule that decided is checked not to be the tool-naming one
    (one ask the model reads tool_calling 0.27 in Codex's session since complement NB's
    term: below even odds, coding by that rule)."""
    body = agent_view(agent, ask)
    rule = explain(body)["rule"]
    assert rule is None or rule.startswith("agent_session"), rule
    assert classify(body).label != "tool_calling"


SEND_EMAIL = {
    "type": "function",
    "function": {
        "name": "send_email",
        "description": "Send an email to a recipient, with a subject and a body.",
    },
}
SEND_SLACK = {
    "type": "function",
    "function": {"name": "send_slack_message", "description": "Post to a Slack channel."},
}


def test_a_request_for_the_offered_tool_is_still_tool_calling() -> None:
    assert classify(chat("send the report to Dana", tools=[SEND_EMAIL])).label == "tool_calling"
    body = chat("Send a Slack message to Dana with the report", tools=[SEND_SLACK])
    assert (classify(body).label, classify(body).source) == ("tool_calling", "rule")
    assert explain(body)["rule"] == "tools offered and names an offered tool: send slack"


def test_a_chat_custom_tool_is_named_by_its_name() -> None:
    """A chat `custom` tool keeps its name under `custom`: it gave the rule nothing to
    compare (found in review)."""
    custom = {"type": "custom", "custom": {"name": "get_stock_quote", "description": "Quotes"}}
    body = chat("What's the latest stock quote for ACME?", tools=[custom])
    assert (classify(body).label, classify(body).source) == ("tool_calling", "rule")
    assert explain(body)["rule"] == "tools offered and names an offered tool: stock quote"


def functions(*names: str) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": n, "description": "x"}} for n in names]


MULTIPLY = "Use the multiply tool to compute 1234 times 5678."


@pytest.mark.parametrize(
    "ask",
    [
        MULTIPLY,
        "Compute 1234 times 5678 with the `multiply` tool.",
        "Use the multiply function to compute 1234 times 5678.",
        "Please call your Multiply tool on 1234 and 5678",
        "run the 'multiply' tool for 12 and 34",
    ],
)
def test_an_offered_tool_asked_for_by_its_whole_name_is_tool_calling(ask: str) -> None:
    """`multiply` has one content word, so `tool_words` gives it no pair, and "use the tool"
    is no phrase of "use the multiply tool": with `multiply` and `get_weather` offered (llm's
    `-T`), the first ask was math 0.68 (found in a live review of llm 0.36)."""
    body = chat(ask, tools=functions("multiply", "get_weather"))
    assert (classify(body).label, classify(body).source) == ("tool_calling", "rule")
    assert (
        explain(body)["rule"] == "tools offered and asks for an offered tool by its name: multiply"
    )


def test_a_tool_name_with_underscores_is_asked_for_by_its_name() -> None:
    body = chat(
        "Use the get_weather tool for Oslo and Paris.", tools=functions("multiply", "get_weather")
    )
    assert explain(body)["rule"] == (
        "tools offered and asks for an offered tool by its name: get_weather"
    )


@pytest.mark.parametrize(
    ("ask", "tools"),
    [
        # a tool of no offered name: Photoshop's, not the request's
        ("use the hammer tool in Photoshop to sharpen the edges", ("multiply", "get_weather")),
        # an offered name that is an everyday word, outside the tool phrase
        ("Edit this paragraph so it reads better: the tool was fine.", ("edit", "multiply")),
        ("Use the edit history to explain what changed in my essay.", ("edit",)),
        # ...or with a word between it and "tool"
        ("Compare the edit distance tool in Python with Rust's.", ("edit",)),
        # a longer name that only starts with an offered one
        ("Use the multiply_matrix tool to multiply A and B.", ("multiply",)),
    ],
)
def test_a_tool_phrase_without_an_offered_tools_whole_name_is_no_rule(
    ask: str, tools: tuple[str, ...]
) -> None:
    """Only an offered tool's whole name in the phrase asks for it: a name that is a common
    word is matched there and nowhere else."""
    assert explain(chat(ask, tools=functions(*tools)))["rule"] is None


@pytest.mark.parametrize(
    ("ask", "tool"),
    [
        ("What's wrong with the search function in my code?\n\n```python\ndef search(xs, t):"
         "\n    for i in range(len(xs)):\n        if xs[i] == t: return i\n```", "search"),
        ("Why does calling the fetch function in my React component return a pending"
         " promise?", "fetch"),
        ("Can you help with the login function? It never returns.", "login"),
        ("Rewrite this loop with the sort function: for i in range(n): ...", "sort"),
        ("I get a KeyError when calling the save function in storage.py. Why?", "save"),
        ("Why does my code use the search function twice?", "search"),
    ],
)  # fmt: skip
def test_a_function_of_the_users_code_is_no_tool_asked_for(ask: str, tool: str) -> None:
    """ "function" is code's word as much as a tool's: with, via, using or calling the
    <name> function, or a use not imperative, asks about code. With the name offered as a
    tool, each was tool_calling 0.9 by the rule (found in review); "Use the multiply
    function to ..." and "with the calculator tool" still ask for the tool."""
    assert explain(chat(ask, tools=functions(tool, "get_weather")))["rule"] is None


def test_an_agents_built_in_tool_is_not_asked_for_by_its_name() -> None:
    """Claude Code's Bash is its harness, not the request's tool: "use the Bash tool" asks
    for none of the request's tools, as "the todo write timestamp" names none."""
    ask = [{"role": "user", "content": "Use the Bash tool to run the test suite and fix failures."}]
    rule = explain(chat_view("messages", claude_code_body(ask)))["rule"]
    assert rule is None or rule.startswith("agent_session"), rule


HARNESS_NAMED = [
    # two words of a Claude Code tool's name, in order: ExitPlanMode, KillShell,
    # NotebookEdit, TodoWrite, SlashCommand
    ("claude_code", "Add a plan mode to our CLI so users can preview changes."),
    ("claude_code", "Add a kill shell option to the terminal multiplexer config."),
    ("claude_code", "Why does the notebook edit history get lost after reload?"),
    ("claude_code", "Store the todo write timestamp in the database."),
    ("claude_code", "Add a slash command /deploy to the Discord bot."),
    # ...and of Codex's: apply_patch, view_image
    ("codex", "Apply the patch from issue 42 to the release branch."),
    ("codex", "Add a view image button to the photo gallery."),
    # newer tools of Claude Code's (SendMessage, CronCreate, EnterWorktree) and of Codex's
    # (spawn_agent, send_message, request_user_input), missing from the set at first
    ("claude_code", "Add a send message button to the chat widget."),
    ("claude_code", "Why does the cron create step fail in the deploy script?"),
    ("claude_code", "Document how to enter a worktree in CONTRIBUTING.md."),
    ("codex", "Spawn an agent process per shard in the CI matrix."),
    ("codex", "Add a send message button to the chat widget."),
    ("codex", "Validate the request user input before saving the form."),
]


@pytest.mark.parametrize(("agent", "ask"), HARNESS_NAMED)
def test_an_agents_built_in_tools_are_not_named(agent: str, ask: str) -> None:
    """Compared by name, the agents' own tools were named by everyday coding words: these
    asks read tool_calling (rule) 0.90 (found in review). An agent's built-in tools are its
    harness, not the request's tools; they still make the tools prior. The label may now be
    the agent_session rule's; the rule that decided is checked not to be the tool-naming one."""
    body = agent_view(agent, ask)
    rule = explain(body)["rule"]
    assert rule is None or rule.startswith("agent_session"), rule
    assert explain(body)["read"]["has_tools"]


def test_a_users_tool_beside_an_agents_is_still_named() -> None:
    """The harness names are left out one by one: a tool of the user's (an MCP server's,
    say) offered beside Claude Code's is named as before."""
    weather = {"name": "get_current_weather", "description": "Current weather for a city"}
    ask = [{"role": "user", "content": "What's the current weather in Oslo?"}]
    body = chat_view("messages", claude_code_body(ask, tools=[*CLAUDE_CODE_TOOLS, weather]))
    assert (classify(body).label, classify(body).source) == ("tool_calling", "rule")
    assert explain(body)["rule"] == "tools offered and names an offered tool: current weather"


ISSUE = "Create an issue in our GitHub repo about the flaky login test."


def test_an_mcp_tool_offered_after_claude_codes_own_is_named() -> None:
    """Claude Code offers some twenty tools of its own before its MCP tools: only the first
    16 tools were read, so "create an issue" could never name `mcp__github__create_issue`
    (found in review). An agent's built-in tools are read past the 16."""
    tools = [*CLAUDE_CODE_TOOLS, *GITHUB_MCP_TOOLS]
    assert len(CLAUDE_CODE_TOOLS) > 16
    ask = [{"role": "user", "content": ISSUE}]
    as_chat = chat(ISSUE, tools=[{"type": "function", "function": t} for t in tools])
    for body in (chat_view("messages", claude_code_body(ask, tools=tools)), as_chat):
        assert (classify(body).label, classify(body).source) == ("tool_calling", "rule")
        assert explain(body)["rule"] == "tools offered and names an offered tool: create issue"


def test_tools_are_read_to_a_bound_whatever_they_are() -> None:
    """Built-in tools are not counted, yet no more than `SCAN_TOOLS_READ` tools are read."""
    bash = {"type": "function", "function": {"name": "Bash"}}
    mcp = {"type": "function", "function": GITHUB_MCP_TOOLS[0]}
    within = view(chat(ISSUE, tools=[bash] * (SCAN_TOOLS_READ - 1) + [mcp]))
    assert within.tool_names == "mcp__github__create_issue"
    past = view(chat(ISSUE, tools=[bash] * SCAN_TOOLS_READ + [mcp]))
    assert (past.tool_names, past.has_tools) == ("", True)


_NAMES = ["Bash", "Read", "TodoWrite", "read_file", "get_weather", "mcp__github__create_issue", 7]


@given(
    st.integers(0, 80).flatmap(lambda n: st.lists(st.sampled_from(_NAMES), min_size=n, max_size=n))
)
def test_the_names_read_are_the_scanned_tools(names: list[object]) -> None:
    """The classifier reads the names of the tools the router's view keeps of other APIs'
    requests (`scanned_tools`), an agent's own left out among `HARNESS_SEEN` or more that
    are not all words any app may name its tools (`PLAIN_NAMES`)."""
    tools = [{"type": "function", "function": {"name": name}} for name in names]
    read = [n for t in scanned_tools(tools) if isinstance(n := t["function"]["name"], str)]
    counted = [name for name in read if name in HARNESS_TOOLS]
    if len(counted) >= HARNESS_SEEN and not PLAIN_NAMES.issuperset(counted):
        read = [name for name in read if name not in HARNESS_TOOLS]
    assert view(chat("hi", tools=tools)).tool_names == " ".join(read)[:TOOL_CHARS]


def test_the_harness_set_holds_every_tool_the_agent_shapes_send() -> None:
    names = {t["name"] for t in CLAUDE_CODE_TOOLS} | {t["name"] for t in CODEX_TOOLS}
    assert names <= HARNESS_TOOLS


def test_a_harness_name_offered_by_an_app_of_its_own_can_be_named() -> None:
    """`read_file` is Codex's and the MCP filesystem server's, which Cline or the Agents SDK
    offer unprefixed: with no agent's harness around it (fewer than `HARNESS_SEEN` of its
    tools) the ask names it, as before the harness set (found in review)."""
    tools = [
        {"type": "function", "function": {"name": name, "description": "Files"}}
        for name in ("read_file", "write_file", "list_directory")
    ]
    body = chat("Read the file notes.txt and summarise it", tools=tools)
    assert (classify(body).label, classify(body).source) == ("tool_calling", "rule")
    assert explain(body)["rule"] == "tools offered and names an offered tool: read file"
