"""ai-shell's requests ask for a shell command, or what one does, whatever the prompt is
about.

ai-shell (npm `@builder.io/ai-shell`, MIT, `src/helpers/completion.ts`) sends each request as
one user message and no system prompt: the user's prompt in the slot of its own template.
Its command template asks for "a single line command that one can enter in a terminal",
its revision template to update the script just given "based on what is asked", and its
explanation template for "a clear, concise description of the script". Read by its topic,
the revision "make it a limerick instead" was prose 0.55 and went to the cloud (found
running ai-shell's requests against the router). Yet the reply is a command, or what one
does: coding work, as Shell-GPT's shell and shell-describing roles are
(`classifier.shell_gpt`). Only the whole frame counts, each fixed text in its place around
the slots, so a user who pastes its opening into a chat is read as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import one_text

# The command template's opening, up to the user's shell (`getFullPrompt`)...
COMMAND = (
    "Create a single line command that one can enter in a terminal and run, based on what is"
    " specified in the prompt.\n\nThe target shell is "
)
# ...the text the command and the revision templates share, up to the user's OS
# (`generationDetails`)...
GENERATION = (
    "\n\nOnly reply with the single line command surrounded by three backticks. It must be"
    " able to be directly run in the target shell. Do not include any other text.\n\nMake"
    " sure the command runs on "
)
# ...the explanation's opening (`explainScript`, also in the command template when ai-shell
# explains in the same request), and the revision's (`getRevisionPrompt`)
EXPLAIN = (
    "Please provide a clear, concise description of the script, using minimal words. Outline"
    " the steps in a list format."
)
REVISION = "Update the following script based on what is asked in the following prompt."
_NAME = r"[^\n]{1,64}"  # a shell's, an OS's or a language's name
_OS_END = " operating system."
_COMMAND = re.compile(
    re.escape(COMMAND)
    + _NAME
    + re.escape(GENERATION)
    + _NAME
    + re.escape(_OS_END)
    + r"\n\n(?:"
    + re.escape(EXPLAIN)
    + r")?\n\nThe prompt is: \s{0,64}\S"
)
_EXPLANATION = re.compile(
    re.escape(EXPLAIN) + r" Please reply in " + _NAME + r"\n\nThe script: \s{0,64}\S"
)
_REVISION = re.compile(re.escape(REVISION) + r"\n\nThe script: \s{0,64}\S")
_REVISION_END = re.compile(re.escape(GENERATION) + _NAME + re.escape(_OS_END) + r"\s{0,64}\Z")
_PROMPT = "\n\nThe prompt: "
# The revision's end is looked for in the text's last characters, and its prompt's label
# this far before it (the prompt the user typed)
TAIL = len(GENERATION) + 64 + len(_OS_END) + 64
WITHIN = 100_000


def asks_for_command(messages: Sequence[Any]) -> bool:
    """Whether the request (`messages`) is ai-shell's: one user message, framed whole by its
    command, revision or explanation template (`framed`)."""
    if len(messages) != 1:
        return False
    message = messages[0]
    if not isinstance(message, dict) or message.get("role") != "user":
        return False
    text = one_text(message)
    return text is not None and framed(text)


def framed(text: str) -> bool:
    """Whether `text` is one of ai-shell's templates with its slots filled: the command's or
    the explanation's fixed texts up to the user's prompt or script, or the revision's
    opening, its prompt's label and its fixed end. Read at the text's start and end only."""
    if _COMMAND.match(text) or _EXPLANATION.match(text):
        return True
    opened = _REVISION.match(text)
    if opened is None:
        return False
    tail_start = max(opened.end(), len(text) - TAIL)
    end = _REVISION_END.search(text, tail_start)
    if end is None:
        return False
    label = text.rfind(_PROMPT, max(opened.end(), end.start() - WITHIN), end.start())
    return label >= 0 and label + len(_PROMPT) < end.start()
