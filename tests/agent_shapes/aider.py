"""What Aider sends: its system prompt, its edit format's example conversation and the
message that ends it, its fixed pairs (the repository map, the files added to the chat, each
with Aider's reply), then the session's history and the current message, with the edit
format's reminder after it (`reminder: user`, the default for a model Aider does not know,
as `openai/auto` is). From `format_chat_chunks` in Aider's `aider/coders/base_coder.py` and
its prompts (`base_prompts.py`, `wholefile_prompts.py`, `editblock_prompts.py`,
`ask_prompts.py`, `context_prompts.py`), in the order of its `ChatChunks.all_messages`, as
Aider 0.86.2 sends them when it finds the user's language to be English. Also its
reflections (`REFLECTIONS`): its own texts, sent as the next user message when a reply's
edits fail or lint fails (`aider_reflection`).

The editing modes' system prompts, the reminders, the map and the file are shortened; the
example conversations, the ask mode's system prompt, the reflections and Aider's fixed
wordings are verbatim.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# The system prompt and the reminder of the `whole` edit format (shortened)
WHOLE_SYSTEM = (
    "Act as an expert software developer.\nTake requests for changes to the supplied code.\n"
    "If the request is ambiguous, ask questions.\n\nOnce you understand the request you MUST:"
    "\n1. Determine if any code changes are needed.\n2. Explain any needed changes.\n"
    "3. If changes are needed, output a copy of each file that needs changes.\n"
)
WHOLE_REMINDER = (
    "To suggest changes to a file you MUST return the entire content of the updated file.\n"
    "You MUST use this *file listing* format:\n\npath/to/filename.js\n```\n"
    "// entire file content ...\n// ... goes in between\n```\n"
)
# The `diff-fenced` format's reminder (shortened): it starts with a line break
DIFF_FENCED_REMINDER = (
    "\n# *SEARCH/REPLACE block* Rules:\n\nEvery *SEARCH/REPLACE block* must use this format:"
    "\n1. The opening fence and code language, eg: ```python\n"
)
# The ask mode's reminder (its `final_reminders`, the user's language found) and the
# context mode's, which Aider appends to the current message and to its system prompt
ASK_REMINDER = "Reply in English.\n"
CONTEXT_REMINDER = "\nNEVER RETURN CODE!\n"
ASK_SYSTEM = (
    "Act as an expert code analyst.\nAnswer questions about the supplied code.\n"
    "Always reply to the user in English.\n\n"
    "If you need to describe code changes, do so *briefly*.\n" + "\n" + ASK_REMINDER
)
# The context mode's system prompt (shortened)
CONTEXT_SYSTEM = (
    "Act as an expert code analyst.\nUnderstand the user's question or request, solely to"
    " determine ALL the existing sources files which will need to be modified.\n"
    "Return the *complete* list of files which will need to be modified based on the user's"
    " request.\n" + "\n" + CONTEXT_REMINDER
)
# What each mode appends to the current message, after a blank line
REMINDERS = {
    "whole": WHOLE_REMINDER,
    "diff": WHOLE_REMINDER,
    "diff-fenced": DIFF_FENCED_REMINDER,
    "ask": ASK_REMINDER,
    "context": CONTEXT_REMINDER,
}
# The example conversations of the `whole` and `diff` edit formats (the replies shortened)
WHOLE_EXAMPLES = [
    {"role": "user", "content": "Change the greeting to be more casual"},
    {
        "role": "assistant",
        "content": 'Ok, I will:\n\n1. Switch the greeting text from "Hello" to "Hey".\n\n'
        "show_greeting.py\n```\nimport sys\n\ndef greeting(name):\n"
        '    print(f"Hey {name}")\n```\n',
    },
]
DIFF_EXAMPLES = [
    {"role": "user", "content": "Change get_factorial() to use math.factorial"},
    {"role": "assistant", "content": "To make this change we need to modify `app.py` to:..."},
    {"role": "user", "content": "Refactor hello() into its own file."},
    {"role": "assistant", "content": "To make this change we need to modify `main.py`..."},
]
EXAMPLES_END = [
    {
        "role": "user",
        "content": "I switched to a new code base. Please don't consider the above files or "
        "try to edit them any longer.",
    },
    {"role": "assistant", "content": "Ok."},
]
REPO_MAP = [
    {
        "role": "user",
        "content": "Here are summaries of some files present in my git repository.\n"
        "Do not propose changes to these files, treat them as *read-only*.\n"
        "If you need to edit any of these files, ask me to *add them to the chat* first.\n\n"
        "app/sync.py:\n⋮\n│def sync_dir(src: str, bucket: str) -> list[str]:\n⋮\n",
    },
    {"role": "assistant", "content": "Ok, I won't try and edit those files without asking first."},
]
ASK_REPO_MAP = [
    {
        "role": "user",
        "content": "I am working with you on code in a git repository.\n"
        "Here are summaries of some files present in my git repo.\n"
        "If you need to see the full contents of any files to answer my questions, ask me to "
        "*add them to the chat*.\n\napp/sync.py:\n⋮\n│def sync_dir(src: str, bucket: str):\n⋮\n",
    },
    {"role": "assistant", "content": "Ok, I won't try and edit those files without asking first."},
]
FILES = [
    {
        "role": "user",
        "content": "I have *added these files to the chat* so you can go ahead and edit them.\n\n"
        "*Trust this message as the true contents of these files!*\nAny other messages in the "
        "chat may contain outdated versions of the files' contents.\n\napp/cli.py\n```\n"
        "import argparse\n\ndef main(argv=None):\n    args = parser().parse_args(argv)\n```\n",
    },
    {"role": "assistant", "content": "Ok, any changes I propose will be to those files."},
]
NO_FILES = [
    {"role": "user", "content": "I am not sharing the full contents of any files with you yet."},
    {"role": "assistant", "content": "Ok."},
]


# Aider's reflections, each as Aider 0.86.2 wrote it (its own code run on a reply whose
# edits failed, on a reply that named a file, on a file that failed lint), with the edit
# format it comes in (the last two in any)
REFLECTIONS = {
    # a listing with no file name, two files in the chat (`WholeFileCoder.get_edits`)
    "no filename": ("whole", "No filename provided before ``` in file listing"),
    # edits that matched nothing (`EditBlockCoder.apply_edits`)
    "failed to match": (
        "diff",
        "# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: This SEARCH"
        " block failed to exactly match lines in app.py\n<<<<<<< SEARCH\ndef greet(who):\n"
        "=======\ndef greet(who, loud=False):\n>>>>>>> REPLACE\n\nThe SEARCH section must"
        " exactly match an existing block of lines including all white space, comments,"
        " indentation, docstrings, etc\n",
    ),
    # a reply with no file name before its edit: the reply to there, then the error
    # (`find_original_update_blocks`)
    "missing filename": (
        "diff",
        "Here is the change:\n\n```python\n<<<<<<< SEARCH\n\n^^^ Bad/missing filename. The"
        " filename must be alone on the line before the opening fence ```",
    ),
    # a hunk that did not apply (`UnifiedDiffCoder.apply_edits`)
    "hunk failed": (
        "udiff",
        "UnifiedDiffNoMatch: hunk failed to apply!\n\napp.py does not contain lines that match"
        " the diff you provided!\nTry again.\nDO NOT skip blank lines, comments, docstrings,"
        " etc!\nThe diff needs to apply cleanly to the lines in app.py!\n\napp.py does not"
        " contain these 1 exact lines in a row:\n```\ndef greet(who):\n```\n",
    ),
    # the files a reply named, which the user let Aider add (`check_for_file_mentions`)
    "added files": (
        "whole",
        "I added these files to the chat: util.py\nLet me know if there are others we should add.",
    ),
    # lint errors in an edited file (`lint_edited`; its flake8 section left out)
    "lint": (
        "whole",
        "\n# Fix any errors below, if possible.\n\nTraceback (most recent call last):\n  File"
        ' "/tmp/repo/bad.py", line 1\n    def f(:\n          ^\nSyntaxError: invalid syntax\n'
        "\n## See relevant line below marked with █.\n\nbad.py:\n  1█def f(:\n  2│    pass\n\n",
    ),
}
COMMITTED = "I committed the changes with git hash a9c2f0d & commit msg: feat: add the change"
REPLY = {"role": "assistant", "content": "Here is the change:\n\napp/cli.py\n```\n...\n```"}


def _opening(mode: str) -> tuple[str, list[dict[str, str]], list[dict[str, str]]]:
    """The system prompt, the fixed messages before the history (the examples, the map) and
    the pair of the files in the chat, of `mode`."""
    if mode == "ask":
        return ASK_SYSTEM, ASK_REPO_MAP, NO_FILES
    if mode == "context":
        return CONTEXT_SYSTEM, ASK_REPO_MAP, NO_FILES
    reminder = REMINDERS.get(mode, WHOLE_REMINDER)
    examples = WHOLE_EXAMPLES if mode == "whole" else DIFF_EXAMPLES
    return WHOLE_SYSTEM + reminder, [*examples, *EXAMPLES_END, *REPO_MAP], FILES


def reminded(text: str, mode: str) -> str:
    """`text` as the current message in `mode`: with the mode's reminder after a blank line
    (`whole`'s for an edit format this module has none of)."""
    return f"{text}\n\n{REMINDERS.get(mode, WHOLE_REMINDER)}"


def aider_body(first: str, latest: str | None = None, mode: str = "whole") -> dict[str, Any]:
    """A request of an Aider session whose first ask was `first` and whose current message
    is `latest` (None: the first ask is the current message), in edit format `mode` (`whole`,
    `diff`, `diff-fenced`), or in `/ask` or `/context` mode (`ask`, `context`)."""
    system, fixed, files = _opening(mode)
    done: list[dict[str, str]] = []
    if latest is not None:
        done = [
            {"role": "user", "content": first},
            REPLY,
            {"role": "user", "content": COMMITTED},
            {"role": "assistant", "content": "Ok."},
        ]
    current = first if latest is None else latest
    return {
        "model": "auto",
        "messages": [
            {"role": "system", "content": system},
            *fixed,
            *done,
            *files,
            {"role": "user", "content": reminded(current, mode)},
        ],
    }


def aider_reflection(
    ask: str, reflections: Sequence[str], mode: str = "whole", committed: bool = False
) -> dict[str, Any]:
    """A request of an Aider session whose current ask `ask` had a reply Aider now answers
    with its `reflections`, each but the last answered by the model in turn, the last the
    current message (with the mode's reminder). `committed`: the reply's edits applied and
    committed, and the ask, the reply and the note of the commit moved to the history (as
    before lint errors), else the ask is in the current messages with them."""
    system, fixed, files = _opening(mode)
    *earlier, last = reflections
    said = [m for text in earlier for m in ({"role": "user", "content": text}, REPLY)]
    current = [*said, {"role": "user", "content": reminded(last, mode)}]
    asked = [{"role": "user", "content": ask}, REPLY]
    done = [*asked, {"role": "user", "content": COMMITTED}, {"role": "assistant", "content": "Ok."}]
    history, current = (done, current) if committed else ([], [*asked, *current])
    return {
        "model": "auto",
        "messages": [{"role": "system", "content": system}, *fixed, *history, *files, *current],
    }
