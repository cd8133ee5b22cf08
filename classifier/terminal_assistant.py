"""Terminal assistants' own follow-up turns: Open Interpreter's after every code run, and
gptme's nudges when a reply called no tool, user messages that ask nothing.

Open Interpreter 0.4.3 (pypi `open-interpreter`), in its text mode (the default for a model
litellm does not know to call functions, `openai/auto` on the router), sends a code run's
output back as a user message of its own (`interpreter/core/llm/utils/
convert_to_openai_messages.py`, with `code_output_template` or, for no output,
`empty_code_output_template`, `interpreter/core/core.py`), and asks the model again. Read
as the ask, the turns of one conversation ("What is 2 to the power of 100? Compute it with
code.") were coding 0.43, math 0.62, then tool_calling 0.46 (found running it against the
router): the code's output and the template decided, not the user. It joins consecutive
user messages into one text ("\\n", or " " for the last), so a message the user sends right
after a run (a run interrupted before the model answered) follows the template in that text.

gptme 0.35.1 (pypi `gptme`), run with `-n` (non-interactive), answers a reply that called no
tool with a user message (`auto_reply_hook`, `gptme/tools/complete.py`): `FINISH`, or, with
todos left, `TODOS` around their list; with `-y` in a chat, `NUDGE`; and a tool call repeated
with no progress gets `STUCK` around the call and its likely cause. It joins consecutive
user messages with a blank line.

Each is passed over (`passed_over`, `classifier.frameworks`), to the user's ask before it;
the user's words after one in the same text are the ask (`ask_words`). Told by the whole
template, its opening through its fixed end: a user's text that only starts like one is read
as written. And only after the request's first user message when that one is none of them:
both send the user's prompt first, so a template with no prompt before it is a user's paste,
read as written (`classifier.message.after_first_user`). And only in their requests
(`framed`): each opens its system prompt with its name (`IDENTITIES`). In any other chat
these texts are the user's: pasted after a greeting, "hi", the request was read as "hi"
(all 13 texts of these and instructor's, found in review). Neither is a coding agent, and their
first turn holds none of these: were a follow-up turn read as a coding agent's session
(`classifier.rules.agent_session`), a math ask read math on its first turn would read coding
on the next, after its code ran. So what they pass over does not make a request an agent's
session, as a framework's does not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice
from typing import Any

from classifier.message import SCAN_MESSAGES, System, after_first_user, one_text, per_text, role

# Open Interpreter: `code_output_template`, around the run's output, and
# `empty_code_output_template` (both as its defaults; the message is stripped)
CODE_OUTPUT = "Code output: "
CODE_OUTPUT_END = "\n\nWhat does this output mean / what's next (if anything, or are we done)?"
NO_OUTPUT = (
    "The code above was executed on my machine. It produced no text output. what's next (if "
    "anything, or are we done?)"
)
# gptme: the non-interactive auto-reply, without todos left and with them (around their
# list)...
FINISH = (
    "<system>No tool call detected in last message. Did you mean to finish? If so, make sure "
    "you are completely done and then use the `complete` tool to end the session.</system>"
)
TODOS = "<system>No tool call detected in last message. You have incomplete todos:\n"
TODOS_END = (
    "\n\nPlease continue working on these tasks, or mark them complete/remove them before "
    "finishing.</system>"
)
# ...the nudge in a chat run with `-y`, and the one on a repeated call (around the call and
# the likely cause)
NUDGE = (
    "<system>No tool call detected. Please continue with a tool call, or use `complete` if "
    "done.</system>"
)
STUCK = "<system>You appear stuck: the same tool call (`"
STUCK_END = (
    " Try a different approach, fix the underlying error, or use the `complete` tool if you "
    "are genuinely blocked.</system>"
)
# Each template's opening and its end; "" for a fixed text, which is its own end
TEMPLATES = {
    CODE_OUTPUT: CODE_OUTPUT_END,
    NO_OUTPUT: "",
    FINISH: "",
    TODOS: TODOS_END,
    NUDGE: "",
    STUCK: STUCK_END,
}
_OPENING = re.compile(r"\s{0,64}(" + "|".join(map(re.escape, TEMPLATES)) + ")")
# Each one's system prompt opens so: Open Interpreter's default `system_message`
# (`interpreter/core/default_system_message.py`), gptme's with its version after the "v"
# (the recorded bodies, `tests/fixtures/open-interpreter-0.4.3/`, `tests/fixtures/gptme-0.35.1/`)
IDENTITIES = ("You are Open Interpreter, a world-class programmer", "You are gptme v")
_IDENTITY = re.compile(r"\s{0,64}(?:" + "|".join(map(re.escape, IDENTITIES)) + ")")
# Nothing but white space from a position to the text's end: matched in place, no copy
_BLANK_TO_END = re.compile(r"\s*\Z")
_BLANK = re.compile(r"\s*")
# How far past an opening its end is looked for (a run's output; Open Interpreter cuts it to
# `max_output`, 2,800 characters by default), and how many templates one text is read past
WITHIN = 100_000
EACH_TEXT = 8


def passed_over(messages: Sequence[Any], index: int, system: System) -> bool:
    """Whether the user message `messages[index]` is one text of these templates alone
    (`templates_end`), in Open Interpreter's or gptme's request (`framed` of `system`, the
    system prompt of `messages`), after the
    request's first user message, which does not start with one
    (`classifier.message.after_first_user`). Read in place: a copy of what follows the
    templates cost milliseconds a turn on a message of megabytes (found in review)."""
    text = one_text(messages[index])
    if text is None or not (end := templates_end(text)) or not _BLANK_TO_END.match(text, end):
        return False
    return framed(system) and after_first_user(messages, index, _opens)


def ask_words(message: object, messages: Sequence[Any], system: System) -> object:
    """The user's words after the templates that start the ask `message` of `messages`
    (`templates_end`), in Open Interpreter's or gptme's request (`framed` of `system`, its
    system prompt), when the request's first user message (among the first `SCAN_MESSAGES`)
    is another, which starts with none; any other content as it is (the same object)."""
    content = message.get("content") if isinstance(message, dict) else None
    text = one_text(message)
    if text is None or not framed(system):
        return content
    first = next((m for m in islice(messages, SCAN_MESSAGES) if role(m) == "user"), None)
    if first is None or first is message or _opens(first):
        return content
    words = _words_after(text)
    return content if words is None else words


@per_text
def _words_after(text: str) -> str | None:
    """The words after the templates `text` starts with (`templates_end`), stripped; None
    when it starts with none or nothing follows them. Kept for the text (`per_text`): an ask
    is read for the view and for its key, and each copy of a message of megabytes cost
    milliseconds (found in review)."""
    end = templates_end(text)
    if not end or _BLANK_TO_END.match(text, end):
        return None
    blank = _BLANK.match(text, end)
    return text[blank.end() if blank else end :].rstrip()


def framed(system: System) -> bool:
    """Whether a request is Open Interpreter's or gptme's: its system prompt (`system`) opens
    with one's name (`IDENTITIES`, after at most 64 white spaces)."""
    text = system.prompt
    return text is not None and _IDENTITY.match(text) is not None


def templates_end(text: str) -> int:
    """Where the templates `text` starts with (`TEMPLATES`, each after at most 64 white
    spaces) end; 0 when it starts with none, or an opening whose end is not within
    `WITHIN` characters after it. At most `EACH_TEXT` of them."""
    end = 0
    for _ in range(EACH_TEXT):
        opened = _OPENING.match(text, end)
        if opened is None:
            break
        closing = TEMPLATES[opened.group(1)]
        if not closing:
            end = opened.end()
            continue
        at = text.find(closing, opened.end(), opened.end() + WITHIN + len(closing))
        if at < 0:
            break
        end = at + len(closing)
    return end


def _opens(message: object) -> bool:
    """Whether `message` is one text that starts with a whole template: the request's
    first user message so is a user's, its later ones pastes too."""
    text = one_text(message)
    return text is not None and _starts_templated(text)


@per_text
def _starts_templated(text: str) -> bool:
    """Whether `text` starts with a whole template: the first user message's, read once for
    a request (`classifier.message.per_text`), not again for each turn passed over."""
    return templates_end(text) > 0
