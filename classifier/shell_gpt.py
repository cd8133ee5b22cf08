"""Shell-GPT's roles that ask for code alone, whatever the ask is about.

Shell-GPT (`sgpt`, 1.5.1, MIT: `sgpt/role.py`) sends every ask under a role, its system
prompt "You are {name}\\n{role}". Its `--shell` role, "Shell Command Generator", asks for
"only {shell} commands for {os} without any description"; its `--code` role, "Code
Generator", for "only code as output without any description"; its `--describe-shell` role,
"Shell Command Descriptor", for "a terse, single sentence description of the given shell
command". Read by its topic, the ask went elsewhere: under the shell role "what is 17% of
2300" was math 0.85, "write a haiku about git into haiku.txt" prose 0.97; under the code role
"solve x^2 - 5x + 6 = 0" was math 0.996, "generate a random haiku" prose 0.96; described,
"echo $((17*2300/100))" was math 0.96 (found running sgpt against the router). Yet the user
asked for a command or code, or what one does: coding work, like a smolagents CodeAgent's
step (`RequestView.fixed`, `classifier.rules.rule_intent`). Its default role,
"ShellGPT", is a general assistant's: its asks are read as they are.
"""

from __future__ import annotations

from classifier.message import System

# `ROLE_TEMPLATE`'s opening for the `--shell`, `--code` and `--describe-shell` roles: the
# roles' names are sgpt's own; their texts follow (the shell role's names the user's shell and
# OS), and a user may edit them in sgpt's role files.
CODE_ROLES = (
    "You are Shell Command Generator\n",
    "You are Code Generator\n",
    "You are Shell Command Descriptor\n",
)


def answers_in_code(system: System) -> bool:
    """Whether a request's system prompt (`system`) is of Shell-GPT's shell, code or
    shell-describing role (`CODE_ROLES`): their replies are a command, code, or what a
    command does."""
    opening = system.opening
    return opening is not None and opening.startswith(CODE_ROLES)
