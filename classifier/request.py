"""A bounded view of a chat request: which texts the classifier reads, and how much of them.

Agents send long system prompts, tool schemas on every turn and huge conversations; the task
lives in the latest and the first user message, the asks (`classifier.asks` finds them,
passing over agents' and frameworks' own turns). Every read here is bounded (message count,
part count, bytes), so a 200k-token conversation costs about what a short one does.

Besides the asks' texts, the view keeps what the request's shape says of its reply: the
reading its app fixes whatever the ask (`RequestView.fixed`, one of `classifier.fixed`'s,
found by `_FIXED`: a smolagents CodeAgent's step, Shell-GPT's shell or code role, Vanna's SQL
prompt, jupyter-ai's `%%ai -f code`, gpt-engineer's prompts, rawdog's and ai-shell's ask for
code, opencommit's and aicommits' prompts ask for a commit message, coding work whatever
the diff changes, a DSPy ReAct step
names a tool, a smolagents ToolCallingAgent's step (txtai's Agent's) is a tool call,
OpenHands' condenser's summary asks nothing of its coding session, a
browser-use agent step picks browser actions and its compaction summarizes them, an eval
tool's grader or judge (promptfoo's, inspect_ai's, deepeval's, ragas's, evalscope's) judges
an answer,
Letta's compaction's summary asks for one fixed form, an n8n node's reply or a Marvin
extract, classify or cast task's is a given form over a given text,
mem0's memory calls are its app's background job, gpt-researcher's report request asks for a
detailed report whatever its research found, mcp-agent's LLM router's and intent classifier's
templates ask for given labels, fast-agent's router's call and its orchestrator's plan ask
for an agent's name or a plan of its agents in a given form, SillyTavern's default main
prompt asks for a character's next reply in a fictional chat);
Vanna's Agent's ask is for its tools (`RequestView.tool_agent`), a Letta agent's or a Marvin
task's forced call is its reply channel (`RequestView.reply_channel`), and Marvin's end-turn
tool no tool offered (`classifier.marvin.own_tools`), and agency-swarm's `send_message` names
the agents an ask may have do the work (`RequestView.recipients`);
and whether an agent's own text or built-in tools were left out, the sign of an agent's
session (`RequestView.harness_cut`; an agent framework's texts are none). Not every tool is
the request's own: an agent offers its built-in tools first, and they are read past the
bound on tools (`classifier.toolset`). Nor is every tool sent in `tools`: langroid, rigging's
text modes, Qwen-Agent (the Hermes-style block of Qwen's chat template) and a smolagents
ToolCallingAgent list theirs in their system prompt's text, read as offered by their names,
langroid's, rigging's and Qwen-Agent's blocks not read as the system prompt
(`classifier.frameworks.offered_tools`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from classifier import (
    agency_swarm,
    ai_shell,
    beeai,
    browser_use,
    commit_message,
    deepeval,
    dspy,
    evalscope,
    fast_agent,
    frameworks,
    gpt_engineer,
    gpt_researcher,
    gptcli,
    inspect_ai,
    jupyter_ai,
    letta,
    marvin,
    mcp_agent,
    mem0,
    n8n,
    openhands,
    promptfoo,
    ragas,
    rawdog,
    shell_gpt,
    sillytavern,
    smolagents,
    taskmaster,
    vanna,
)
from classifier.ask_text import content_text, read_ask, read_in_part
from classifier.asks import Asks, user_messages
from classifier.file_tools import reaches_files
from classifier.fixed import (
    AGENT_CHOICE_READING,
    BROWSER_COMPACTION_READING,
    BROWSER_STEP_READING,
    CODE_ANSWER_READING,
    COMMIT_MESSAGE_READING,
    CONDENSER_READING,
    FIXED_FORM_READING,
    GRADER_READING,
    MARVIN_FORM_READING,
    MEMORY_EXTRACTION_READING,
    MEMORY_SUMMARY_READING,
    RESEARCH_REPORT_READING,
    ROLEPLAY_READING,
    ROUTE_CHOICE_READING,
    TASK_RECORD_READING,
    TOOL_CALL_STEP_READING,
    TOOL_STEP_READING,
    Fixed,
)
from classifier.message import SCAN_ROLES, System, read_system
from classifier.side_request import side_request
from classifier.templates import judged_text
from classifier.tool_choice import forced, legacy_tools
from classifier.toolset import agent_identified, tool_names

SYSTEM_CHARS = 300


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
    # Three or more of an agent's built-in tools offered (`HARNESS_SEEN`): said apart from
    # `harness_cut` (which counts them too) for `classifier.rules.agent_session`'s reason.
    agent_tools: bool = False
    # Whether a coding agent's own text or tools were recognised and left out of what is
    # read: an agent's text cut from the latest or first ask (`classifier.harness`), a user
    # message of an agent's text alone passed over, Aider's examples or fixed messages, or
    # opencode's or Qwen Code's own, passed over (`classifier.asks`), or an agent's built-in tools
    # offered (`HARNESS_SEEN` of `HARNESS_TOOLS`). Not a feature of the model's: a sign that
    # the request is an agent's. Not an agent framework's texts (crewAI's, pydantic-ai's):
    # research and writing run on them as much as code.
    harness_cut: bool = False
    # The reading the request's app fixes whatever the ask (`classifier.fixed`): the first
    # of `_FIXED`'s detectors that finds its app's request, or None
    # (`classifier.rules.rule_intent`).
    fixed: Fixed | None = None
    # Vanna's Agent with its tools offered (`classifier.vanna.agent_session`): its asks are
    # for its tools, unless clearly other work (`classifier.rules.session_intent`). No coding
    # agent's: nothing of it is left out of what is read.
    tool_agent: bool = False
    # A tool offered that can read files or run commands, a shell or a file tool
    # (`classifier.file_tools`): an ask that names a source file is for it
    # (`classifier.rules.offered_file_intent`), not for a chat app's web search.
    file_tools: bool = False
    # A Letta agent's request forcing a call of its reply tool (`classifier.letta.replies_by_tool`),
    # or a Marvin task's of its end-turn tool (`classifier.marvin.replies_by_tool`): the forcing
    # is how it answers, no tool request (`classifier.rules.rule_intent`).
    reply_channel: bool = False
    # The agents an agency-swarm `send_message` offered may send to, by name
    # (`classifier.agency_swarm.recipients`): an ask that has one do the work asks for it
    # (`classifier.rules.asks_for_tools`).
    recipients: tuple[str, ...] = ()
    # No user message asks, and one that greets or asks for help alone was passed over
    # (`classifier.asks.Asks.greeted`): nothing is read, and `explain` says why.
    greeted: bool = False
    # A request its app sends beside its conversation's turns, to name or label it or to
    # pick who does its work (`classifier.side_request`): read by its ask inside, or its
    # rule; it pins nothing (`Intent`).
    side_request: bool = False


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
    system = read_system(messages)
    asks = user_messages(messages, system, frameworks.framed(body, system))
    return _view(body, messages, system, asks)


def view_cut(body: object) -> tuple[RequestView, bool, bool]:
    """`view(body)`, and whether its latest and its first ask were read only in part (a
    head and a tail, or their first and last parts): what `explain` tells of a long
    message, whose `latest_chars` alone cannot say it was cut. One reading of the asks for
    both (Aider's or not asked once), of their `classifier.ask_text.ask_content` as `view` reads
    it: measured as sent, a crush title call's ask read whole was cut by crush's words (found
    in review). Not for `classify`: it joins and measures whole texts, which classifying must
    not."""
    if not isinstance(body, dict):
        return RequestView(), False, False
    messages = _messages(body)
    system = read_system(messages)
    asks = user_messages(messages, system, frameworks.framed(body, system))
    first = asks.first if asks.first is not asks.latest else None
    latest_cut, first_cut = (
        read_in_part(ask, messages, system, asks.aiders) for ask in (asks.latest, first)
    )
    return _view(body, messages, system, asks), latest_cut, first_cut


def _view(body: dict[str, Any], messages: list[Any], system: System, asks: Asks) -> RequestView:
    """`view(body)`, its `messages`, their system prompt (`classifier.message.read_system`:
    read once, for every reader that tells its requests by it) and their asks
    (`classifier.asks.user_messages`) read already."""
    latest, latest_cut = read_ask(asks.latest, messages, system, asks.aiders)
    first, first_cut = "", False  # the first user message, unless it is the latest
    if asks.first is not asks.latest:
        first, first_cut = read_ask(asks.first, messages, system, asks.aiders)
    system_text = body.get("system") if isinstance(body.get("system"), str) else ""
    if system.content is not None and not asks.in_system:  # a system or developer message
        # opens them, and is not their ask (a framework's own sentences in it are not read as
        # words: langroid's tools block, griptape's actions, `frameworks.system_words`)
        system_text = content_text(system.content)
    raw_tools = body.get("tools")
    tools: list[Any] = raw_tools if isinstance(raw_tools, list) else []
    if not tools:  # a framework's tools listed in its system prompt's text (langroid's,
        # rigging's, Qwen-Agent's, a smolagents ToolCallingAgent's) or asked for as its
        # `response_format` (BeeAI's)
        tools = frameworks.offered_tools(body, system)
    tool_choice = body.get("tool_choice")
    if "functions" in body or "function_call" in body:  # rare: a lookup, not a call
        tools, tool_choice = legacy_tools(body, tools, tool_choice)
    tool_forced = bool(tools) and forced(tool_choice)
    reply_channel = tool_forced and _replies_by_tool(system, tools, tool_choice)
    tools = beeai.own_tools(system, marvin.own_tools(system, tools))  # no tools of the task's
    names, harness_tools = tool_names(tools, bool(tools) and agent_identified(system))
    fixed = _fixed(messages, system)
    offered = bool(tools) and tool_choice != "none"
    return RequestView(
        latest=latest,
        first=first,
        system=frameworks.system_words(str(system_text))[:SYSTEM_CHARS],
        tool_names=names,
        has_tools=offered,
        tool_forced=tool_forced,
        tools_disabled=tool_choice == "none",
        after_tool_result=asks.after_tool,
        agent_tools=harness_tools,
        harness_cut=asks.harness or latest_cut or first_cut or harness_tools,
        fixed=fixed,
        tool_agent=offered and vanna.agent_session(system, tools),
        file_tools=offered and reaches_files(tools),
        reply_channel=reply_channel,
        recipients=agency_swarm.recipients(tools),
        greeted=asks.greeted,
        side_request=side_request(messages, system, fixed),
    )


def _replies_by_tool(system: System, tools: list[Any], tool_choice: object) -> bool:
    """Whether the call a request forces is its app's reply channel
    (`RequestView.reply_channel`): a Letta agent's `send_message`, a Marvin task's end-turn
    tool, a BeeAI agent's `final_answer`."""
    return (
        letta.replies_by_tool(system, tools, tool_choice)
        or marvin.replies_by_tool(system, tools, tool_choice)
        or beeai.replies_by_tool(system, tools, tool_choice)
    )


def _answers_in_code(messages: list[Any], system: System) -> bool:
    """Whether the request's reply must be code (`classifier.fixed.CODE_ANSWER`): a
    smolagents CodeAgent's step, Shell-GPT's code roles', Vanna's SQL prompt's, a jupyter-ai
    code cell's, gpt-engineer's, rawdog's script, ai-shell's command (or what one does),
    gptcli's bash assistant's command."""
    return (
        smolagents.answers_in_code(messages, system)
        or shell_gpt.answers_in_code(system)
        or rawdog.answers_in_code(system)
        or ai_shell.asks_for_command(messages)
        or vanna.asks_for_sql(system)
        or jupyter_ai.answers_in_code(messages)
        or gpt_engineer.answers_in_code(system)
        or gptcli.answers_in_code(system)
    )


def _writes_commit_message(messages: list[Any], system: System) -> bool:
    """Whether the request asks for a commit message for a git diff
    (`classifier.fixed.COMMIT_MESSAGE`): opencommit's or aicommits', told by its system
    prompt alone."""
    return commit_message.writes_commit_message(system)


def _picks_tool(messages: list[Any], system: System) -> bool:
    """Whether the request is a DSPy ReAct step (`classifier.fixed.TOOL_STEP`), told by its
    system prompt alone."""
    return dspy.picks_tool(system)


def _grades(messages: list[Any], system: System) -> bool:
    """Whether an eval tool's grader or judge sent the request (`classifier.fixed.GRADER`):
    promptfoo's, inspect_ai's, deepeval's, ragas's or evalscope's, told by its messages alone:
    the last four send one user message after system messages (`judged_text`), read once for
    them."""
    if promptfoo.grades(messages):
        return True
    text = judged_text(messages)
    return text is not None and (
        inspect_ai.grades(text)
        or deepeval.grades(text)
        or ragas.grades(text)
        or evalscope.grades(text)
    )


# Each app's detector and the reading it fixes, in the order they are tried: the first found
# decides, so an app's request that two detectors could claim is read one way only. Each is
# given the request's messages and their system prompt, read once for all of them
# (`classifier.message.read_system`).
_FIXED: tuple[tuple[Callable[[list[Any], System], bool], Fixed], ...] = (
    (_answers_in_code, CODE_ANSWER_READING),
    (_writes_commit_message, COMMIT_MESSAGE_READING),
    (_picks_tool, TOOL_STEP_READING),
    (smolagents.calls_tools, TOOL_CALL_STEP_READING),
    (openhands.summary_request, CONDENSER_READING),
    (browser_use.picks_actions, BROWSER_STEP_READING),
    (browser_use.compacts, BROWSER_COMPACTION_READING),
    (_grades, GRADER_READING),
    (letta.summary_request, MEMORY_SUMMARY_READING),
    (n8n.fixed_form, FIXED_FORM_READING),
    (marvin.fixed_form, MARVIN_FORM_READING),
    (mem0.memory_request, MEMORY_EXTRACTION_READING),
    (gpt_researcher.report_request, RESEARCH_REPORT_READING),
    (taskmaster.plans, TASK_RECORD_READING),
    (mcp_agent.routes, ROUTE_CHOICE_READING),
    (fast_agent.picks_agents, AGENT_CHOICE_READING),
    (sillytavern.roleplays, ROLEPLAY_READING),
)


def _fixed(messages: list[Any], system: System) -> Fixed | None:
    """The reading the request's app fixes (`RequestView.fixed`): `_FIXED`'s first found."""
    for found, reading in _FIXED:
        if found(messages, system):
            return reading
    return None


def _messages(body: dict[str, Any]) -> list[Any]:
    messages = body.get("messages")
    return messages if isinstance(messages, list) else _fallback_messages(body)


def _fallback_messages(body: dict[str, Any]) -> list[Any]:
    """Responses-API `input` or a bare `prompt`: treat it as one user message."""
    for key in ("input", "prompt"):
        value = body.get(key)
        if isinstance(value, str):
            return [{"role": "user", "content": value}]
        if isinstance(value, list) and key == "input":
            return [m for m in value[-SCAN_ROLES:] if isinstance(m, dict)]
    return []
