"""Whether an ask names a source file: a path or file name ending in a programming
language's extension ("haiku.py", "src/app/Button.tsx", "./deploy.sh"), or a build file
named in full ("Makefile", "package.json").

In a coding agent's session such an ask is coding whatever the model reads
(`classifier.rules.session_intent`): the agent will read or edit that file. "add a main
guard to haiku.py" in Kimi CLI's session was prose 0.989, by "haiku", and went to the cloud
(found in a live review). Outside one, so is an ask with a shell or a file tool offered
(`classifier.rules.offered_file_intent`, `classifier.file_tools`): "Explain what calc.py
does." in open-codex, a `shell` its one tool, was reasoning 0.89. With no tools, or a chat
app's web search alone, a file name decides nothing: "write a haiku about my script
deploy.sh" in a chat app is prose.

Which extensions: the languages' (`_SOURCE`), with web pages and styles, and configuration
read by programs (.yaml, .yml, .toml, .ini, .cfg): CI workflows, compose files, pyproject,
Cargo, written and edited as a project's code is. Not prose or data (.md, .txt, .pdf, .csv,
.json, .xml): a CSV or a JSON file is as often a data set to summarise or translate as a
program's input, and "summarise the reviews in reviews.json" is no coding. The JSON and
XML that are a project's build files are named in full (`_BUILD_FILES`). Extensions are
matched in lower case only ("Main.java", not "FOO.PY"): an upper-case one is an abbreviation
more often than a file.

What is no file name: a version ("python 3.11": no extension is digits), a domain
("example.com": .com is none; "www.gob.py", "mec.gov.py" are cut by their shape), a URL or
an address (a name never follows ":" or "@"), a web address written without its scheme, a
dotted host before the first "/" ("bbc.co.uk/news/world-europe-123.html",
"en.wikipedia.org/wiki/index.php": with a chat app's web tools they were coding, found in
review; "./src/app.py" and "config.d/app.yaml" are paths still), an abbreviation ("e.g.",
"i.e."; "300 b.c." has a stem of one letter, which a file name needs a directory before), a
sentence's end before a word ("python. py is short": a name has no space), a JavaScript
library's name ("Node.js", "Vue.js", but "next.config.js" is a file), an all-digit stem
("10.sh"). A domain whose country code is an extension ("docs.rs", "bun.sh") is taken for a
file: an ask that names one in an agent's session, or with a shell or file tool offered, is
about code anyway. The names are ASCII, found among any script's words:
"给haiku.py加一个main guard" names haiku.py.

Bounded: read only when a rule needs it (an agent's session, or a shell or file tool offered
outside one; the model reading other work), over the already-clipped ask
(`classifier.clip`). Each search skips in C to a literal ("." or "file"), a name is read
back from there by `str.rstrip` (at most `_LONGEST` characters), and at most `_MOST` names
are read: 4 to 8 µs over an ask of 2,000 characters, about 0.05 ms over 2,000 of "a.a.a." or
"10.sh 10.sh" (2026-12-06, best of 7 on the shared 2-core build machine).
"""

from __future__ import annotations

import re

_SOURCE = (
    "py", "pyi", "pyx", "ipynb", "js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "vue",
    "svelte", "astro", "go", "rs", "java", "kt", "kts", "scala", "groovy", "gradle", "clj",
    "cljs", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "cs", "fs", "swift", "rb", "php",
    "lua", "sh", "bash", "zsh", "fish", "ps1", "bat", "sql", "dart", "ex", "exs", "erl", "hs",
    "elm", "jl", "zig", "nim", "sol", "f90", "asm", "html", "htm", "css", "scss", "sass",
    "proto", "graphql", "gql", "tf", "hcl", "nix", "cmake", "dockerfile",
    "yaml", "yml", "toml", "ini", "cfg",  # configuration read by programs
)  # fmt: skip
# Build files named in full: a project's, though their extensions are data's or none
_BUILD_FILES = frozenset(
    ("CMakeLists.txt", "package.json", "tsconfig.json", "composer.json", "pom.xml", "go.mod")
)
_BUILD_EXTENSIONS = frozenset(name.rsplit(".", 1)[1] for name in _BUILD_FILES)
# Makefile, Dockerfile…, in any case ("the makefile")
_FILE_KINDS = frozenset(("make", "docker", "container", "jenkins", "gem", "rake", "vagrant"))
# JavaScript libraries named by a file name's shape: bare, they are no file
_LIBRARIES = "node next nuxt vue three d3 chart express ember backbone angular react p5 alpine"
_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./\\-"
_LONGEST = 256  # characters of a path read back from its extension: longer is no file name
_MOST = 16  # names read in one text: an ask names its file among its first ones
_EXTENSIONS = frozenset(_SOURCE)
_END = r"(?![A-Za-z0-9_/\\-]|\.[A-Za-z0-9_])"  # "haiku.py." ends a sentence, "x.py.bak" no
# Where a name may end: a dot and a lower-case extension's shape (a literal first, which
# the search skips to), or a build file's name; the name is the run of `_NAME_CHARS` before
_EXT_AT = re.compile(rf"\.([a-z][a-z0-9]{{0,9}}+){_END}")  # possessive: no retreat
_FILE_AT = re.compile(rf"file{_END}")
_STEM = r"[A-Za-z0-9_-]"
# A whole name ending in an extension: not a web address ("www.", a dotted host before the
# first "/" as in "bbc.co.uk/x.html", a domain's country code as in "mec.gov.py"), nor a
# JavaScript library's name, and a stem of two characters or one after a directory ("b.c"
# is no file, "src/a.c" one), not digits alone ("10.sh")
_FILE = re.compile(
    rf"(?!(?i:www\.|(?:{_LIBRARIES.replace(' ', '|')})\.js$))"
    r"(?!(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}/)"
    rf"(?!(?:.*[/\\])?[0-9.]*\.[a-z0-9]+$)"
    rf"(?:.*[/\\]{_STEM}|.*{_STEM}{{2}})(?<!\.com|\.org|\.net|\.edu|\.gov)(?<!\.co)\.[a-z0-9]+"
)


def named_source_file(text: str) -> str | None:
    """The first source file `text` names, or None: a name ending in an extension of
    `_SOURCE` (`_EXT_AT`, `_FILE`) or a build file's (`_BUILD_FILES`, `_FILE_KINDS`),
    starting a word: not after ":" or "@" (a URL's, an address's), nor inside a longer word
    ("xMakefile"). Both searches skip to a literal ("." and "file"), in C; at most `_MOST`
    names of each are read: a text of a thousand "a.b" costs no more."""
    for found, _ in zip(_EXT_AT.finditer(text), range(_MOST), strict=False):
        ext = found.group(1)
        if ext not in _EXTENSIONS and ext not in _BUILD_EXTENSIONS:
            continue
        before = _name_before(text, found.start())
        if before is None:
            continue
        name = before + found.group()
        # a source file's shape, or a build file's name: "package.json", not "config.json"
        if _FILE.fullmatch(name) if ext in _EXTENSIONS else _built(name):
            return name
    for found, _ in zip(_FILE_AT.finditer(text), range(_MOST), strict=False):
        if (before := _name_before(text, found.start())) and _built(before + "file"):
            return before + "file"
    return None


def _built(name: str) -> bool:
    """Whether `name`'s last part is a build file's name ("src/go.mod", "Makefile")."""
    base = name[max(name.rfind("/"), name.rfind("\\")) + 1 :]
    return base in _BUILD_FILES or (base.endswith("file") and base[:-4].lower() in _FILE_KINDS)


def _name_before(text: str, end: int) -> str | None:
    """The run of `_NAME_CHARS` that ends at `end` in `text` ("" for none), or None when it
    is no name's start: after ":" or "@", or longer than `_LONGEST`. `rstrip` finds it in C."""
    head = text[max(0, end - _LONGEST - 1) : end]
    run = head[len(head.rstrip(_NAME_CHARS)) :]
    at = end - len(run) - 1
    if len(run) > _LONGEST or (at >= 0 and text[at] in ":@"):
        return None
    return run
