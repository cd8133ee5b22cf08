"""atomic-agents' requests: each user turn read by the words inside the JSON it wraps them in,
its system prompt's template left unread.

atomic-agents (pypi `atomic-agents` 1.1.11 over instructor 1.10.0:
`atomic_agents/agents/base_agent.py`, `lib/components/agent_memory.py`,
`lib/components/system_prompt_generator.py`) sends each turn of a `BaseAgent` as a chat
request through instructor: its system prompt (`SystemPromptGenerator.generate_prompt`: a
"# IDENTITY and PURPOSE" section of background lines, by default `DEFAULT_BACKGROUND`, an
"# INTERNAL ASSISTANT STEPS" section when steps are given, an "# OUTPUT INSTRUCTIONS" section
that always ends with its two lines, `OUTPUT_END`, and an "# EXTRA INFORMATION AND CONTEXT"
section of its context providers' titles and texts; in instructor's JSON modes, its "As a
genius expert ..." text and the output schema after it), then the memory's turns. Each turn
is the input schema's instance, one text part a field, each its field alone as JSON
(`model_dump_json(include={field})`): the default `BaseAgentInputSchema` sends
`{"chat_message":"..."}`, a custom input schema its own fields. Read as written, the braces
and the field's name were code: "hi" coding 0.33 (a greeting, no ask, alone), "List three
pros and cons of remote work." coding 0.36 (instruction 0.45 unwrapped), "What is the capital
of Australia?" instruction 0.40, local (reasoning 0.75, the cloud), with `Mode.JSON_SCHEMA`
(found in a live review of atomic-agents against the router; its `Mode.TOOLS` forces its
output tool, tool_calling whatever the ask, the policy on a forced call).

So in its request (`framed`: a system prompt opening and closing its output instructions as
its generator writes them) a user turn is read by the string values of its JSON
(`user_words`), in order, a line apart: the words its user typed, told a greeting or not by
them as any chat's (`classifier.frameworks.said`). A turn any of whose texts is not one
field's JSON is read as sent, and so is one of no string value, or past `PACKED_CHARS` (read
as sent, the braces are a few characters of a long text). And its system prompt is read
without the template's words (`system_words`): its headings, the default background, its
two output lines, its context section's heading; the user's background, steps,
instructions and context are read, as griptape's rulesets are (`classifier.griptape`), and
instructor's text after them as in any instructor request. The conversation key hashes the
prompt as sent, the first ask as read: two runs of one ask join one conversation unless
`prompt_cache_key` keeps them apart (docs/agents/frameworks.md). Not covered: an agent with
`system_role=None` (no system prompt) is read as any chat, its turns with their braces.
atomic-agents is no coding agent: what it wraps does not make the request an agent's
session (`classifier.rules.agent_session`).
"""

from __future__ import annotations

import json
import re

from classifier.message import System, per_text, scanned_texts

IDENTITY = "# IDENTITY and PURPOSE\n- "
OUTPUT_HEADING = "\n# OUTPUT INSTRUCTIONS\n"
# The lines `SystemPromptGenerator` appends to every agent's output instructions
OUTPUT_END = (
    "- Always respond using the proper JSON schema.\n- Always use the available additional"
    " information and context to enhance the response."
)
# Its section headings, and its background when the agent is given none
HEADINGS = frozenset(
    ("# IDENTITY and PURPOSE", "# INTERNAL ASSISTANT STEPS", "# OUTPUT INSTRUCTIONS")
)
DEFAULT_BACKGROUND = "- This is a conversation with a helpful and friendly AI assistant."
OWN_LINES = HEADINGS | {DEFAULT_BACKGROUND, *OUTPUT_END.split("\n")}
CONTEXT_HEADING = "\n\n# EXTRA INFORMATION AND CONTEXT\n"
_TITLES = re.compile(r"^## ", re.MULTILINE)
# instructor's JSON modes' text after the template (`classifier.instructor.GENIUS`'s opening)
GENIUS_OPENING = re.compile(r"\n\s*As a genius expert, ")
# How far into a system prompt its output lines are looked for: past the user's background,
# steps and instructions; past it, read as sent
WITHIN = 65_536
# A turn's text longer than this is read as sent, not parsed: it bounds the walk of its
# values too (`_strings`)
PACKED_CHARS = 65_536


def framed(system: System) -> bool:
    """Whether a request of the system prompt `system` is an atomic-agents agent's: its one
    text opens and closes its output instructions as `SystemPromptGenerator` writes them
    (`_template_end`)."""
    text = system.prompt
    return text is not None and _template_end(text) is not None


@per_text
def _template_end(text: str) -> int | None:
    """Where the output instructions of atomic-agents' template end in the system prompt
    `text` (`IDENTITY` opening it, `OUTPUT_END` closing the "# OUTPUT INSTRUCTIONS"
    section, within `WITHIN` characters, at the end or before a line break); None for any
    other text. Kept for the text (`per_text`): asked for each user message scanned."""
    if not text.startswith(IDENTITY):
        return None
    heading = text.find(OUTPUT_HEADING, len(IDENTITY), WITHIN)
    at = text.find(OUTPUT_END, heading, WITHIN) if heading >= 0 else -1
    if at < 0:
        return None
    end = at + len(OUTPUT_END)
    return end if end == len(text) or text[end] == "\n" else None


def system_words(system: str) -> str:
    """The system prompt `system` without atomic-agents' words (`OWN_LINES`, the context
    section's heading and each of its titles' marks, the bullet opening each line) when it
    is its template (`_template_end`); the user's lines and instructor's text after them
    kept. Any other as it is (the same string)."""
    end = _template_end(system)
    if end is None:
        return system
    lines = (line for line in system[:end].split("\n") if line and line not in OWN_LINES)
    words = [line.removeprefix("- ") for line in lines]
    rest = system[end:]
    if rest.startswith(CONTEXT_HEADING):
        rest = rest[len(CONTEXT_HEADING) :]
        genius = GENIUS_OPENING.search(rest)
        at = genius.start() if genius else len(rest)
        rest = _TITLES.sub("", rest[:at]) + rest[at:]
    return "\n".join([*words, rest.strip()]).strip()


def user_words(message: object, system: System) -> object:
    """The words of the user turn `message` in an atomic-agents request (`framed` of its
    system prompt, `system`): the string values of its fields' JSON (`said_words`); else its
    content as sent (the very object)."""
    content = message.get("content") if isinstance(message, dict) else None
    if not framed(system):
        return content
    words = said_words(content)
    return content if words is None else words


def said_words(content: object) -> str | None:
    """The string values, a line apart, of a content whose every text is one field's JSON
    (`_values`: a string, or a part array's texts, parts of no text such as images aside);
    None when one is not, or they hold no string."""
    texts = [content] if isinstance(content, str) else scanned_texts(content)
    found: list[str] = []
    for text in texts:
        if not text:
            continue
        values = _values(text)
        if values is None:
            return None
        found.extend(values)
    return "\n".join(found) if found else None


@per_text
def _values(text: str) -> list[str] | None:
    """The string values of `text` when it is a JSON object of one field, as
    `model_dump_json(include={field})` writes a turn's field, at most `PACKED_CHARS` long;
    None for any other text. Kept for the text (`per_text`): the view, the greeting and the
    conversation key read one turn."""
    if len(text) > PACKED_CHARS or not text.startswith('{"') or not text.endswith("}"):
        return None
    try:
        packed = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(packed, dict) or len(packed) != 1:
        return None
    return _strings(next(iter(packed.values())))


def _strings(value: object) -> list[str]:
    """The strings of a parsed JSON value with words, in order (a list's, an object's values,
    not its keys): all of them, their number bounded by the text's (`PACKED_CHARS`)."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item.strip():
                found.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found
