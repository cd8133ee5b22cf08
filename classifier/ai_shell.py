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

from collections.abc import Sequence
from typing import Any

from classifier.message import one_text
from classifier.templates import fills_any, opening_texts

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
_OS_END = " operating system.\n\n"
_PROMPT_IS = "\n\nThe prompt is: "
_SCRIPT = "\n\nThe script: "
_PROMPT = "\n\nThe prompt: "
# Each template's fixed texts around its slots (`classifier.templates.fixed_parts`): the
# user's shell and OS, then their prompt; the language, then the script; the script, the
# prompt, then the OS
TEMPLATES = (
    (COMMAND, GENERATION, _OS_END + _PROMPT_IS, ""),
    (COMMAND, GENERATION, _OS_END + EXPLAIN + _PROMPT_IS, ""),
    (EXPLAIN + " Please reply in ", _SCRIPT, ""),
    (REVISION + _SCRIPT, _PROMPT, GENERATION, _OS_END.rstrip("\n")),
)
_HEADS = opening_texts(TEMPLATES)


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
    """Whether `text` is one of ai-shell's templates (`TEMPLATES`) filled, its user's slot
    (the prompt, or the script explained) holding words: ai-shell sends none empty, and its
    fixed texts alone are a paste of them."""
    return fills_any(text, TEMPLATES, _HEADS) and _asked(text)


def _asked(text: str) -> bool:
    """Whether the user's slot of `text` (a filled template, `fills_any`) holds more than
    white space: the text after its label, the prompt's or the script's, up to the
    revision's fixed end, each placed first as `fills` places them."""
    if text.startswith(REVISION):
        at = text.find(_PROMPT, len(REVISION)) + len(_PROMPT)
        end = text.find(GENERATION, at)
    else:
        label = _SCRIPT if text.startswith(EXPLAIN) else _PROMPT_IS
        at, end = text.find(label) + len(label), len(text)
    return not text[at:end].isspace() and at < end
