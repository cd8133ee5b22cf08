"""rawdog's requests ask for a Python script, whatever the ask is about.

rawdog (pypi `rawdog-ai`, 0.1.6, Apache-2.0) sends every request under its own system prompt
(`rawdog/prompts.py` `script_prompt`, then its examples and its environment, each a system
message of its own) and runs the reply: each reply must be one executable Python script,
whose printed output is all the user sees. Its later turns are its own templates
(`rawdog/__main__.py`: "LAST SCRIPT OUTPUT:\\n{output}", "Error: {error}", "User chose not
to run script"). Read by its topic, the ask went elsewhere: "what is 3 to the power of 50"
was math 0.58, "now write a haiku about them" prose 0.85 (found running rawdog against the
router). Yet the reply is a script: coding work, as under Shell-GPT's code role
(`classifier.shell_gpt`). Its prompt cannot be configured, so its first line tells its
requests.
"""

from __future__ import annotations

import re

from classifier.message import System

# `script_prompt`'s first line, exactly: the whole line (a newline or the text's end after
# it), at the prompt's start (rawdog sends it so, its string opening with it)
IDENTITY = (
    "You are a command-line coding assistant called Rawdog that generates and auto-executes"
    " Python scripts."
)
_IDENTITY = re.compile(re.escape(IDENTITY) + r"(?:\n|\Z)")


def answers_in_code(system: System) -> bool:
    """Whether a request's system prompt (`system`) opens with rawdog's line (`IDENTITY`):
    its reply is a Python script that rawdog runs."""
    opening = system.opening
    return opening is not None and _IDENTITY.match(opening) is not None
