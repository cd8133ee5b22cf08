"""gpt-engineer's requests: every step asks for code, or for a program's spec, whatever the
program is about; and the ask its improve mode puts after the project's files.

gpt-engineer (`gpte`, 0.3.1, MIT: `gpt_engineer/preprompts/`, `core/default/steps.py`,
`tools/custom_steps.py`) builds each request's system prompt from its preprompts, files in
the package. Generating code (its default mode, and a clarified run's last request) and
improving it (`-i`, and self-heal) open with the `roadmap` preprompt (`ROADMAP`) before
`generate` or `improve` and `philosophy`; the user turn is the user's project prompt,
"Request: a haiku generator". Read by its topic, that went elsewhere: "a haiku generator"
was prose 0.986 and "a short story generator" prose 0.99, each on the cloud; under the
`clarify` preprompt (`-c`), "a program that computes the n-th prime number" was math 0.51
(found running gpt-engineer against the router). Yet the user asked for a program: coding
work, as a Shell-GPT code role's ask is (`RequestView.fixed`,
`classifier.rules.rule_intent`). Its `entrypoint` request (the script that runs the code)
is told too. Its lite mode (`-l`) sends the user's prompt as the system prompt and the
`file_format` preprompt as the user turn: read as it is, that asks for files of code.

Told by the system prompt's opening, exactly (`OPENINGS`), as 0.0.7 to 0.3.1 write it
(`roadmap`'s two lines from 0.0.9, `generate`'s before; `clarify`'s first line from 0.1.0,
0.0.9's before; the `entrypoint` prompt's first line from 0.0.9; before 0.3.0, `improve`
opened a prompt of its own, whose first four lines are those of Aider's edit prompt of
mid-2023: told apart by its fifth, `OLD_IMPROVE`). A user's own prompt that opens with the
roadmap's two lines is gpt-engineer's wording, and asks for code as well. A user may edit
the preprompts (`--use-custom-preprompts`): edited openings are read as written.

Its improve mode sends the project's files, numbered line by line in one fenced block
(`FilesDict.to_chat`), and the user's request after them, one user message
("```\\nFile: main.py\\n1 import sys\\n...```\\n\\nRequest: ..."): read as the first ask,
the files keyed the conversation (`router.conversation.conversation_key`, their first 2,048
characters), so every request on one project was one conversation, held on the backend its
first request went to (sticky conversations). Its ask is the request (`request_ask`), which
keys it and is what the ledger keeps; the files are gpt-engineer's text around it, as
Aider's repository map is Aider's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier.message import System

# `roadmap`'s two lines (0.0.9 to 0.3.1; `generate`'s first two in 0.0.7): the system prompt
# of gpt-engineer's code generation and, from 0.3.0, of its improve mode
ROADMAP = (
    "You will get instructions for code to write.\nYou will write a very long answer. Make"
    " sure that every detail of the architecture is, in the end, implemented as code.\n"
)
# `clarify`'s first line, 0.1.0 to 0.3.1, and 0.0.9's (0.0.7's `qa`)
CLARIFY = (
    "Given some instructions, determine if anything needs to be clarified, do not carry them out.\n"
)
OLD_CLARIFY = "You will read instructions and not carry them out, only seek to clarify them.\n"
# The entrypoint request's first line, 0.0.9 to 0.3.1 (a preprompt of its own from 0.2)
ENTRYPOINT = (
    "You will get information about a codebase that is currently on disk in the current folder.\n"
)
# `improve`'s opening, 0.1.0 to 0.2.9: Aider's edit prompt of mid-2023 but for its fifth line,
# "Take requests for changes to the supplied code.\nIf the request is ambiguous, ..."
OLD_IMPROVE = (
    "Act as an expert software developer.\nAlways use best practices when coding.\nWhen you"
    " edit or add code, respect and use existing conventions, libraries, etc.\n\nTake requests"
    " for changes to the supplied code, and then you MUST\n"
)
OPENINGS = (ROADMAP, CLARIFY, OLD_CLARIFY, ENTRYPOINT, OLD_IMPROVE)

# Where the improve mode's files end and the user's request begins (0.3.x: `to_chat`'s
# closing fence, then the request, `Prompt.to_langchain_content`, joined by a blank line).
# Never inside the files: each of their lines opens with its number or "File: ".
FILES_OPENING = "```\n"
REQUEST_AFTER = "\n```\n\n"
REQUEST = "Request: "
_BOUNDARY = REQUEST_AFTER + REQUEST
# How far from the message's end the request's start is looked for (a request longer than
# this is read with the files, as sent)
REQUEST_WITHIN = 65536


def answers_in_code(system: System) -> bool:
    """Whether a request's system prompt (`system`) is gpt-engineer's (`OPENINGS`): its reply
    is files of code, a run script, or what a program's spec leaves unclear."""
    opening = system.opening
    return opening is not None and opening.startswith(OPENINGS)


def request_ask(message: object, messages: Sequence[Any], system: System) -> object:
    """The content of `message`, the request after the project's files when it is
    gpt-engineer's improve ask (its first message after the `ROADMAP` system prompt, the
    files' fenced block then `REQUEST`): "Request: ..." as its generate mode sends it. Any
    other as it is (the same object). `system`: the system prompt of `messages`."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str) or not content.startswith(FILES_OPENING):
        return content
    if len(messages) < 2 or messages[1] is not message:
        return content
    opening = system.opening
    if opening is None or not opening.startswith(ROADMAP):
        return content
    at = content.find(_BOUNDARY, max(0, len(content) - REQUEST_WITHIN))
    return content if at < 0 else content[at + len(REQUEST_AFTER) :]
