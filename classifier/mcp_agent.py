"""mcp-agent's own requests: its parallel workflow's fan-in read by the agents' answers, not
the Python objects it prints them as, and its LLM router's and intent classifier's templates
read as the classification they ask for.

mcp-agent (pypi `mcp-agent` 0.2.6, lastmile-ai, on the openai SDK:
`workflows/parallel/fan_in.py`, `workflows/router/router_llm.py`,
`workflows/intent_classifier/intent_classifier_llm.py`) sends these as chat requests:

- ParallelLLM's fan-in: the fan-out agents' messages, each written `f"Agent {name}:
  {str(msg)}"` (`FanIn.aggregate_agent_messages`), an agent's messages a line apart, the
  agents a blank line apart, after `FAN_IN_HEADER`, as the fan-in agent's one user message.
  Each `msg` is an openai SDK `ChatCompletionMessage`, whose `str` is its Python
  representation, `ChatCompletionMessage(content='...', refusal=None, role='assistant', ...)`:
  read so, a grammar and style review's fan-in was coding 0.93 (its parentheses and
  `name=value` pairs, `m:code`), and the same reviews without the objects prose 0.55 (found in
  a live review). `fan_in_ask` reads each such line as its `content` string, unescaped as
  Python reads it, after `Agent <name>: `: the text mcp-agent's own string fan-in
  (`aggregate_agent_message_strings`) sends for the same answers. Only a line that is one
  whole object, `_MESSAGE` (its content a string literal of the escapes Python's `repr`
  writes, or None, then the other fields to the line's end, `role='assistant'` among them),
  under `FAN_IN_HEADER`: a line of a function's own result is read as it is, a message of no
  content (a tool call's) is left out.
- LLMRouter (`ROUTER_TEMPLATE`) and its intent classifier (`INTENT_TEMPLATE`): the categories
  or intents with their descriptions, the request to place, and the JSON to answer in, as the
  last user message (after its fixed system prompt, or the instruction of an LLM the user gave
  it). That is classifying into given labels, instruction by the labelling policy
  (`classifier/data/audit/POLICY.md`), as n8n's Text Classifier is (`classifier.n8n`): read as
  written, the intent classifier's was coding 0.55 (its JSON skeleton), the router's
  instruction 0.59 by chance. So each is instruction by rule (`routes`,
  `classifier.fixed.ROUTE_CHOICE`), told by its template filled exactly
  (`classifier.templates.fills`), as n8n's output fix-up and gpt-researcher's report are: a
  `routing_instruction` or `classification_instruction` of the user's is read as written.
  Each only picks who does the work: a side request (`classifier.side_request`), it pins
  nothing of its run's conversation, as fast-agent's router's call does not.

Not covered: mcp-agent's other providers' messages (an Anthropic `Message`'s representation,
sent on Anthropic's API), the fan-in of unnamed sources ("Aggregated responses from multiple
sources:", which 0.2.6 fails to write for messages), and a fan-in over `MAX_FAN_IN` characters, read
as sent. mcp-agent is no coding agent: none of this makes a request an agent's session.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

from classifier.message import System, one_text, per_text
from classifier.templates import fills, fixed_parts

FAN_IN_HEADER = "Aggregated responses from multiple Agents:\n\n"
# The longest fan-in read (AgentScope's RAG hint's bound, `classifier.agentscope`): one
# search of `_MESSAGE` over it, about 2 ms for one this long of one message, of an unclosed
# literal or of 250,000 empty lines (50-95 ms each when each line was matched, found in
# review), 15-30 ms for 1,800 short messages (each unescaped, as before), on 2 shared cores;
# a longer one is read as sent
MAX_FAN_IN = 262_144
# A string literal as Python's `repr` writes one: single quotes unless the text holds a
# single quote and no double one, the escapes it writes and no other, and no control
# character or surrogate written raw (it escapes them): `ast.literal_eval` refused a raw NUL
# or CR and a `\U` past U+10FFFF, and a fan-in of such a literal failed the conversation
# key (a 500, found in review). Each run of plain characters is taken whole (`++`, `*+`:
# nothing to try again), so a line is matched in one pass.
_ESCAPE = r"\\(?:[\\'nrt]|x[0-9a-f]{2}|u[0-9a-f]{4}|U(?:000[0-9a-f]|0010)[0-9a-f]{4})"
_RAW = r"\x00-\x1f\x7f-\x9f\ud800-\udfff\\"  # never written raw, and the backslash
_LITERAL = (
    rf"'(?:[^'{_RAW}]++|{_ESCAPE})*+'"
    rf"|\"(?:[^\"'{_RAW}]++|{_ESCAPE})*+'(?:[^\"{_RAW}]++|{_ESCAPE})*+\""
)
# One agent's message, a whole line: its name (of no colon: each part of the pattern is told
# at one place), the content, the other fields to the line's end
_MESSAGE = re.compile(
    rf"^(Agent [^\n:]*): ChatCompletionMessage\(content=(None|{_LITERAL}), ([^\n]*)\)$",
    re.MULTILINE,
)
ROLE = "role='assistant'"

# `DEFAULT_ROUTING_INSTRUCTION` and `DEFAULT_INTENT_CLASSIFICATION_INSTRUCTION` as sent
# (`str.format`: `{{` written `{`), their fields as placeholders
ROUTER_TEMPLATE = """
You are a highly accurate request router that directs incoming requests to the most appropriate category.
A category is a specialized destination, such as a Function, an MCP Server (a collection of tools/functions), or an Agent (a collection of servers).
Below are the available routing categories, each with their capabilities and descriptions:

{context}

Your task is to analyze the following request and determine the most appropriate categories from the options above. Consider:
- The specific capabilities and tools each destination offers
- How well the request matches the category's description
- Whether the request might benefit from multiple categories (up to {top_k})

Request: {request}

Respond in JSON format:
{
    "categories": [
        {
            "category": <category name>,
            "confidence": <high, medium or low>,
            "reasoning": <brief explanation>
        }
    ]
}

Only include categories that are truly relevant. You may return fewer than {top_k} if appropriate.
If none of the categories are relevant, return an empty list.
"""  # noqa: E501 -- mcp-agent's lines, kept whole
INTENT_TEMPLATE = """
You are a precise intent classifier that analyzes user requests to determine their intended action or purpose.
Below are the available intents with their descriptions and examples:

{context}

Your task is to analyze the following request and determine the most likely intent(s). Consider:
- How well the request matches the intent descriptions and examples
- Any specific entities or parameters that should be extracted
- The confidence level in the classification

Request: {request}

Respond in JSON format:
{
    "classifications": [
        {
            "intent": <intent name>,
            "confidence": <"low" | "medium" | "high">,
            "p_score": <float between 0 and 1>,
            "extracted_entities": [
                {
                    "name": <entity name>,
                    "value": <entity value as string>
                }
            ],
            "reasoning": <brief explanation>
        }
    ]
}

Confidence guidance:
- Use "high" for strong matches (e.g., p_score >= 0.8)
- Use "medium" for moderate matches (e.g., 0.5 <= p_score < 0.8)
- Use "low" for weak matches (e.g., p_score < 0.5)

Return up to {top_k} most likely intents. Only include intents with reasonable confidence (p_score >= 0.5). If no entities are extracted, set "extracted_entities" to an empty array.
If no intents match well, return an empty list.
"""  # noqa: E501 -- mcp-agent's lines, kept whole
_FIELD = re.compile(r"\{(?:context|request|top_k)\}")
TEMPLATES = (fixed_parts(ROUTER_TEMPLATE, _FIELD), fixed_parts(INTENT_TEMPLATE, _FIELD))


def fan_in_ask(message: object) -> object:
    """The content of the user message `message` with each agent's message of mcp-agent's
    fan-in read as its text (`_read_fan_in`); any other content as it is (the very object)."""
    content = message.get("content") if isinstance(message, dict) else None
    text = one_text(message)
    if text is None or not text.startswith(FAN_IN_HEADER) or len(text) > MAX_FAN_IN:
        return content
    read = _read_fan_in(text)
    return content if read is None else read


@per_text
def _read_fan_in(text: str) -> str | None:
    """`text`, a fan-in, with each of its lines that is one agent's message (`_MESSAGE`)
    written `Agent <name>: <content>`, a message of no content left out with its line; None
    when no line is. One search over the text, not a match per line (`MAX_FAN_IN`). Kept
    for the text (`per_text`): the ask is read for the view and for its key."""
    read = [FAN_IN_HEADER]
    done = len(FAN_IN_HEADER)  # `text` up to here is in `read`, as read
    found = False
    for message in _MESSAGE.finditer(text, done):
        said = _said(message.group(2)) if ROLE in message.group(3) else None
        if said is None:
            continue  # read as sent
        found = True
        start, end = message.span()
        if said:
            read += (text[done:start], f"{message.group(1)}: {said[0]}")
        elif start > done:  # left out, with the line break before it
            read.append(text[done : start - 1])
        else:  # the first line, or the first after lines left out: with the break after it
            end = min(end + 1, len(text))
        done = end
    read.append(text[done:])
    return "".join(read) if found else None


def _said(content: str) -> tuple[str, ...] | None:
    """A message's `content` as `_MESSAGE` found it: its text (one, or none for `None`), or
    None when Python cannot read it: `_LITERAL` is meant to take no such literal, and a
    pattern that does must not fail the request (the line is read as sent)."""
    if content == "None":
        return ()
    try:
        return (str(ast.literal_eval(content)),)
    except (ValueError, SyntaxError, MemoryError):
        return None


def routes(messages: Sequence[Any], system: System) -> bool:
    """Whether the last of `messages` is a user message of mcp-agent's LLM router's or
    intent classifier's template filled (`TEMPLATES`): a choice among given labels in a given
    form (`classifier.fixed.ROUTE_CHOICE`). `system`, the system prompt, is not read: its
    own, or the instruction of an LLM the user gave the router."""
    last = messages[-1] if messages else None
    if not isinstance(last, dict) or last.get("role") != "user":
        return False
    text = one_text(last)
    return text is not None and any(fills(text, parts) for parts in TEMPLATES)
