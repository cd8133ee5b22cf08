"""The readings an app fixes whatever its request asks: its reply's form is given by the app,
so the work is known before the ask is read (`classifier.request.RequestView.fixed`,
`classifier.rules.rule_intent`).

One value each, of a label, a confidence and the reason `explain` shows, so that a new app's
fixed reading is one row in `classifier.request`'s table and not a new field and a new rule.
"""

from __future__ import annotations

from typing import NamedTuple

from classifier.intent import Label

# A rule's certainty where the request's form alone says the work (a forced call, a reply
# that must be code or name a tool)
FORCED_CONFIDENCE = 0.97
# An ask in a coding agent's session that names a source file (`named_source_file`) is
# coding at this confidence, as sure as an ask for an offered tool is tool use; so are the
# summary requests that ask nothing (OpenHands' condenser's, browser-use's, Letta's)
FILE_CONFIDENCE = 0.9

CODE_ANSWER = (
    "its reply must be code: a smolagents CodeAgent's step, Shell-GPT's shell, code or"
    " describe-shell role, Vanna's SQL prompt, jupyter-ai's code format, gpt-engineer's"
    " prompts, rawdog's script, ai-shell's command, revision or explanation prompt or"
    " gptcli's bash assistant"
)
COMMIT_MESSAGE = (
    "commit_message: opencommit's or aicommits' prompt: a commit message for a git diff,"
    " whatever the diff changes"
)
TOOL_STEP = "a DSPy ReAct step: its reply must name a tool"
TOOL_CALL_STEP = (
    "smolagents: a ToolCallingAgent's step (txtai's Agent's too): its rules force a tool call"
)
CONDENSER = "OpenHands' condenser's summary request: its agent's session work"
BROWSER_STEP = "a browser-use agent step: its reply is its next browser actions"
BROWSER_COMPACTION = "browser-use's history compaction: its agent's browsing work"
GRADER = (
    "an eval tool's grader (promptfoo's, inspect_ai's, deepeval's, ragas's, evalscope's): it"
    " judges an answer against criteria"
)
MEMORY_SUMMARY = "Letta's compaction summary: its memory written in a fixed form, whatever it holds"
FIXED_FORM = "n8n's extractor, text classifier or sentiment node, or an output fix-up: a given form"
MARVIN_FORM = "Marvin's extract, classify or cast task: a given form over the data it is given"
MEMORY_EXTRACTION = "mem0's memory extraction, update or summary: its app's background job"
RESEARCH_REPORT = "gpt-researcher's report request: a detailed report, whatever its research found"
TASK_RECORD = "Taskmaster's planning prompt: a task record in its form, whatever the user asked"
ROUTE_CHOICE = "mcp-agent's LLM router or intent classifier: given labels in a given JSON form"
ROLEPLAY = (
    "sillytavern: SillyTavern's default main prompt: a character's next reply in a fictional"
    " chat, role-play whatever the user's turn says"
)
AGENT_CHOICE = (
    "fast-agent's router or orchestrator planner: an agent's name, or a plan of its agents,"
    " in its given form"
)


class Fixed(NamedTuple):
    """The reading the request's app fixes whatever the ask: its label, the rule's
    confidence and the reason `explain` shows; `side` when the request only picks who does
    the work, a side request that pins nothing (`classifier.side_request`)."""

    label: Label
    confidence: float
    reason: str
    side: bool = False


CODE_ANSWER_READING = Fixed("coding", FORCED_CONFIDENCE, CODE_ANSWER)
# A code change described in git's form, as sure as a described shell command
# (`classifier.commit_message`)
COMMIT_MESSAGE_READING = Fixed("coding", FORCED_CONFIDENCE, COMMIT_MESSAGE)
TOOL_STEP_READING = Fixed("tool_calling", FORCED_CONFIDENCE, TOOL_STEP)
# A forced call in its prompt's words, as sure as one by `tool_choice` (`classifier.smolagents`)
TOOL_CALL_STEP_READING = Fixed("tool_calling", FORCED_CONFIDENCE, TOOL_CALL_STEP)
# No ask and no key to its session (`classifier.openhands`)
CONDENSER_READING = Fixed("coding", FILE_CONFIDENCE, CONDENSER)
# Whatever the task, it picks tools (`classifier.browser_use`)
BROWSER_STEP_READING = Fixed("tool_calling", FORCED_CONFIDENCE, BROWSER_STEP)
# No ask, as OpenHands' condenser's
BROWSER_COMPACTION_READING = Fixed("tool_calling", FILE_CONFIDENCE, BROWSER_COMPACTION)
# One judge for every graded answer, whatever it grades
GRADER_READING = Fixed("reasoning", FORCED_CONFIDENCE, GRADER)
# No ask, and no one kind of work in its agent's (`classifier.letta`)
MEMORY_SUMMARY_READING = Fixed("instruction", FILE_CONFIDENCE, MEMORY_SUMMARY)
# A label or fields of a given text (`classifier.n8n`)
FIXED_FORM_READING = Fixed("instruction", FORCED_CONFIDENCE, FIXED_FORM)
# Entities, a label or a type of the data given, alike (`classifier.marvin`)
MARVIN_FORM_READING = Fixed("instruction", FORCED_CONFIDENCE, MARVIN_FORM)
# A memory layer's JSON or summary of a chat routed when it was said, kept local with the
# user's facts in it (`classifier.mem0`)
MEMORY_EXTRACTION_READING = Fixed("instruction", FORCED_CONFIDENCE, MEMORY_EXTRACTION)
# A report of a thousand words and more, documents found or none (`classifier.gpt_researcher`)
RESEARCH_REPORT_READING = Fixed("writing", FORCED_CONFIDENCE, RESEARCH_REPORT)
# A software project's tasks in JSON of given keys, a blog post's task too (`classifier.taskmaster`)
TASK_RECORD_READING = Fixed("instruction", FORCED_CONFIDENCE, TASK_RECORD)
# A category or an intent of those listed, as n8n's Text Classifier's (`classifier.mcp_agent`)
ROUTE_CHOICE_READING = Fixed("instruction", FORCED_CONFIDENCE, ROUTE_CHOICE, side=True)
# A name out of the agents listed, or a plan naming them, whatever the ask (`classifier.fast_agent`)
AGENT_CHOICE_READING = Fixed("instruction", FORCED_CONFIDENCE, AGENT_CHOICE, side=True)
# Fiction, whatever the turn's words (`classifier.sillytavern`): role-play is prose
ROLEPLAY_READING = Fixed("prose", FORCED_CONFIDENCE, ROLEPLAY)
