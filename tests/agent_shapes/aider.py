"""What Aider sends: its system prompt, its edit format's example conversation and the
message that ends it, its fixed pairs (the repository map, the files added to the chat, each
with Aider's reply), then the session's history and the current message, with the edit
format's reminder after it (`reminder: user`, the default for a model Aider does not know,
as `openai/auto` is). From `format_chat_chunks` in Aider's `aider/coders/base_coder.py` and
its prompts (`base_prompts.py`, `wholefile_prompts.py`, `editblock_prompts.py`,
`ask_prompts.py`), in the order of its `ChatChunks.all_messages`.

The system prompt, the reminder, the map and the file are shortened; the example
conversations and Aider's fixed wordings are verbatim.
"""

from __future__ import annotations

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
ASK_SYSTEM = (
    "Act as an expert code analyst.\nAnswer questions about the supplied code.\n"
    "Always reply to the user in English.\n"
)
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


def aider_body(first: str, latest: str | None = None, mode: str = "whole") -> dict[str, Any]:
    """A request of an Aider session whose first ask was `first` and whose current message
    is `latest` (None: the first ask is the current message), in edit format `mode` (`whole`,
    `diff`) or in `/ask` mode (`ask`)."""
    if mode == "ask":
        system, fixed, files = ASK_SYSTEM, ASK_REPO_MAP, NO_FILES
    else:
        examples = WHOLE_EXAMPLES if mode == "whole" else DIFF_EXAMPLES
        system, files = WHOLE_SYSTEM + WHOLE_REMINDER, FILES
        fixed = [*examples, *EXAMPLES_END, *REPO_MAP]
    done: list[dict[str, str]] = []
    if latest is not None:
        done = [
            {"role": "user", "content": first},
            {"role": "assistant", "content": "Here is the change:\n\napp/cli.py\n```\n...\n```"},
            {"role": "user", "content": "I committed the changes with git hash a9c2f0d & commit "
             "msg: feat: add the change"},
            {"role": "assistant", "content": "Ok."},
        ]  # fmt: skip
    current = first if latest is None else latest
    if mode != "ask":  # the edit format's reminder, after the current message
        current = f"{current}\n\n{WHOLE_REMINDER}"
    return {
        "model": "auto",
        "messages": [
            {"role": "system", "content": system},
            *fixed,
            *done,
            *files,
            {"role": "user", "content": current},
        ],
    }
