"""Agent frameworks' own texts around the user's task: which of them reads a request's ask,
and which of their user messages are passed over.

Frameworks wrap the user's task in words of their own and send messages of their own in user
turns; read as written, those words decided the intent and keyed the conversation. Each
framework's reader knows its texts and reads only its own requests:

- crewAI: a task's description and expected output inside its frame, its nudges after a
  tool and at its last iteration passed over (`classifier.crewai`);
- PraisonAI: a workflow task's description and expected output inside its frame, without
  the earlier tasks' outputs (`classifier.praisonai`);
- pydantic-ai: its retry feedback and the summary of a compacted conversation passed over
  (`classifier.pydantic_ai`);
- rigging: its request to rewrite a reply it failed to parse passed over, the tools its text
  modes list in the system prompt offered (`classifier.rigging`);
- Qwen-Agent, and any client writing Qwen's chat template's text itself: the tools its
  Hermes-style `<tools>` block lists in the system prompt offered, their results in a user
  message of `<tool_response>` blocks read as a tool's result, not an ask
  (`classifier.hermes`);
- instructor: its request to correct a reply that failed validation passed over
  (`classifier.instructor`);
- smolagents: each kind of request read by the run's task (a managed agent's inside its
  template), its own user messages after it passed over, a ToolCallingAgent's tools listed in
  its system prompt offered (txtai's Agent sends no `tools`) (`classifier.smolagents`);
- DSPy: a call's inputs but a ReAct run's trajectory, its demos passed over
  (`classifier.dspy`); a DSPy 2.x call (dsp's template, STORM's) by its task and its inputs
  (`classifier.dsp_template`);
- Agno: an ask without the blocks it appends, its session summary's ask passed over
  (`classifier.agno`);
- Mastra: a guard processor's request read by the text it checks (`classifier.mastra`);
- Semantic Kernel: a Magentic manager's prompts read by the run's task, its plan's prompts
  passed over, its summarization reducer's request asking nothing
  (`classifier.semantic_kernel`);
- Haystack: its ranker's and query expander's prompts read by the query inside
  (`classifier.haystack`);
- gpt-researcher: its sub-query prompt read by the research task quoted inside
  (`classifier.gpt_researcher`; its report request is writing by rule, `classifier.request`);
- the OpenAI Agents SDK: the history it hands an agent after a handoff, one assistant
  message and no user message, read by the user's messages in it (`handed_asks`,
  `classifier.openai_agents`);
- Strands Agents: its nudge to call its structured-output tool passed over, in its forced
  request only (`classifier.strands`);
- AgentScope: its runtime-state reminder (the time, its tasks, the context's length), a user
  message of its own in Claude Code's `<system-reminder>` tag, passed over
  (`classifier.agentscope`);
- Genkit: its instructions for a JSON output of a schema, a user message of their own after
  the ask, passed over (`classifier.genkit`);
- Google ADK: its relay of what another agent did and its fillers ("Continue processing
  previous requests as instructed. ...") passed over (`classifier.adk`);
- browser-use: an extraction read by its query, its history compaction asking nothing
  (`classifier.browser_use`; its agent steps and judge by the run's task,
  `classifier.asks.user_messages`);
- Letta: its events in user turns (login, heartbeats, a compaction's summary) and its
  compaction's transcript passed over, a user's message it wrapped read inside its JSON
  (`classifier.letta`);
- Marvin: a task read by its instructions out of its frame, an extract, classify or cast
  task by its data, `say()`'s task passed over for the user's message before it
  (`classifier.marvin`);
- BAML: an ask without the output-format block its typed functions append
  (`classifier.baml`; its default prompt is one system message, read as the ask,
  `classifier.system_ask`);
- langroid: a tool's result it sends as a user message, after the reply that requested one of
  the tools its system prompt lists, read as a tool's result, not an ask (`tool_result`,
  `classifier.langroid`; its listed tools are offered, `classifier.request`);
- Griptape: its system prompt read without its sentences on actions, its rulesets' names
  and rules read (`system_words`, `classifier.griptape`);
- atomic-agents: a user turn read by the string values of the JSON it wraps every turn in,
  told a greeting by them (`said`), its system prompt without its template's words
  (`system_words`, `classifier.atomic_agents`).

And two terminal assistants, no frameworks but no coding agents either, read alike: Open
Interpreter's turn after a code run and gptme's nudges when a reply called no tool passed
over, the user's words after one in the same text read alone
(`classifier.terminal_assistant`). And Vanna's SQL prompt, a text-to-SQL library's: its
example questions passed over to the user's question (`classifier.vanna`). And Taskmaster's
research prompt, a task manager's: its query read alone (`classifier.taskmaster`). And BeeAI
Framework's agents' asks: read out of "Your task: " and its ReActAgent's "Message: " and time,
its ToolCallingAgent's nudge to call `final_answer` passed over, the tools it asks a call of
in `response_format` offered (`classifier.beeai`).
And gptcli's `dev` assistant's fixed user message and its "Understood.", which open its
every run, passed over to the user's first ask (`classifier.gptcli`).
And mcp-agent's parallel fan-in: each agent's message, which it prints as a Python object,
read as its text (`classifier.mcp_agent`).
And paper-qa's evidence summaries and answer, a research app's: each read by the question it
quotes, not by the excerpt or the context around it, its retry of a summary passed over
(`classifier.paper_qa`).
And NeMo Guardrails' dialog-rail prompts: the session's asks after its sample conversation,
each call of a user's turn read and keyed by them (`dialog_asks`, `classifier.nemo_guardrails`).

No framework is a coding agent: what they pass over does not make a request an agent's
session (`classifier.rules.agent_session`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from classifier import (
    adk,
    agentscope,
    agno,
    atomic_agents,
    baml,
    beeai,
    browser_use,
    crewai,
    dspy,
    genkit,
    gpt_researcher,
    gptcli,
    griptape,
    haystack,
    hermes,
    instructor,
    langroid,
    letta,
    marvin,
    mastra,
    mcp_agent,
    nemo_guardrails,
    openai_agents,
    paper_qa,
    praisonai,
    pydantic_ai,
    rigging,
    semantic_kernel,
    smolagents,
    strands,
    taskmaster,
    terminal_assistant,
    vanna,
)
from classifier.message import AskPair, System


class Framed(NamedTuple):
    """What a request's body says of the frameworks whose texts are passed over in their own
    requests only, read once for a request (`framed`): their texts elsewhere are a user's."""

    instructor: bool = False  # instructor's (`classifier.instructor.framed`)
    strands: bool = False  # Strands' forced structured output (`classifier.strands.framed`)


def framed(body: Mapping[str, Any], system: System) -> Framed:
    """`Framed` of `body`, `system` the system prompt of its chat messages."""
    return Framed(instructor.framed(body, system), strands.framed(body))


def task_ask(message: object, messages: Sequence[Any], system: System) -> object:
    """The user's words of the ask `message` of `messages` when a framework wrapped them in
    its own (the first reader that knows the request reads it); else its content as sent,
    the very object. `system`: the system prompt of `messages`, read once for the request
    (`classifier.message.read_system`) and handed to each reader that tells its requests by
    it."""
    sent = message.get("content") if isinstance(message, dict) else None
    for read in _TASK_READERS:
        task = read(message, messages, system)
        if task is not sent:
            return task
    return sent


# The readers of `task_ask`, in order: each returns the message's content, the very object,
# when its framework did not wrap it.
_TASK_READERS: tuple[Callable[[object, Sequence[Any], System], object], ...] = (
    lambda m, ms, s: crewai.task_ask(m, ms),
    lambda m, ms, s: praisonai.task_ask(m),
    smolagents.task_ask,
    lambda m, ms, s: dspy.task_ask(m, s),
    lambda m, ms, s: agno.user_words(m),
    mastra.guard_ask,
    lambda m, ms, s: semantic_kernel.task_ask(m, ms),
    lambda m, ms, s: haystack.query_ask(m, ms),
    lambda m, ms, s: gpt_researcher.query_ask(m, ms),
    terminal_assistant.ask_words,
    browser_use.task_ask,
    lambda m, ms, s: letta.user_words(m, s),
    lambda m, ms, s: marvin.task_ask(m, s),
    lambda m, ms, s: baml.task_ask(m),
    lambda m, ms, s: atomic_agents.user_words(m, s),
    taskmaster.query_ask,
    lambda m, ms, s: beeai.task_ask(m, s),
    lambda m, ms, s: mcp_agent.fan_in_ask(m),
    paper_qa.question_ask,
    lambda m, ms, s: nemo_guardrails.task_ask(m, ms),
)


def said(message: object, system: System) -> object:
    """The content of the user message `message` as its user typed it where a framework wraps
    every user turn in a form of its own (atomic-agents' JSON, `classifier.atomic_agents`),
    else as sent (the very object): what a greeting is told by (`classifier.greeting`), so a
    wrapped "hi" asks nothing, as "hi" does. `system`: the system prompt of its request."""
    return atomic_agents.user_words(message, system)


def system_words(system: str) -> str:
    """The text of a request's system prompt, `system`, as the classifier reads it: without a
    framework's own sentences when it holds them (langroid's tools block,
    `classifier.langroid`; rigging's, `classifier.rigging`; the Hermes-style one of Qwen's
    template, `classifier.hermes`; griptape's actions, `classifier.griptape`; atomic-agents'
    template, `classifier.atomic_agents`); else as sent."""
    words = hermes.system_words(rigging.system_words(langroid.system_words(system)))
    return atomic_agents.system_words(griptape.system_words(words))


def offered_tools(body: Mapping[str, Any], system: System) -> list[dict[str, Any]]:
    """The tools a framework offers elsewhere than in `tools`, in the shape of a request's
    `tools`: listed in the system prompt `system` (langroid's, `classifier.langroid.offered`;
    rigging's text modes', `classifier.rigging.offered`; the Hermes-style block of Qwen's
    template, Qwen-Agent's, `classifier.hermes.offered`; a smolagents ToolCallingAgent's on a
    model that sends no `tools`, txtai's Agent's, `classifier.smolagents.text_tools`) or in
    the `response_format` of `body` (BeeAI's, `classifier.beeai.format_tools`); read as
    offered where the request sends none (`classifier.request`)."""
    return (
        langroid.as_tools(langroid.offered(system))
        or rigging.offered(system)
        or hermes.offered(system)
        or smolagents.text_tools(system)
        or beeai.format_tools(body, system)
    )


def dialog_asks(messages: Sequence[Any]) -> AskPair | None:
    """The first and the latest ask of the session a framework's dialog prompt holds after a
    fixed sample conversation of its own (NeMo Guardrails' Colang 1.0 intent, next-steps and
    bot-message prompts, `classifier.nemo_guardrails`); None for any other request."""
    return nemo_guardrails.dialog_asks(messages)


def handed_asks(messages: Sequence[Any]) -> openai_agents.Handed | None:
    """The first and the latest user message of a history a framework hands an agent in a
    message of its own, which opens `messages` (the OpenAI Agents SDK's); None for any
    other request."""
    return openai_agents.handed_asks(messages)


def passed_over(messages: Sequence[Any], index: int, system: System, own: Framed) -> bool:
    """Whether the user message `messages[index]` is a framework's own, not an ask; `system`:
    the system prompt of `messages` (`task_ask`), `own`: whose request it is, of the
    frameworks told by the body (`framed`, read once)."""
    return (
        crewai.passed_over(messages, index)
        or pydantic_ai.passed_over(messages, index)
        or rigging.passed_over(messages, index)
        or (own.instructor and instructor.passed_over(messages, index))
        or (own.strands and strands.passed_over(messages, index))
        or genkit.passed_over(messages, index)
        or smolagents.passed_over(messages, index, system)
        or dspy.passed_over(messages, index, system)
        or agno.passed_over(messages, index, system)
        or semantic_kernel.passed_over(messages, index)
        or adk.passed_over(messages, index, system)
        or terminal_assistant.passed_over(messages, index, system)
        or gptcli.passed_over(messages, index, system)
        or vanna.passed_over(messages, index, system)
        or browser_use.passed_over(messages, index, system)
        or letta.passed_over(messages, index, system)
        or marvin.passed_over(messages, index, system)
        or agentscope.passed_over(messages, index)
        or beeai.passed_over(messages, index, system)
        or paper_qa.passed_over(messages, index, system)
    )


def tool_result(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is a tool's result that a framework sends
    in a user turn (langroid's, `classifier.langroid.tool_result`; `<tool_response>` blocks
    under Qwen's template's tools block, Qwen-Agent's, `classifier.hermes.tool_result`):
    passed over as no ask, and the request read as one after a tool's result
    (`classifier.asks.user_messages`). `system`: the system prompt of `messages`
    (`task_ask`)."""
    return langroid.tool_result(messages, index, system) or hermes.tool_result(
        messages, index, system
    )
