"""What names a source file (`classifier.source_files`), the sign that an ask in a coding
agent's session is coding whatever the model reads (`rules.session_intent`): a file name's
shape and a language's extension, not a version, a domain, an abbreviation or a sentence's
end, nor a prose or data file.
"""

from __future__ import annotations

import pytest

from classifier.source_files import named_source_file

NAMES = {
    "add a main guard to haiku.py": "haiku.py",
    "add a main guard to haiku.py.": "haiku.py",  # the sentence's stop is no part of it
    "see `haiku.py`, line 12": "haiku.py",
    "the error is at haiku.py:12": "haiku.py",
    "给haiku.py加一个main guard": "haiku.py",  # ASCII names among any script's words
    "edit src/utils/io.py and the tests": "src/utils/io.py",
    "run ./deploy.sh": "./deploy.sh",
    "fix src\\main.rs": "src\\main.rs",
    "a test for src/a.c": "src/a.c",
    "rename Main.java": "Main.java",
    "the Button.tsx component": "Button.tsx",
    "update next.config.js": "next.config.js",
    "update .eslintrc.js": ".eslintrc.js",
    "add a job to ci.yaml": "ci.yaml",
    "bump the version in pyproject.toml": "pyproject.toml",
    "fix the Makefile": "Makefile",
    "the makefile's clean target": "makefile",
    "add a dependency to package.json": "package.json",
    "src/go.mod needs go 1.22": "src/go.mod",
    "edit ../lib/x.rs": "../lib/x.rs",  # a path, a dotted directory's too, is no host
    "the service in config.d/app.yaml": "config.d/app.yaml",
}
NO_NAMES = [
    "write a haiku about python 3.11",  # a version
    "install version 2.0.1 of go",
    "a haiku about 10.sh",  # digits alone: a number, not a stem
    "the 3.11.sh release",
    "a haiku about example.com",  # a domain: .com is no extension
    "a haiku about www.gob.py",  # Paraguay's government, not a Python file
    "a haiku about mec.gov.py",
    "a haiku about abc.co.py",
    "read https://github.com/a/b/blob/main/x.py",  # a URL's path is no local file
    # a web address written without its scheme: a dotted host before the first "/"
    "Summarize the article at bbc.co.uk/news/world-europe-123.html",
    "Summarise this page for me: en.wikipedia.org/wiki/index.php",
    "Write a short review of the essay at paulgraham.com/greatwork.html",
    "read github.com/a/b/blob/main/x.py",
    "mail me@deploy.sh",
    "spring, e.g. cherry blossoms",  # abbreviations
    "i.e. sh is a shell",
    "the year 300 b.c. in Rome",  # a stem of one letter, with no directory
    "I use python. py is short",  # a sentence's end, then a word
    "the end.Go home",  # an upper-case "extension"
    "HAIKU.PY",
    "a haiku about Node.js",  # a library's name
    "Vue.js or React",
    "edit haiku.py.bak",  # a longer name
    "haiku.pyc",
    "Makefiles are fun",
    "xMakefile",
    "lego.mod",
    "all .py files",  # an extension alone names no file
    "notes.md",  # prose and data files
    "data.csv",
    "poem.txt",
    "report.pdf",
    "config.json",
    "",
]


@pytest.mark.parametrize("text", NAMES)
def test_a_source_files_name_is_found(text: str) -> None:
    assert named_source_file(text) == NAMES[text]


@pytest.mark.parametrize("text", NO_NAMES)
def test_no_source_file_is_named(text: str) -> None:
    assert named_source_file(text) is None


def test_the_name_after_a_long_text_is_found() -> None:
    """The latest ask is clipped to its head and tail; a name at its end is read."""
    text = "write a haiku about the snow. " * 60 + "then put it in haiku.py"
    assert named_source_file(text) == "haiku.py"


def test_the_work_is_bounded_on_a_hostile_text() -> None:
    """Thousands of dotted words, slashes and near-names, each clipped like an ask: linear
    in the text, at most `_MOST` names read (not timed: each call returns, none is found)."""
    hostile = ["a." * 1000, "ab." * 666, "a/" * 1000, "a" * 2000, ".py " * 500, "10.sh " * 333]
    for text in hostile:
        assert named_source_file(text) is None
