"""Griptape's own system prompt: its sentences on using actions, left unread; the user's
rulesets in it read.

Griptape (1.13.0: `griptape/templates/tasks/prompt_task/system.j2`, the same opening and
last line in `toolkit_task/system.j2`) writes an agent's system prompt itself. With tools
offered it opens with a block on executing actions, from `ACTIONS_OPENING` to `ACTIONS_END`
(with `use_native_tools=False`, the default's opposite, the actions' format and JSON schema
inside it); a `ToolTask` opens with `TOOL_TASK_OPENING` instead (and, with tools in text,
`SCHEMA_LINE`, its action schema on one line). Then come its meta memory (retrieved tool
metadata as JSON after `META_OPENING`) and the user's rulesets after `RULESETS_OPENING`, each
as `Ruleset name: {name}`, `"{name}" rules:` and its rules a `Rule #{n}` line each. Read as
written, the actions block decided borderline asks: "What is 1234 * 5678? Use the
calculator." with its CalculatorTool offered was math 0.675 (cloud) on both turns of its
loop, tool_calling 0.512 under "You are a helpful assistant." (found in a live review).

So the view reads the system prompt without griptape's sentences (`system_words`): the
actions block, the meta memory, the rulesets' opening sentence and the lines that number and
title each rule; the rulesets' names and rules are read, the user's words, as crewAI's task
description is (`classifier.crewai`). Only a system prompt that opens with one of
griptape's openings (without tools, the rulesets' sentence opens it) is read so: a user who
writes that sentence after words of their own is read as written. The conversation key
still hashes the prompt as sent (two runs of one ask join one conversation:
`prompt_cache_key` keeps them apart, docs/agents/frameworks.md).
Griptape is no coding agent: what is left unread does not make the request an agent's
session (`classifier.rules.agent_session`).
"""

from __future__ import annotations

import re

# The prompt task's actions block (`action_names` set): its first line and its last line
ACTIONS_OPENING = (
    "You can think step-by-step and execute actions sequentially or in parallel to get your"
    " final answer.\n"
)
ACTIONS_END = (
    "NEVER make up actions, action names, or action paths. NEVER make up facts. NEVER"
    " reference tags in other action input values."
)
# A `ToolTask`'s first sentence, and its action schema's line with tools in text
TOOL_TASK_OPENING = (
    "You must respond to requests by using the actions. Your response must ONLY be a plain"
    " JSON object that successfully validates against the Action Schema.\n"
)
SCHEMA_LINE = re.compile(r"\s*The schema is provided below:\nAction Schema: [^\n]*\n?")
# `templates/memory/meta/meta_memory.j2`'s sentence before the metadata's JSON
META_OPENING = (
    "You have access to additional contextual information in the form of JSON objects. Use it"
    " when appropriate:\n"
)
# `templates/rulesets/rulesets.j2`: its opening sentence, and the lines it writes around
# each ruleset's name and before each rule
RULESETS_OPENING = "When responding, always use rules from the following rulesets.\n"
RULESET_NAME = re.compile(r"^Ruleset name: ", re.MULTILINE)
RULE_LINES = re.compile(r'^(?:"[^"\n]*" rules:|Rule #\d{1,4})\n', re.MULTILINE)
# How far the actions block's last line is looked for: past its opening and, in text, its
# actions' JSON schema (griptape's own, a few KB however many tools); past it, read as sent
WITHIN = 65_536


def system_words(system: str) -> str:
    """The system prompt `system` without griptape's sentences when it opens as griptape's
    prompt task's or tool task's does, or with its rulesets' sentence; any other as it is
    (the same string)."""
    rest = _after_actions(system)
    if rest is None:
        return system
    rest = rest.lstrip("\n")
    if rest.startswith(META_OPENING):
        at = rest.find(RULESETS_OPENING)
        rest = "" if at < 0 else rest[at:]
    if rest.startswith(RULESETS_OPENING):
        rulesets = rest[len(RULESETS_OPENING) :].lstrip("\n")
        rest = RULE_LINES.sub("", RULESET_NAME.sub("", rulesets))
    return rest.strip("\n")


def _after_actions(system: str) -> str | None:
    """What follows griptape's actions block or tool task's sentence opening `system`
    (`system` itself when it opens, after a line break, with the rulesets' sentence); None
    when it opens with none of them, or the block's last line is not found."""
    if system.startswith(ACTIONS_OPENING):
        at = system.find(ACTIONS_END, len(ACTIONS_OPENING), WITHIN)
        return None if at < 0 else system[at + len(ACTIONS_END) :]
    if system.startswith(TOOL_TASK_OPENING):
        rest = system[len(TOOL_TASK_OPENING) :]
        schema = SCHEMA_LINE.match(rest)
        return rest[schema.end() :] if schema else rest
    if system.lstrip("\n").startswith(RULESETS_OPENING):
        return system
    return None
