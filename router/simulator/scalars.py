"""The scalar a schema's field gets: a number within its bounds (`number`), a string its
`format` or its field's name suggests (`string`).

A string that a client may run is never the ask's words: a command's field (`cmd`,
`command`, `shell`, `script`, `bash`, a field named `code`) and any free string of a shell
tool (`runs_commands`: Codex's `exec_command`) get `COMMAND`, which only lists. Codex ran
`/bin/bash -lc 'Read calc.py and fix the bug'`, the ask's first words, and an ask opening
"rm -rf build and ..." would have run (found in a live review of demo mode). A path's field
gets the file the ask names where it names one (`named_file`): Claude Code's `Read` read a
`src/main.py` that was never there, whatever file the ask named (the same review).

Kept apart from `instances`, which walks a schema (`$ref`s, `anyOf` branches, objects and
arrays, the budget that ends a recursive one) and asks this module for each leaf: what a
leaf holds is decided by its own schema and name alone, and a fix to one (a rating's
range, a city's place) is no change to how a document is walked.
"""

from __future__ import annotations

import math
from typing import Any

from classifier.file_tools import SHELL_WORDS
from classifier.source_files import named_source_file
from router.simulator.asked_tool import file_ask, named_place, without_injected, words
from router.simulator.prompt import ends
from router.simulator.workdir import rooted

COMMAND = "ls -la"
"""What a command's field gets: a command that reads and changes nothing."""
PATH = "src/main.py"
"""What a path's field gets where the ask names no file."""

STRING_HINTS = (
    ("city", "Paris"),
    ("location", "Paris, France"),
    ("path", PATH),
    ("file", PATH),
    ("command", COMMAND),
    ("cmd", COMMAND),
    ("shell", COMMAND),
    ("script", COMMAND),
    ("bash", COMMAND),
    ("url", "https://example.com"),
    ("email", "user@example.com"),
    ("date", "2026-01-15"),
    ("unit", "celsius"),
)
"""What a string field gets whose name has a word that starts with the hint, the first hint
that one does (`hinted`)."""

_FORMATS = {
    "date-time": "2026-01-15T09:30:00Z",
    "date": "2026-01-15",
    "time": "09:30:00",
    "email": "user@example.com",
    "uri": "https://example.com",
    "uuid": "00000000-0000-4000-8000-000000000000",
}
_LONGEST = 64  # the most characters a string's `minLength` is met with
# whole field names that hold code to run, though their words are no command's
_CODE_FIELDS = frozenset({"code", "source_code"})


def number(schema: dict[str, Any], integer: bool) -> int | float:
    """The middle of the range `minimum`/`exclusiveMinimum` and `maximum` give (rounded
    down for an integer), else 1, or the least the lower bound allows, within `maximum`.
    A rating asked on a scale is none of its ends: paper-qa's summaries, asked a
    `"relevance_score": 0-10`, got its lowest, 0, and paper-qa 2026.8.12 keeps no summary
    scored under 1 (`evidence_relevance_score_cutoff`, `paperqa/settings.py`), so a demo
    answer would have had no evidence (found in a live review)."""
    low, above, high = (_bound(schema, k) for k in ("minimum", "exclusiveMinimum", "maximum"))
    if above is not None:
        past = above + (1 if integer else 0.5)
        low = past if low is None else max(low, past)
    if integer and low is not None:
        low = math.ceil(low)
    if low is not None and high is not None and low <= high:
        middle = (low + high) / 2
        return math.floor(middle) if integer else middle
    value = 1.0 if low is None else low
    if high is not None and value > high:
        value = high
    return math.ceil(value) if integer else value


def _bound(schema: dict[str, Any], key: str) -> float | None:
    """A numeric bound of the schema, None when absent or not a finite number."""
    value = schema.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def string(
    name: str,
    schema: dict[str, Any],
    user: str,
    given: str = "",
    shell: bool = False,
    cwd: str = "",
) -> str:
    """A string its `format` suggests, else `given` (an id field's shown id, an agent's
    name), else the place the prompt names for a city or location field (`named_place`,
    given the name as written: lower-cased, `homeCity` was one word and no city's), else
    one its field's name suggests (`hinted`; a path's the file the prompt names,
    `named_file`, under the working directory `cwd` where the field wants an absolute path:
    `workdir.rooted`), else `COMMAND` in a shell tool's arguments (`shell`) or a code field,
    else the prompt's first words; padded or cut to its `minLength`/`maxLength`."""
    fmt = schema.get("format")
    text = _FORMATS.get(fmt, "") if isinstance(fmt, str) else ""
    text = text or given or named_place(name, user) or hinted(name)
    if text == PATH:
        text = rooted(named_file(user) or text, name, schema, cwd)
    if not text and (shell or name.lower() in _CODE_FIELDS):
        text = COMMAND  # what a client runs is never the ask's words
    text = text or " ".join(user.split(maxsplit=6)[:6]) or "example"  # not the whole prompt
    least, longest = schema.get("minLength"), schema.get("maxLength")
    if isinstance(least, int) and least > len(text):
        text = text.ljust(min(least, _LONGEST), "x")
    return text[:longest] if isinstance(longest, int) and longest >= 0 else text


def hinted(name: str) -> str:
    """What `STRING_HINTS` gives the field `name`: the value of the first hint one of its
    words (snake, kebab and camel case split: `asked_tool.words`) starts with, else "".

    A word that starts with the hint, not a name that holds it: a whole word (`file_path`,
    `homeCity`), its plural (`commands`, a list of command lines) and a compound written
    as one (`filename`, `cityname`) keep their hint. Found anywhere in the name, a hint gave
    `velocity` and `capacity` "Paris", `allocation` "Paris, France", `profile` a file's path
    and `candidate` a date (found in review)."""
    said = words(name)
    return next(
        (value for hint, value in STRING_HINTS if any(w.startswith(hint) for w in said)), ""
    )


def runs_commands(tool: str) -> bool:
    """Whether the tool named `tool` runs what it is given as a command: a word of its name
    (`asked_tool.words`) is a shell tool's (`classifier.file_tools.SHELL_WORDS`: Codex's
    `exec_command`, `run_terminal_cmd`, `Bash`), or is "execute" (`execute_python`): a free
    string of its arguments may be run, so none quotes the ask (`string`)."""
    said = words(tool[:200])
    return "execute" in said or not SHELL_WORDS.isdisjoint(said)


def named_file(user: str) -> str:
    """The file the ask names, "" where it names none: the first source file in its ends
    (`classifier.source_files.named_source_file`, past `<system-reminder>`s), else a file of
    any extension after its opening verb (`asked_tool.file_ask`: "Summarize notes.md", "Open
    ./docs/guide.txt"; `named_source_file` takes source files alone, anywhere in the ask).
    Bounded: the ask's head and tail (`prompt.ends`)."""
    read = without_injected(ends(user))
    found = file_ask(read)
    return named_source_file(read) or (found[1] if found else "")
