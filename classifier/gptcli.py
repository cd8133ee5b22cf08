"""gptcli's built-in assistants: the `dev` assistant's fixed opening pair, and the `bash`
assistant, whose replies are shell commands whatever the ask is about.

gptcli (pypi `gpt-command-line`, 0.4.3, MIT: `DEFAULT_ASSISTANTS` in `gptcli/assistant.py`)
opens every request of its `dev` assistant (`gpt dev`) with the same messages: its system
prompt (`DEV_SYSTEM`, the machine's `platform.uname()` after it), then a user message of its
own (`DEV_USER`) and the assistant's "Understood." (`DEV_REPLY`). Read as the first ask, that
user message gave every `gpt dev` run on a machine one conversation key
(`router.conversation.conversation_key`): a math run's cloud pin sent two later coding runs
(coding 0.99) to the cloud (found running gptcli against the router). So it is passed over
(`passed_over`), as an agent framework's own messages are (`classifier.frameworks`): the
user's first ask after it keys the run. Told by the whole pair in its place, right after the
dev system prompt: the same words typed by a user in any other chat are read as written.

Its `bash` assistant (`gpt bash`) asks for "only valid and correct shell commands" under its
system prompt (`BASH_SYSTEM`, uname and `$SHELL` after it). Read by its topic, "What is 17%
of 2300?" went to the math cloud; yet the reply is a shell command: coding work, as under
Shell-GPT's shell role (`classifier.shell_gpt`, `answers_in_code`). Its `general` assistant
sends no fixed text: its asks are read as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier.message import System, one_text

# The `dev` assistant's system prompt up to the machine's uname (exact, as gptcli joins it)
DEV_SYSTEM = (
    "You are a helpful assistant who is an expert in software development. You are helping a"
    " user who is a software developer. Your responses are short and concise. You include code"
    " snippets when appropriate. Code snippets are formatted using Markdown with a correct"
    " language tag. User's `uname`: "
)
# Its fixed user message and the assistant's reply after it
DEV_USER = "Your responses must be short and concise. Do not include explanations unless asked."
DEV_REPLY = "Understood."
# The `bash` assistant's system prompt up to the machine's uname
BASH_SYSTEM = (
    "You output only valid and correct shell commands according to the user's prompt. You"
    " don't provide any explanations or any other text that is not valid shell commands."
    " User's `uname`: "
)


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is the `dev` assistant's fixed one: exactly
    `DEV_USER`, the second message, after the dev system prompt (`system`, the system prompt
    of `messages`, opening with `DEV_SYSTEM`) and before the assistant's `DEV_REPLY`."""
    if index != 1 or len(messages) < 3 or one_text(messages[index]) != DEV_USER:
        return False
    reply = messages[2]
    if not isinstance(reply, dict) or reply.get("role") != "assistant":
        return False
    opening = system.opening
    return one_text(reply) == DEV_REPLY and opening is not None and opening.startswith(DEV_SYSTEM)


def answers_in_code(system: System) -> bool:
    """Whether a request's system prompt (`system`) is the `bash` assistant's (`BASH_SYSTEM`
    at its start): its reply is a shell command."""
    opening = system.opening
    return opening is not None and opening.startswith(BASH_SYSTEM)
