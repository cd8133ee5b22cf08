"""mem0's own requests: the memory layer's background calls that extract, update and
summarize memories, whatever the chat they hold is about.

mem0 (mem0ai 2.2.1, `mem0/configs/prompts.py`, `mem0/memory/main.py`) calls the model on
every `Memory.add()`, beside the app's own chat: a system prompt of its own
(`ADDITIVE_EXTRACTION_PROMPT`, about 34,000 characters, opening `EXTRACTOR`) and one user
message that fills its sections ("## Summary", "## Last k Messages", ..., "## New
Messages", the chat's turns, ..., ending "# Output:"), `response_format` `json_object`.
Read as written, its route was the chat's inside: tool_calling 0.42 on the local backend
for a user's facts, but math on the cloud for a proof chat, some 7,800 prompt tokens each
call (found in a live review of mem0 against the router). An agent's procedural memory
(`memory_type="procedural_memory"`) is one call more: `PROCEDURAL_MEMORY_SYSTEM_PROMPT`, the
agent's messages, and `PROCEDURAL_ASK` last. mem0 1.x (whose prompts 2.2.1 still ships)
made two calls of each `add()`: facts (`FACT_RETRIEVAL_PROMPT` or the user's or agent's
extraction prompt as the system prompt, "Input:\\n" and the chat as the user message), then
an update of the memories (`DEFAULT_UPDATE_MEMORY_PROMPT`, or the app's own, with mem0's
instructions after it, one user message: `UPDATE_FACTS`... `UPDATE_END`).

Each is a background job of the app's: a reply in a form mem0 fixes (a JSON list of
memories, a summary in fixed sections) over a chat that was routed when it was said. So
each is read by one rule, whatever the chat (`classifier.fixed.MEMORY_EXTRACTION`), as
n8n's extractor is: instruction, on the local backend of the default routes, where the
user's personal facts stay and the long prompt costs nothing on the cloud. Only mem0's
texts, exactly where it puts them, are read so: a chat that quotes them elsewhere is read
as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier.message import System, one_text

# `ADDITIVE_EXTRACTION_PROMPT`'s opening (an agent's scope appends `AGENT_CONTEXT_SUFFIX`)
EXTRACTOR = (
    "\n\n# ROLE\n\nYou are a Memory Extractor — a precise, evidence-bound processor"
    " responsible for extracting rich, contextual memories from conversations."
)
# `generate_additive_extraction_prompt`: its first section and its last line
SECTIONS_OPENING = "## Summary\n"
SECTIONS_END = "\n\n# Output:"
# `PROCEDURAL_MEMORY_SYSTEM_PROMPT`'s opening, and the user message after the agent's
PROCEDURAL = (
    "\nYou are a memory summarization system that records and preserves the complete"
    " interaction history between a human and an AI agent."
)
PROCEDURAL_ASK = "Create procedural memory of the above conversation."
# mem0 1.x's fact extraction: `FACT_RETRIEVAL_PROMPT`'s and `USER_MEMORY_EXTRACTION_PROMPT`'s
# opening, `AGENT_MEMORY_EXTRACTION_PROMPT`'s, and the user message's
FACT_PROMPTS = (
    "You are a Personal Information Organizer, specialized in accurately storing facts, user"
    " memories, and preferences.",
    "You are an Assistant Information Organizer, specialized in accurately storing facts,"
    " preferences, and characteristics about the AI assistant from conversations.",
)
FACTS_INPUT = "Input:\n"
# mem0 1.x's update (`get_update_memory_messages`): its words after the app's prompt and the
# memories, and its last line (with the indentation it is written in)
UPDATE_FACTS = (
    "The new retrieved facts are mentioned in the triple backticks. You have to analyze the"
    " new retrieved facts and determine whether these facts should be added, updated, or"
    " deleted in the memory."
)
UPDATE_END = "\n\n    Do not return anything except the JSON format.\n    "


def memory_request(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are one of mem0's calls (`extracts`, `summarizes`, `updates`);
    `system`: the system prompt of `messages`."""
    return extracts(messages, system) or summarizes(messages, system) or updates(messages)


def extracts(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are mem0's fact extraction: its system prompt and one user message
    in its form, 2.x's sections or 1.x's input."""
    prompt = system.prompt
    if prompt is None or len(messages) != 2:
        return False
    text = _user_text(messages[1])
    if text is None:
        return False
    if prompt.startswith(EXTRACTOR):
        return text.startswith(SECTIONS_OPENING) and text.endswith(SECTIONS_END)
    return prompt.startswith(FACT_PROMPTS) and text.startswith(FACTS_INPUT)


def summarizes(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are mem0's procedural memory: its system prompt, then the agent's
    messages, then `PROCEDURAL_ASK`."""
    prompt = system.prompt
    if prompt is None or not prompt.startswith(PROCEDURAL) or len(messages) < 2:
        return False
    return _user_text(messages[-1]) == PROCEDURAL_ASK


def updates(messages: Sequence[Any]) -> bool:
    """Whether `messages` are mem0 1.x's memory update: one user message ending in mem0's
    instructions (the prompt before them may be the app's own)."""
    if len(messages) != 1:
        return False
    text = _user_text(messages[0])
    return text is not None and text.endswith(UPDATE_END) and UPDATE_FACTS in text


def _user_text(message: object) -> str | None:
    """The one text of `message` when it is a user message; None otherwise."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return None
    return one_text(message)
