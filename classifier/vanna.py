"""Vanna's requests: its legacy SQL prompt, whose reply must be SQL, with its example
question-SQL pairs before the user's question; and its Agent's tool loop.

Vanna's legacy API (`VannaBase.generate_sql`; `vanna/base/base.py` in 0.x,
`vanna/legacy/base/base.py` in 2.x) asks for a question's SQL with `get_sql_prompt`: one
system prompt of the database's tables and documentation, then its trained question-SQL
pairs as user and assistant turns (`get_similar_question_sql`), then the user's question.
Read by its topic, the question went elsewhere: "What is the total revenue per country?"
was math 0.797, "Which country has the most customers?" reasoning 0.918, each on the cloud
(found running vanna 2.0.2 against the router). Yet the user asked for SQL: coding work, as
a Shell-GPT code role's ask is (`RequestView.fixed`, `classifier.rules.rule_intent`).
Told by its system prompt, exactly (`asks_for_sql`): from 0.5.0 on it ends with
`SQL_GUIDELINES` (6. naming the dialect from 0.6.0 on), whatever opening the user configured
(`initial_prompt`; vanna's own is "You are a {dialect} expert. Please help to generate a
SQL query..."); before 0.5.0 it opened with `OLD_OPENING`. A user's own "You are a SQL
expert" prompt is read as written. Its other prompts (the plotly code, the follow-up
questions, the summary) are read as they are: they ask for what they say.

Its example pairs are the same on every question a trained instance asks: read as the first
ask, they keyed every question as one conversation, one cloud turn's sticky pin holding all
of them (found in review). So they are passed over in its SQL prompt only (`passed_over`,
`classifier.frameworks`), as Aider's example conversation is (`classifier.aider`): the
question, always its last message, is its first ask and keys the request
(`router.conversation.conversation_key`).

Vanna 2.0's Agent (`DefaultSystemPromptBuilder`, `vanna/core/system_prompt/default.py`)
opens its system prompt with `AGENT_IDENTITY` and offers its tools with `tool_choice`
"auto": "What is the total revenue per country?" was math 0.402 on the cloud, though
answering it is a call of its `run_sql` (found in review). With one of its tools offered
(`AGENT_TOOLS`), its asks are its tools' work, tool_calling unless the model reads them
clearly as other work (`agent_session`, `classifier.rules.session_intent`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice
from typing import Any

from classifier.message import System, per_text
from classifier.toolset import tool_name

# The Response Guidelines `get_sql_prompt` ends its system prompt with, 0.5.0 to 2.x, as
# sent ("{dialect}" is the instance's: "SQLite", "PostgreSQL", "T-SQL / Microsoft SQL
# Server", the `dialect` config's, "SQL" by default)
SQL_GUIDELINES = (
    "===Response Guidelines \n"
    "1. If the provided context is sufficient, please generate a valid SQL query without any"
    " explanations for the question. \n"
    "2. If the provided context is almost sufficient but requires knowledge of a specific"
    " string in a particular column, please generate an intermediate SQL query to find the"
    " distinct strings in that column. Prepend the query with a comment saying"
    " intermediate_sql \n"
    "3. If the provided context is insufficient, please explain why it can't be generated. \n"
    "4. Please use the most relevant table(s). \n"
    "5. If the question has been asked and answered before, please repeat the answer exactly"
    " as it was given before. \n"
)
# ...and its sixth, from 0.6.0 on
DIALECT_GUIDELINE = (
    r"6\. Ensure that the output SQL is [^\n]{1,64}-compliant and executable, and free of"
    r" syntax errors\. \n"
)
_GUIDELINES_END = re.compile(re.escape(SQL_GUIDELINES) + f"(?:{DIALECT_GUIDELINE})?" + r"\Z")
# How far from the system prompt's end the guidelines are looked for (some 800 characters)
GUIDELINES_WITHIN = 1024
# `get_sql_prompt`'s opening before 0.5.0 (0.3.4's; its DDL and documentation after it)
OLD_OPENING = (
    "The user provides a question and you provide SQL. You will only respond with SQL code"
    " and not with any explanations.\n\nRespond with only SQL code. Do not answer with any"
    " explanations -- just the code.\n"
)
# How the Agent's default system prompt opens (the date of the day after it)
AGENT_IDENTITY = (
    "You are Vanna, an AI data analyst assistant created to help users with data analysis"
    " tasks. Today's date is "
)
# The Agent's tools (`vanna/tools`, 2.0.2): SQL, charts, its memory, files, Python
_AGENT_TOOLS = (
    "run_sql visualize_data search_saved_correct_tool_uses save_question_tool_args"
    " save_text_memory search_files list_files read_file write_file edit_file"
    " run_python_file pip_install"
)
AGENT_TOOLS = frozenset(_AGENT_TOOLS.split())
SCAN_TOOLS = 16  # of a request's tools, read for one of `AGENT_TOOLS`


def asks_for_sql(system: System) -> bool:
    """Whether a request is Vanna's SQL prompt: its system prompt (`system`, one text) ends
    with `SQL_GUIDELINES` (and the dialect's sixth, `DIALECT_GUIDELINE`), or opens with
    `OLD_OPENING`. Its reply is SQL, whatever the question reads as."""
    text = system.prompt
    return text is not None and _sql_prompt(text)


@per_text
def _sql_prompt(text: str) -> bool:
    """`asks_for_sql` of a system prompt's text, kept for it (`per_text`): read for each
    user message a request's asks are looked for among (`passed_over`)."""
    if text.startswith(OLD_OPENING):
        return True
    return _GUIDELINES_END.search(text, max(0, len(text) - GUIDELINES_WITHIN)) is not None


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is one of the example questions of
    Vanna's SQL prompt (`asks_for_sql` of `system`, the system prompt of `messages`): an
    assistant message (its SQL) follows it. The user's question is the prompt's last
    message, with none after it."""
    after = messages[index + 1] if index + 1 < len(messages) else None
    return isinstance(after, dict) and after.get("role") == "assistant" and asks_for_sql(system)


def agent_session(system: System, tools: Sequence[Any]) -> bool:
    """Whether a request of the system prompt `system` and `tools` is Vanna's Agent's: its
    system prompt opens with `AGENT_IDENTITY`, and one of its tools (`AGENT_TOOLS`) is among
    the first `SCAN_TOOLS` offered."""
    opening = system.opening
    if opening is None or not opening.startswith(AGENT_IDENTITY):
        return False
    names = (tool_name(tool) for tool in islice(tools, SCAN_TOOLS))
    return any(isinstance(name, str) and name in AGENT_TOOLS for name in names)
