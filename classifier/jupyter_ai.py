"""jupyter-ai's `%%ai` magic: the output format's sentence it appends to the user's prompt.

jupyter-ai-magics (2.31.7, BSD-3: `jupyter_ai_magics/base_provider.py`, `BaseProvider`'s
`prompt_templates`, applied in `magics.py` `run_ai_cell`) appends a fixed sentence to a
cell's prompt for its `-f` format, "{prompt}\\n\\nProduce output in markdown format only."
for the default, markdown, and sends it as the user message; the `text` format appends
nothing. It sends no system prompt, and resends the last `max_history` (2) exchanges, each
prompt with its sentence, as user and assistant messages before it. Read as written, the
markdown sentence was an output constraint: every default cell was `instruction`, "What is
the average of 12, 15 and 30?" (math 0.944) and "Write a short story about a lighthouse
keeper" (prose 0.994) alike, served locally (found running `%%ai` against the router).

So the sentence is the app's, not the user's: passed over (`prompt_words`), the ask read
without it, for the classifier, the conversation key and the ledger alike. Each format but
`code` only chooses how the notebook shows the reply (HTML, LaTeX, JSON, an image). The
`code` format's sentence asks for source code alone, inserted as the next cell: the user asked for
code, whatever the prompt is about, as under Shell-GPT's code role (`classifier.shell_gpt`),
so its request is a code answer (`answers_in_code`; `RequestView.fixed`). Read by
its topic, `-f code` "Plot a bar chart of revenue by country with matplotlib" was
instruction 0.54.

Told by the sentence exactly, at the very end of the message after the blank line that
`{prompt}\\n\\n` leaves, with words of the user's before it, and only in a request of
jupyter-ai's shape (`framed`): no system or developer message, user and assistant messages
of one string each, alternating from a user's and ending with one. A sentence typed with
other spacing, or followed by anything, or sent under a system prompt, is the user's, read
as written. A user who types the very sentence after a blank line in a plain chat of that
shape is read as jupyter-ai's user: their ask without it, which is what they asked about.
jupyter-ai is no coding agent: nothing here makes a request an agent's session
(`classifier.rules.agent_session`). The JupyterLab extension's chat (Jupyternaut) and inline
completion send system prompts of their own; the magic sends neither, and they are not read
here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from classifier.harness import has_words

# `BaseProvider.prompt_templates`: each format's sentence after "{prompt}"; `md` is
# `markdown`'s, `text` appends none (TogetherAI's provider overrides `code` with the same)
SENTENCES = {
    "code": "Produce output as source code only, with no text or explanation before or after it.",
    "html": "Produce output in HTML format only, with no markup before or afterward.",
    "image": "Produce output as an image only, with no text before or after it.",
    "markdown": "Produce output in markdown format only.",
    "math": "Produce output in LaTeX format only, with $$ at the beginning and end.",
    "json": "Produce output in JSON format only, with nothing before or after it.",
}
# What `{prompt}\n\n` leaves before the sentence: it ends the message
SUFFIXES = tuple(f"\n\n{sentence}" for sentence in SENTENCES.values())
CODE = f"\n\n{SENTENCES['code']}"
# How many messages a request of jupyter-ai's shape may hold (`framed`): 2 * `max_history`
# + 1, so a `max_history` of up to 2,048 exchanges; a longer chat is read as written
MESSAGES = 4097
_ROLES = ("user", "assistant")


def prompt_words(message: object, messages: Sequence[Any]) -> object:
    """The content of the user message `message` of `messages` without the format's
    sentence jupyter-ai appended to it (`SUFFIXES`), when the request is jupyter-ai's
    (`framed`) and the user's words come before it; any other content as it is (the same
    object)."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        return content
    suffix = next((s for s in SUFFIXES if content.endswith(s)), None)
    words = _words(content, suffix) if suffix is not None and framed(messages) else None
    return content if words is None else words


def answers_in_code(messages: Sequence[Any]) -> bool:
    """Whether `messages` are jupyter-ai's (`framed`) asking for its `code` format: their
    last message, the cell's prompt, ends with its sentence (`CODE`) after words of the
    user's."""
    last = messages[-1] if messages else None
    content = last.get("content") if isinstance(last, dict) else None
    if not isinstance(content, str) or not content.endswith(CODE):
        return False
    return framed(messages) and _words(content, CODE) is not None


def _words(text: str, suffix: str) -> str | None:
    """`text` without `suffix`, which ends it, when words of the user's come before it; None
    otherwise. Cut only once the request is known to be jupyter-ai's: the cut copies the
    text."""
    words = text[: -len(suffix)]
    return words if has_words(words) else None


def framed(messages: Sequence[Any]) -> bool:
    """Whether `messages` have the shape of jupyter-ai's `%%ai` request: at most `MESSAGES`
    of them, user and assistant messages alternating from a user's and ending with one,
    each one string, no system prompt (it sends none)."""
    if not messages or len(messages) > MESSAGES or len(messages) % 2 == 0:
        return False
    for at, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") != _ROLES[at % 2]:
            return False
        if not isinstance(message.get("content"), str):
            return False
    return True
