"""The working directory a system prompt states, and a file's path made absolute under it.

Deep Agents Code (dcode 0.1.57) offers `write_file(file_path)`, "Absolute path where the
file should be written. Must be absolute, not relative.", and states its directory in its
system prompt ("The filesystem backend is currently operating in: `/work/repo`"); the
simulator wrote `file_path: "fib.py"`, and dcode wrote the file at `/fib.py`, outside the
project (a live review of demo mode). Claude Code states its own ("Primary working
directory: /work/repo") beside a `Read` whose `file_path` is "The absolute path to the file
to read". A model writes the path under that directory; so does the simulator now, where a
path's field asks for an absolute path or is named `file_path`, and the system prompt
states a directory (`rooted`).
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from router.simulator.asked_tool import words

_READ = 64 * 1024  # characters of the system text searched for a directory
# "Primary working directory: /x", "Current working directory: /x", "cwd: /x", dcode's
# "currently operating in: `/x`": the phrase, a colon or "is", then an absolute path, bare or
# quoted; every part bounded
_STATED = re.compile(
    r"(?:working[ _-]directory|\bcwd|\bworkdir|currently operating in)[ \t]{0,8}"
    r"(?::|=|\bis\b)?[ \t]{0,8}[`\"']?(/[^\s`\"'<>]{0,512})",
    re.I,
)
_FILE_PATH = ("file", "path")  # the field's words where its name alone asks for a path


def working_directory(system: str) -> str:
    """The first absolute directory the system text's head states (`_STATED`), trailing
    punctuation and slashes off; "" where it states none."""
    found = _STATED.search(system[:_READ])
    if found is None:
        return ""
    path = found.group(1).rstrip(".,;:)]")
    return path.rstrip("/") or "/"


def rooted(path: str, name: str, schema: dict[str, Any], cwd: str) -> str:
    """`path` under `cwd` where it is relative and the field wants it absolute: its
    description says "absolute", or the field is named `file_path`; else `path` as it is.
    Without a stated directory (`cwd` "") nothing is made up."""
    if not cwd or not path or path.startswith("/"):
        return path
    about = schema.get("description")
    absolute = isinstance(about, str) and "absolute" in words(about[:400])
    if not absolute and tuple(words(name)) != _FILE_PATH:
        return path
    return posixpath.normpath(posixpath.join(cwd, path))
