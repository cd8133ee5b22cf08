"""A YAML error said without any of the file's text: what went wrong, with its line and
column.

A config file holds literal secrets (a header value, a password in a URL), a suite file
prompts, which no log may hold unless a switch says so; PyYAML's messages quote the input:
the lines around the problem, and in the message itself a tag (`could not determine a
constructor for the tag '!Pa55wordSECRET'`), an alias, an anchor, the character the scanner
stopped at, and our own a key given twice. Leaving out the lines was not enough: the rest
reached `config check`, the log of a refused SIGHUP reload and the reload's 400 answer, and
a suite's error the canary's log (found in review). Each message PyYAML is known to write
with a piece of the input is said here without it; any other message is cut at its first
quote, so one a later PyYAML adds cannot quote the file either. A value starting with `!`,
`*` or `&` is the likely mistake behind a tag or alias error (a password that starts with
one), so those say to quote it.

In `evals`, so that the suite reader (`evals.suite_yaml`) and the router's config reader
(`router.config_yaml`) both say errors this way: the router may import `evals`, never the
reverse.
"""

from __future__ import annotations

import re

import yaml
from yaml.parser import ParserError
from yaml.scanner import ScannerError

# What the parser names as found instead of what it expected: a token's kind, never its text.
_TOKENS = frozenset(
    {"'<directive>'", "'<document start>'", "'<document end>'", "'<stream start>'"}
    | {"'<stream end>'", "'<block sequence start>'", "'<block mapping start>'", "'<block end>'"}
    | {"'<alias>'", "'<anchor>'", "'<tag>'", "'<scalar>'"}
    | {"'['", "'{'", "']'", "'}'", "'?'", "':'", "'-'", "','"}
)
_QUOTED = r"""(?:'.*'|".*")"""  # what PyYAML puts in with %r: one value, whatever it holds
_QUOTE = " (YAML reads a value that starts with {0} as {1}; quote such a value: '{0}...')"

# (PyYAML's message with the input it quotes, ours without) for each message known to quote
# the input; ours only name a key when it is a lower-case word (`evals.yaml_mapping`).
_SAID: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.DOTALL), said)
    for pattern, said in (
        (
            rf"could not determine a constructor for the tag {_QUOTED}",
            "an unknown tag" + _QUOTE.format("!", "a tag"),
        ),
        (
            rf"found undefined alias {_QUOTED}",
            "an undefined alias" + _QUOTE.format("*", "an alias of an & anchor"),
        ),
        (rf"found duplicate anchor {_QUOTED}; first occurrence", "an anchor given twice, first"),
        (
            rf"(?:found undefined|duplicate) tag handle {_QUOTED}",
            "an undefined or repeated tag handle",
        ),
        (
            rf"found unknown escape character {_QUOTED}",
            "an unknown escape: in double quotes a backslash starts one (write \\\\ for a "
            "backslash, or use single quotes)",
        ),
        (
            r"found character '\\t' that cannot start any token",
            "a tab, which cannot start anything in YAML (indent with spaces)",
        ),
        (
            rf"found character {_QUOTED} that cannot start any token",
            "a character that cannot start anything",
        ),
        (r"found unacceptable key \(.*\)", "a list or mapping as a key"),
        (r"failed to decode base64 data: .*", "!!binary data that is not base64"),
        (rf"{_QUOTED} codec can't decode .*", "a %-escape that is not UTF-8"),
        (r"the key '[a-z][a-z_]{0,39}' is given twice \(first on line \d+\)", ""),  # kept as it is
    )
)
# "expected X, but found Y": X is PyYAML's own words, Y a token's kind (the parser), what
# PyYAML puts in unquoted (a node's kind, `mapping`; a count) or the character the scanner
# stopped at (input).
_BUT = re.compile(r"(expected .*?), but (found|got) (.*)", re.DOTALL)
# PyYAML's own quoted words, as in `expected ',' or ']'` and `could not find expected ':'`
_LITERAL = re.compile(r"""'[^\w'"]'|'<[a-z ]+>'""")


def problem(exc: yaml.YAMLError) -> str:
    """What is wrong, where: the context and the problem, each with its line and column,
    none quoting the file."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return without_input(str(exc), exc)  # a reader's error is marked (`unreadable`)
    parts = [
        f"{without_input(text, exc)} ({_at(mark)})"
        if mark is not None
        else without_input(text, exc)
        for text, mark in ((exc.context, exc.context_mark), (exc.problem, exc.problem_mark))
        if text
    ]
    return ": ".join(parts) or "not YAML"


def unreadable(text: str, at: int) -> yaml.MarkedYAMLError:
    """PyYAML's error for a character YAML does not allow (a `ReaderError`, at `at` in
    `text`) names it by its code and says where by its position in the whole text, on a
    second line: at its line and column instead, without it."""
    line = text.count("\n", 0, at)
    mark = yaml.Mark("<yaml>", at, line, at - (text.rfind("\n", 0, at) + 1), None, 0)
    problem = (
        "a character YAML does not allow (such as a control character but tab or a line break)"
    )
    return yaml.MarkedYAMLError(None, None, problem, mark)


def _at(mark: yaml.Mark) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}"


def without_input(text: str, exc: yaml.YAMLError) -> str:
    """One part of `exc`'s message (its problem or its context), without the input."""
    for pattern, said in _SAID:
        if pattern.fullmatch(text):
            return said or text
    expected = _BUT.fullmatch(text)
    if expected is not None and _only_literals(expected.group(1)):
        head, verb, found = expected.groups()
        token = isinstance(exc, ParserError) and found in _TOKENS
        if not (token or not any(quote in found for quote in "'\"")):
            found = "another character" if isinstance(exc, ScannerError) else "something else"
        return f"{head}, but {verb} {found}"
    if _only_literals(text):
        return text
    quote = min(i for i in (text.find("'"), text.find('"')) if i >= 0)
    return text[:quote].rstrip(" :(") + " (the rest is not shown: it would quote the file)"


def _only_literals(text: str) -> bool:
    """Whether all `text` quotes is PyYAML's own words (`expected ',' or ']'`), if anything."""
    return not any(quote in _LITERAL.sub("", text) for quote in "'\"")
