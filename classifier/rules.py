"""Deterministic signals that beat the model: tool use forced or clearly asked for, and a
coding agent's session, where only an ask the model clearly reads as other work is not coding.

`tool_choice` forcing a call means a tool call whatever the text says (but in a Letta agent's
request, where a forced call of `send_message` is how it answers: `classifier.letta`, and in a
Marvin task's, where its end-turn tool is: `classifier.marvin`), a smolagents
CodeAgent's request, whose reply must be code, coding work (`classifier.smolagents`), as are
Shell-GPT's code roles', Vanna's SQL prompt's, gpt-engineer's, rawdog's and ai-shell's
(`classifier.shell_gpt`, `classifier.vanna`, `classifier.gpt_engineer`, `classifier.rawdog`,
`classifier.ai_shell`), and opencommit's and aicommits' requests, a commit message for a git
diff whatever it changes (`classifier.commit_message`), and a
DSPy ReAct step, whose reply must name a tool, a tool call (`classifier.dspy`), and
OpenHands' condenser's summary request, which asks nothing, its agent's coding work
(`classifier.openhands`); a browser-use agent step, whose reply is its next browser
actions, and its history compaction, tool calls (`classifier.browser_use`); and an eval
tool's grader's request, which judges an answer against criteria, reasoning whatever the
answer is about (`classifier.promptfoo`, `classifier.inspect_ai`, and deepeval's, ragas's and
evalscope's judges: `classifier.deepeval`, `classifier.ragas`, `classifier.evalscope`); and
Letta's compaction's summary request, a summary in a fixed form whatever it summarizes, instruction
(`classifier.letta`), as are n8n's extractor and classifier nodes and Marvin's extract,
classify and cast tasks, a given form over a given text (`classifier.n8n`,
`classifier.marvin`), and mem0's memory extraction, update and procedural summary, its app's
background job over a chat already routed (`classifier.mem0`); and gpt-researcher's report
request, a detailed report whatever its research found, writing (`classifier.gpt_researcher`);
and Taskmaster's planning prompts, a task record in its form whatever the ask, instruction
(`classifier.taskmaster`), as are fast-agent's router's call and its orchestrator's plan, an
agent's name or a plan of its agents in its form (`classifier.fast_agent`).
Tools offered with a request that names one (two words of its name, in order, or its whole name
or a part of it in "use the <name> tool") or asks to look up, search, book, send… is tool use
too, as is an ask that has an agent of agency-swarm's agency do the work, with its
`send_message` offered (`classifier.agency_swarm`). Tools merely present are only a weak
prior: coding agents send their tool schemas on every turn, their descriptions are never
compared, and their built-in tools
(`classifier.harness_tools.HARNESS_TOOLS`) cannot be named. Those tools, or an agent's text in
a user turn, say the request comes from a coding agent's session (`session_intent`), where an
ask that names a source file ("add a main guard to haiku.py") is coding whatever the model
reads (`named_source_file`), and so is one outside such a session with a tool offered that
can read files or run commands, an agent with a shell alone ("Explain what calc.py does.":
`offered_file_intent`). Vanna's
Agent's session is its tools' work alike: its asks are tool_calling unless the model clearly
reads other work (`session_intent`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from itertools import pairwise

from classifier.agency_swarm import named_recipient
from classifier.features import tokens
from classifier.fixed import (  # noqa: F401 -- its reasons, imported from here too
    AGENT_CHOICE,
    BROWSER_COMPACTION,
    BROWSER_STEP,
    CODE_ANSWER,
    COMMIT_MESSAGE,
    CONDENSER,
    FILE_CONFIDENCE,
    FIXED_FORM,
    FORCED_CONFIDENCE,
    GRADER,
    MARVIN_FORM,
    MEMORY_EXTRACTION,
    MEMORY_SUMMARY,
    RESEARCH_REPORT,
    TASK_RECORD,
    TOOL_STEP,
)
from classifier.intent import INTENTS, Intent
from classifier.request import RequestView
from classifier.source_files import named_source_file
from classifier.tool_parts import IMPERATIVE, TOOL_VERBS, asked_part, name_words

ASKED_CONFIDENCE = 0.9
# The model's probabilities for a view (`classifier.decision`): how `session_intent` reads
# the latest ask alone, without the first ask weighted in
Reading = Callable[[RequestView], list[float]]
TOOL_AGENT = "tool_agent: Vanna's Agent with its tools offered"
OFFERED_FILE = "tools_offered: a shell or file tool offered, and the ask names a source file"
TOOLS_PRIOR = 2.0  # odds multiplier for tool_calling when tools are offered but not asked for
# In a coding agent's session, the model's probability of work other than coding
# (`_OTHER_WORK`) that an ask must reach to be that work: the odds of 19 to 1 for coding
# work that the floor stands for (`session_intent`)
AGENT_FLOOR = 0.95
# In a coding agent's session, the model's first reading of coding work stands from even
# odds on: below, it is less sure than the floor's rule ever is (0.5 at `AGENT_FLOOR`, for
# any floor), and that rule decides (`session_intent`)
_EVEN = 0.5
_CODING_WORK = frozenset(INTENTS.index(i) for i in ("coding", "tool_calling", "instruction"))
_OTHER_WORK = tuple(i for i in range(len(INTENTS)) if i not in _CODING_WORK)
_ASK_PHRASES = (
    "use the tool", "use your tool", "use the function", "call the", "using the tool",
    "use the api", "look up", "look it up", "search for", "search the", "check the weather",
    "send an email", "send a message", "book a", "set an alarm", "set a reminder",
)  # fmt: skip
# A request that asks for an offered tool by its whole name: "use the multiply tool", "call
# the `get_weather` function", "with the search tool". Only in this phrase and only an
# offered tool's name (`_named_phrase`): "Use the multiply tool to compute 1234 times 5678."
# with `multiply` offered was math 0.68 (a one-word name has no pair for `tool_words`, found
# in review), while "use the hammer tool in Photoshop" offers no `hammer`, and a tool named
# `search` is not asked for by "search the web" (the phrases above decide that one). A
# "function" is code's word as much as a tool's: only an imperative use, call, run or invoke
# opening a sentence (or after "please", "you", "then") asks for one. "What's wrong with the
# search function in my code?" with `search` offered was tool_calling 0.9 (coding 0.99 by the
# model), and so were "calling the fetch function in my React component", "help with the
# login function", and "a KeyError when calling the save function in storage.py" in a gptme
# session (found in review).
_FUNCTION_VERBS = r"(?:use|call|run|invoke)"
_STOP_TEXT = (
    "the a an and or of to in on for with from by is are be get set this that it your you "
    "my me what how can please use using tool tools function api given data into"
)
_STOP = frozenset(_STOP_TEXT.split())
# How much of the latest ask is looked at for a tool asked for by its name's parts
# (`classifier.tool_parts`): its opening, as for two words of a name
_PART_CHARS = 600


@lru_cache(maxsize=256)
def tool_words(tool_names: str) -> frozenset[tuple[str, str]]:
    """The pairs of consecutive content words in each tool's name (`get_current_weather`,
    `getCurrentWeather`, `get-current-weather` give `("current", "weather")`); a name of one
    content word gives none, and cannot be named, nor can an agent's own, which the view
    leaves out of `tool_names` (`classifier.harness_tools.HARNESS_TOOLS`).
    Cached: agents send the same tools on every turn."""
    return frozenset(pair for name in tool_names.split(" ") for pair in _pairs(name_words(name)))


@lru_cache(maxsize=256)
def _named_phrase(tool_names: str) -> re.Pattern[str] | None:
    """The phrase that asks for one of the offered tools by its whole name (`TOOL_VERBS`,
    "the" or "your", the name, bare or in backticks or quotes, then "tool"; or an imperative
    `_FUNCTION_VERBS` so, then "function"), any case; None when no tool is offered. Cached,
    as `tool_words` is."""
    names = sorted({n for n in tool_names.split(" ") if n}, key=len, reverse=True)
    if not names:
        return None
    name = "|".join(map(re.escape, names))
    return re.compile(
        rf"\b{TOOL_VERBS}\s+(?:the|your)\s+(?P<q>[`'\"]?)(?P<tool>{name})(?P=q)\s+tool\b"
        rf"|{IMPERATIVE}{_FUNCTION_VERBS}\s+(?:the|your)\s+(?P<fq>[`'\"]?)"
        rf"(?P<function>{name})(?P=fq)\s+function\b",
        re.IGNORECASE,
    )


def _pairs(words: list[str]) -> Iterator[tuple[str, str]]:
    """Consecutive pairs of the content words among `words` (stop words and short ones are
    skipped: "apply the patch" pairs `apply` with `patch`)."""
    content = [t for t in words if len(t) > 3 and t not in _STOP]
    return pairwise(content)


def asks_for_tools(v: RequestView) -> str | None:
    """Why the latest message asks for the offered tools, or None if it does not: an asking
    phrase, an offered tool's whole name in one ("use the multiply tool": `_named_phrase`) or a
    part of its name ("use the calculator" for griptape's `CalculatorTool_calculate`:
    `classifier.tool_parts`), or two content words of a tool's name, one after the other as
    in the name ("the current weather" names `get_current_weather`). Names, not
    descriptions: an agent's tools are described in everyday words, and two of them in
    common with an ask made "Make the export command write a CSV file" tool_calling (found
    in review). In order and together, not anywhere: with a `todo_write` tool offered,
    "write a todo app" names none. And never an agent's built-in tools
    (`classifier.harness_tools.HARNESS_TOOLS`): "store the todo write timestamp" is no call
    of Claude Code's TodoWrite, nor "use the Bash tool" one. With agency-swarm's
    `send_message` offered, an ask that has one of its recipients do the work ("Have the
    Developer check the build") asks for it (`classifier.agency_swarm`)."""
    low = v.latest.lower()
    for phrase in _ASK_PHRASES:
        if phrase in low:
            return f"asks: {phrase!r}"
    by_name = _named_phrase(v.tool_names)
    if by_name is not None and (found := by_name.search(v.latest)):
        name = found["tool"] or found["function"]
        return f"asks for an offered tool by its name: {name.lower()}"
    if (part := asked_part(v.tool_names, v.latest[:_PART_CHARS])) is not None:
        return f"asks for an offered tool by its name's part: {part}"
    if (agent := named_recipient(v.recipients, v.latest[:_PART_CHARS])) is not None:
        return f"has an agent of its agency do it: {agent}"
    named = tool_words(v.tool_names)
    if not named:
        return None
    for pair in _pairs(tokens(v.latest[:600])):
        if pair in named:
            return "names an offered tool: " + " ".join(pair)
    return None


def rule_intent(v: RequestView) -> tuple[Intent, str] | None:
    """The intent and the rule that decided it, when a rule is certain."""
    if v.tool_forced and not v.reply_channel:  # Letta's, Marvin's answer by a call: no tool request
        return Intent("tool_calling", FORCED_CONFIDENCE, "rule"), "tool_choice forces a call"
    if v.fixed is not None:  # the app's reading, whatever the ask (`classifier.fixed`)
        return Intent(v.fixed.label, v.fixed.confidence, "rule"), v.fixed.reason
    if v.has_tools:
        why = asks_for_tools(v)
        if why:
            return Intent("tool_calling", ASKED_CONFIDENCE, "rule"), f"tools offered and {why}"
    return None


def agent_session(v: RequestView) -> str | None:
    """Why `v` comes from a coding agent's session, or None: three or more of an agent's
    built-in tools offered (`classifier.harness_tools.HARNESS_SEEN`), or an agent's text cut
    from the latest or the first ask (`classifier.harness`). Not a tool result alone: any
    app that calls tools ends a turn with one, a weather bot's or a mail client's."""
    if v.agent_tools:
        return "an agent's built-in tools offered"
    if v.harness_cut:
        return "an agent's text in a user turn"
    return None


def session_intent(
    v: RequestView, p: list[float], read: Reading | None = None
) -> tuple[Intent, str] | None:
    """Coding, and the rule that decided it, when `v` comes from a coding agent's session
    (`agent_session`) and the model's probabilities `p` read its ask as other work than
    coding (math, reasoning, prose, writing first), either not clearly (their sum is below
    `AGENT_FLOOR`) or whatever they read when the ask names a source file
    (`classifier.source_files`), or as coding work (coding, tool_calling, instruction
    first) at less than even odds (`_EVEN`); tool_calling so in Vanna's Agent's
    (`tool_session`). None otherwise: the model's reading stands.

    An agent's session is coding work unless the ask clearly is not: "write unit tests for
    build_parser" was writing 0.57, "why does main() return 0 even when the upload fails?"
    reasoning 0.71, "explain what sync_dir does" reasoning 0.88, each on the cloud (found in
    review: 10 to 13 of 34 typical asks in opencode, Continue, Goose and Claude Code). The
    model never trained on an agent's short asks; "write a haiku about autumn leaves" (prose
    1.00), an integral (math 0.99) stay what they are. The sum of the other work, not its
    first intent alone: an ask read as 0.5 writing and 0.45 reasoning is clearly not coding.
    But "add a main guard to haiku.py" was prose 0.989 in Kimi CLI's session, by "haiku"
    (found in a live review): an ask that names a source file is for the agent to read or
    edit it, coding at `FILE_CONFIDENCE`. Outside an agent's session only with a shell or a
    file tool offered (`offered_file_intent`): in a chat app, with no tools or its web
    search alone, "write a haiku about my script deploy.sh" is the prose the model reads.

    The confidence of the floor's rule is the model's probability of coding work (coding,
    tool_calling, instruction) with the odds the floor stands for applied, `AGENT_FLOOR /
    (1 - AGENT_FLOOR)` to 1: above 0.5 whenever the rule decides, near it when the model's
    other reading came near the floor, so `classifier.min_confidence` sends no ask this
    rule decides to the default route but where it is set above 0.5.

    A reading of coding work stands when the model holds it at even odds or better: "run
    the tests" is tool_calling 0.80 in Claude Code's session, a call of its Bash, and stays
    so (the rule would make it coding 0.99: its confidence is always above the model's
    first coding-work reading, so "below the rule's" would take every such reading). Below
    even odds the reading was less sure than the rule is of any ask it decides, an
    inversion found in review: "Read the config loader and write a test for it." was coding
    0.29 by the model in Claude Code's session, tool_calling 0.27 in Codex's, both below
    `min_confidence` (the default route), while "explain what sync_dir does", read as
    reasoning 0.79, was coding 0.79 by this rule. The floor's rule decides them too, coding
    at its confidence (0.97 and 0.96); a tool_calling or instruction reading that unsure
    names no call the agent was asked for (a coding reading alone would have left Codex's
    ask on the default route).

    The floor is judged on the latest ask alone too (`read`, the model's reading of a view;
    `_clear_alone`): in Aider's session that had fixed a bug in calc.py, "Write a haiku
    about autumn leaves." was prose 0.923, other work 0.934 with the first ask, the bug's
    fix, weighted in, and went coding to the local backend, where the same words as the
    session's first ask were prose 0.998 (found in a live review). The first ask is read
    to tell a session's short follow-ups ("now add tests") by what it is about, so it
    must not hold down an ask that alone is clearly other work: when the model reads the
    latest ask alone at the floor or above, and the request too as other work first, its
    reading of the request stands (the one `explain` shows; both name other work). Only
    then: an ask the model reads as coding work first was read as the agent's work with
    the session around it, and keeps the even-odds rule above, and one that names a source
    file is coding. Not clear alone, an ask stays coding: "What is 17 * 23? Explain your
    steps." is other work 0.892 alone, in Aider's session a question the local coding
    model answers. A second pass of the model, bounded: only in an agent's session with a
    first ask of its own, when this rule would otherwise decide, never more than one, the
    system prompt and tools read as before (the first ask's features are the part left
    out). Vanna's Agent's session (`tool_session`) is judged on the request alone still."""
    why = agent_session(v)
    if why is None:
        return tool_session(v, p) if v.tool_agent else offered_file_intent(v, p)
    first = max(range(len(p)), key=p.__getitem__)
    if first in _CODING_WORK and p[first] >= _EVEN:
        return None
    if first not in _CODING_WORK and (name := named_source_file(v.latest)) is not None:
        rule = f"agent_session: {why}, and the ask names a source file: {name[-80:]}"
        return Intent("coding", FILE_CONFIDENCE, "rule"), rule
    floor = _below_floor(p)  # never None when coding work is first: the other is below 6/7
    if floor is None or (first not in _CODING_WORK and _clear_alone(v, read)):
        return None
    other, confidence = floor
    rule = f"agent_session: {why}, and other work than coding read {other:.3f} < {AGENT_FLOOR}"
    if first in _CODING_WORK:
        rule += f", the model's {INTENTS[first]} {p[first]:.3f} < {_EVEN}"
    return Intent("coding", confidence, "rule"), rule


def offered_file_intent(v: RequestView, p: list[float]) -> tuple[Intent, str] | None:
    """Coding at `FILE_CONFIDENCE`, and the rule that decided it, when `v` offers a tool that
    can read files or run commands (`RequestView.file_tools`, `classifier.file_tools`)
    outside a coding agent's session (`agent_session`: none of its built-in tools or text)
    and its latest ask names a source file (`classifier.source_files`) that the model's
    probabilities `p` read as other work than coding; None otherwise.

    An agent with a shell alone is no known agent's session: in open-codex (one `shell`
    tool), "Explain what calc.py does." was reasoning 0.89 by "explain" and "does", and
    went to the cloud (found in a live review). An ask that names a source file, with a tool
    offered that can open it, is for the app to read or edit that file. Any tool is not the
    line: a chat app's `web_search` or `fetch_url` opens no file, and with one offered "write
    a haiku about my script deploy.sh", "What is docs.rs?" and a link written without its
    scheme ("paulgraham.com/greatwork.html", no file either: `classifier.source_files`) were
    coding 0.90 (found in review); they stay the model's, as with no tools at all.

    With a shell offered the rule decides whatever other work the model reads, creative
    work too, as in an agent's session (`session_intent`): "write a haiku about my script
    deploy.sh" is coding there. The model's confidence cannot say which asks are the app's
    work: "add a main guard to haiku.py", an edit of the file, is prose 0.96 by "haiku",
    the haiku prose 0.99 (2026-12-07). A haiku sent to the coding model is a small loss;
    an edit sent to the cloud without its file is a wrong answer. A reading of coding work
    (coding, tool_calling, instruction) stands, as in an agent's session ("run the tests in
    calc.py" is a call of the shell); an ask for an offered tool by name was decided before
    (`rule_intent`)."""
    if not v.file_tools or _reads_coding_work(p):
        return None
    name = named_source_file(v.latest)
    if name is None:
        return None
    return Intent("coding", FILE_CONFIDENCE, "rule"), f"{OFFERED_FILE}: {name[-80:]}"


def tool_session(v: RequestView, p: list[float]) -> tuple[Intent, str] | None:
    """Tool_calling, and the rule that decided it, when `v` is Vanna's Agent's with its tools
    offered (`RequestView.tool_agent`, `classifier.vanna.agent_session`) and the model's
    probabilities `p` read its ask as other work than coding, not clearly (below
    `AGENT_FLOOR`); None otherwise. Answering a data analyst's ask is a call of its
    `run_sql`: "What is the total revenue per country?" was math 0.402, on the cloud (found
    in review). As in a coding agent's session, an ask clearly of other work ("write a haiku
    about autumn leaves") stays what it is, one the model reads as coding work stays the
    model's, and the confidence is figured alike. No coding agent's session: an ask that
    names a source file gets no rule of its own."""
    if not v.tool_agent or _reads_coding_work(p) or (floor := _below_floor(p)) is None:
        return None
    other, confidence = floor
    rule = f"{TOOL_AGENT}, and other work than its tools' read {other:.3f} < {AGENT_FLOOR}"
    return Intent("tool_calling", confidence, "rule"), rule


def _clear_alone(v: RequestView, read: Reading | None) -> bool:
    """Whether the model, by `read`, reads `v`'s latest ask alone (its first ask left out)
    as other work than coding at `AGENT_FLOOR` or above (`session_intent`); False when
    there is no reader or no first ask of its own, which `v`'s reading was already."""
    if read is None or not v.first:
        return False
    return _below_floor(read(v._replace(first=""))) is None


def _reads_coding_work(p: list[float]) -> bool:
    """Whether the model's first intent in `p` is coding work (coding, tool_calling,
    instruction): then its reading stands in an agent's session."""
    return max(range(len(p)), key=p.__getitem__) in _CODING_WORK


def _below_floor(p: list[float]) -> tuple[float, float] | None:
    """The model's probability of other work than coding in `p`, and the floor's rule's
    confidence (`session_intent`), when that is below `AGENT_FLOOR`; None when it is not."""
    other = sum(p[i] for i in _OTHER_WORK)
    if other >= AGENT_FLOOR:
        return None
    work = sum(p[i] for i in _CODING_WORK) * AGENT_FLOOR / (1 - AGENT_FLOOR)
    return other, round(work / (work + other), 4)
