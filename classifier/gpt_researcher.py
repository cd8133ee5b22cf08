"""gpt-researcher's own requests: its report, written from whatever its research found, and
its sub-queries, read by the research task inside.

gpt-researcher (0.15.1, Apache-2.0: `gpt_researcher/prompts.py` `generate_report_prompt` and
`generate_search_queries_prompt`, `gpt_researcher/actions/report_generation.py`,
`gpt_researcher/actions/agent_creator.py`) runs a research task as three requests: it picks
an agent (the task as "task: {query}" under its agent instructions, read as written), asks
for search queries, and writes the report.

The report request is the agent's role prompt as the system message (the default agent's
"You are an AI critical thinker research assistant. ...", or the one the agent choice
wrote) and `REPORT` filled as the one user message: the documents found in
`Information: "..."`, the task, then the report's guidelines. When that request fails,
gpt-researcher sends it once more with the role prompt folded into the user message
("{role}\\n\\n" before it). Read as written, the route followed what the research found: its
documents made it writing (0.46-0.50, cloud), right only by the template's words; with none
(`Information: "[]"`, the embeddings refused) instruction 0.55 (local), and the folded retry
of the same report instruction 0.51 (local) (found running gpt-researcher against the
router). Either way it asks for the same work, a detailed report of a thousand words and
more, so it is read by one rule (`classifier.fixed.RESEARCH_REPORT`): writing, whatever the
documents hold.

The sub-query request is `SUBQUERIES` filled as the one user message, meant for its
strategic model: read whole, its fixed words made every task instruction (0.74-0.86, local;
"prove sqrt 2 irrational" alone is math 0.98). The task quoted inside is its ask
(`query_ask`), read as the task asked alone would be, as Haystack's query expander's is
(`classifier.haystack`), and keys the request marked as gpt-researcher's (`framed`): the
task's sub-queries on any day are one conversation, a chat asking its words another.

Only gpt-researcher's texts whole, where it sends them (one user message, after one system
message at most for the report): a user who pastes the report's guidelines into a chat,
or words after them, is read as written. Its report with images appended ("AVAILABLE
IMAGES:"), a custom prompt, and its other report types' prompts are read as written too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import System, one_text
from classifier.templates import fills, fixed_parts

# `generate_report_prompt`'s text (its f-string's fields as placeholders: `{date}` is
# `date.today()`; `reference_prompt` names urls for a web report, documents for a local one)
REPORT = (
    '\nInformation: "{context}"\n'
    "---\n"
    'Using the above information, answer the following query or task: "{question}" in a'
    " detailed report --\n"
    "The report should focus on the answer to the query, should be well structured,"
    " informative,\n"
    "in-depth, and comprehensive, with facts and numbers if available and at least"
    " {total_words} words.\n"
    "You should strive to write the report as long as you can using all relevant and"
    " necessary information provided.\n"
    "\n"
    "Please follow all of the following guidelines in your report:\n"
    "- You MUST determine your own concrete and valid opinion based on the given information."
    " Do NOT defer to general and meaningless conclusions.\n"
    "- You MUST write the report with markdown syntax and {report_format} format.\n"
    "- Structure your report with clear markdown headers: use # for the main title, ## for"
    " major sections, and ### for subsections.\n"
    "- Use markdown tables when presenting structured data or comparisons to enhance"
    " readability.\n"
    "- You MUST prioritize the relevance, reliability, and significance of the sources you"
    " use. Choose trusted sources over less reliable ones.\n"
    "- You must also prioritize new articles over older articles if the source can be"
    " trusted.\n"
    "- You MUST NOT include a table of contents, but DO include proper markdown headers (# ##"
    " ###) to structure your report clearly.\n"
    "- Use in-text citation references in {report_format} format and make it with markdown"
    " hyperlink placed at the end of the sentence or paragraph that references them like"
    " this: ([in-text citation](url)).\n"
    "- Don't forget to add a reference list at the end of the report in {report_format}"
    " format and full url links without hyperlinks.\n"
    "- {reference_prompt}\n"
    "- {tone_prompt}\n"
    "You MUST write the report in the following language: {language}.\n"
    "Please do your best, this is very important to my career.\n"
    "Assume that the current date is {date}.\n"
)
# The default agent's role prompt (`agent_creator.py`), the system message when the agent
# choice found none
DEFAULT_ROLE = (
    "You are an AI critical thinker research assistant. Your sole purpose is to write well"
    " written, critically acclaimed, objective and structured reports on given text."
)
# `generate_search_queries_prompt`'s text (`{context_prompt}` is "" without web context)
SUBQUERIES = (
    'Write {max_iterations} search queries to research the following task: "{task}"\n'
    "\n"
    "Each query must be a plain natural language phrase. Do not use search operator syntax\n"
    "such as site:, filetype:, inurl:, intitle:, OR, AND, or NOT — these operators are\n"
    "not universally supported and will return empty results on many search backends.\n"
    "\n"
    "Assume the current date is {date} if required.\n"
    "\n"
    "{context_prompt}\n"
    "You must respond with a list of strings in the following format: [{example}].\n"
    "The response should contain ONLY the list.\n"
)
_PLACEHOLDER = re.compile(
    r"\{(?:context|question|total_words|report_format|reference_prompt|tone_prompt|language"
    r"|date|max_iterations|task|context_prompt|example)\}"
)
REPORT_PARTS = fixed_parts(REPORT, _PLACEHOLDER)
# The sub-query prompt's opening to the task, its count of queries in it, and its fixed texts
# after the task
SUBQUERIES_OPENING = re.compile(
    r"Write \d{1,4} search queries to research the following task: \"", re.ASCII
)
SUBQUERIES_AFTER = fixed_parts(SUBQUERIES.split("{task}", 1)[1], _PLACEHOLDER)
# The retry's role prompt before the report, at most this long: past it, no fold of
# gpt-researcher's (a role prompt is a paragraph)
ROLE_SPAN = 4_096
# How far past its opening the task's end is looked for: past it, read as written
WITHIN = 65_536


def report_request(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are gpt-researcher's report request: `REPORT` filled as one user
    message after one system message (its agent's role prompt), or with that prompt folded
    before it (its retry). `system`: its system prompt, which any agent's role prompt may be
    (`classifier.request`'s detectors are each given it)."""
    if not messages or len(messages) > 2:
        return False
    first, last = messages[0], messages[-1]
    if not isinstance(last, dict) or last.get("role") != "user":
        return False
    if len(messages) == 2 and (not isinstance(first, dict) or first.get("role") != "system"):
        return False
    text = one_text(last)
    if text is None:
        return False
    if len(messages) == 2:
        return fills(text, REPORT_PARTS)
    return _folded(text)


def _folded(text: str) -> bool:
    """Whether `text` is the report's retry: a role prompt, a blank line, `REPORT` filled."""
    at = text.find("\n\n" + REPORT_PARTS[0], 1, ROLE_SPAN)
    return at > 0 and fills(text[at + 2 :], REPORT_PARTS)


def query_ask(message: object, messages: Sequence[Any]) -> object:
    """The content of `message`, the research task inside it when it is gpt-researcher's
    sub-query prompt whole and the request's one message (`SUBQUERIES`); any other content
    as it is."""
    content = message.get("content") if isinstance(message, dict) else None
    if len(messages) != 1 or messages[0] is not message:
        return content
    text = one_text(message)
    task = _task(text) if text is not None else None
    return content if task is None else task


def framed(messages: Sequence[Any]) -> bool:
    """Whether `messages` are gpt-researcher's sub-query request, read and keyed by its task
    (`query_ask`, `router.conversation.conversation_key`): marked as gpt-researcher's, so
    that a chat asking the task's words alone is another conversation."""
    if len(messages) != 1 or not isinstance(messages[0], dict):
        return False
    return query_ask(messages[0], messages) is not messages[0].get("content")


def _task(text: str) -> str | None:
    """The task quoted in `text` when it is `SUBQUERIES` filled; None otherwise."""
    opening = SUBQUERIES_OPENING.match(text)
    if opening is None:
        return None
    start = opening.end()
    after = SUBQUERIES_AFTER[0]
    end = text.find(after, start, start + WITHIN + len(after))
    if end < 0 or not fills(text[end:], SUBQUERIES_AFTER):
        return None
    return text[start:end]
