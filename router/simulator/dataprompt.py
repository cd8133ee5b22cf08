"""What a data assistant's prompt asks and shows: a SQL query asked for, the tables its
schema names, the functions it says are already provided, the variable it asks declared.

vanna (2.0's legacy `generate_sql`) asks for SQL in the system prompt ("You are a SQLite
expert. Please help to generate a SQL query to answer the question.", the schema as
`CREATE TABLE` statements) and sends the bare question as the user turn: the simulator
answered prose, and vanna ran it as SQL (`near "A": syntax error`). pandas-ai 3.0 asks for
Python and lists what it provides ("The following functions have already been provided.
Please use them as needed and do not redefine them.", `def execute_sql_query(sql_query:
str) -> pd.DataFrame`): the simulator's answer defined a function of that name, and pandas-ai,
which requires the code to call it, retried until it gave up (found in review). So a
prompt that asks for a SQL query gets one over the first table it shows (`sql_answer`), and
code for a prompt that shows functions as provided calls them (`call_answer`).

Everything is read in bounded windows: the ask at a text's ends (`prompt.ends`), tables,
functions and variables in `_HEAD` and `_TAIL` characters, so a long prompt stays fast.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

from router.simulator.instances import value_for
from router.simulator.shown_forms import PARAGRAPH_SENTENCE_END

_HEAD, _TAIL = 16 * 1024, 4 * 1024  # where tables and provided functions are looked for
# a sentence (or a list item) that asks for SQL: up to five words into it ("Please help
# to", "Given the schema below,"), a verb of writing, up to three words ("a syntactically
# correct"), a dialect and "query" or "statement". "Each question will be turned into a
# button that the user can click to generate a new SQL query" (vanna's follow-up questions)
# asks for none: the verb is too far into its sentence.
# Read in linear time (found in review: 1.1 s on 2 KB of "1\n", per text, the pattern
# starting again after every newline and splitting each run of digits, dots and spaces
# between a list item's lead and the words in every way; now under 3 ms on any 2 KB): a
# match starts only where a run of lead characters (`_LEAD`: "- ", "1. ", "> ", spaces)
# starts, and only if a sentence starts within it (the text's start, a newline or ". " in
# it, or one of "!?:;" before it); the run and each word are taken whole (`*+`, `++`).
# Nothing is lost: words may begin with digits or "-" anyway, and one made only of lead
# characters needs no place among the five. Over a million generated texts it finds an ask
# exactly where the earlier pattern did (docs/benchmarks.md).
_LEAD = r"[\s\-*#>\d.)]"
_DIALECT = (
    r"(?:sql|sqlite|postgres(?:ql)?|mysql|mariadb|duckdb|t-sql|tsql|mssql|snowflake|bigquery"
    r"|clickhouse|trino|presto|redshift|oracle)\s++(?:query|queries|statement|statements)\b"
)
_SQL_NOUN = re.compile(_DIALECT, re.I)  # what an ask needs at its end: found first, cheaply
_ASK_SQL = re.compile(
    rf"(?<!{_LEAD})(?:\A|(?<=[!?:;])(?=\s)|(?={_LEAD}*?(?:\n|\.\s))){_LEAD}*+"
    r"(?:[\w,'-]++\s++){0,5}?"
    r"(?:generate|write|create|produce|return|give|provide|output|compose|construct|draft"
    rf"|(?:respond|reply|answer)\s++with)\s++(?:[\w-]++\s++){{0,3}}?{_DIALECT}",
    re.I,
)
_PYTHON = re.compile(r"\bpython\b", re.I)  # a Python answer asked for: no bare SQL then
_NAME = r"(?:[A-Za-z_][\w$]*|\"[^\"\n]{1,128}\"|`[^`\n]{1,128}`|\[[^\]\n]{1,128}\])"
_CREATE = re.compile(
    r"\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:GLOBAL\s+|LOCAL\s+)?TEMP(?:ORARY)?\s+)?TABLE\s+"
    rf"(?:IF\s+NOT\s+EXISTS\s+)?({_NAME}(?:\s*\.\s*{_NAME}){{0,2}})\s*\(",
    re.I,
)
# a table shown as markup (pandas-ai 3.0: `<table dialect="duckdb" table_name="...">`).
# A tag's attributes are read up to the next "<table", so each character once: 20 KB of
# "<table " read 200 characters from each (24 ms a text, found in review; now 2 ms). The
# same name is found; among tags left open it is the last one's match
_TAGGED = re.compile(
    r"(?:\btable_name|<table\b(?:(?!<table\b)[^>\n]){0,200}?\sname)"
    r"\s*+=\s*+[\"']([A-Za-z_][\w.$]{0,127})[\"']",
    re.I,
)
_COLUMN = re.compile(r"\s*([A-Za-z_]\w*)\b")
_NOT_COLUMN = re.compile(r"\s*(?:CONSTRAINT|PRIMARY|FOREIGN|UNIQUE|CHECK|KEY|INDEX)\b", re.I)
_COLUMNS = 3  # columns an answer selects at most
_DEFINITIONS = 4096  # characters of a CREATE TABLE's column list read
# what says the functions that follow are there to be called, not written
_PROVIDED = re.compile(
    r"\balready\s+(?:been\s+)?(?:provided|defined|available|declared)\b"
    r"|\b(?:do\s+not|don't|never)\s+re-?(?:define|implement|declare)\b",
    re.I,
)
_FUNCTION_WORD = re.compile(r"\b(?:functions?|methods?|helpers?)\b", re.I)
_SENTENCE = 300  # characters either side of `_PROVIDED` read for its sentence
_SIGNATURES = 1500  # characters after it read for the functions it provides
_DEF = re.compile(r"\bdef\s+([A-Za-z_]\w*)\s*\(([^()\n]{0,300})\)")
_MOST = 8  # functions read as provided at most
_SAYS = 4  # sayings (`_PROVIDED`) of one text read at most
# a variable the code is asked to declare: its name quoted before "variable", after a verb
# of declaring ('declare "result" variable'), or named ("a variable named `answer`"). The
# quoted name is searched for first: led by the verbs, the pattern took 3 ms on a 20 KB
# window, this one 0.2 ms
_QUOTED_VARIABLE = re.compile(r"[\"'`]([A-Za-z_]\w*)[\"'`]\s+var(?:iable)?\b", re.I)
_DECLARING = re.compile(
    r"\b(?:declare|define|assign|set|create|store)\s+(?:(?:a|an|the)\s+)?\Z", re.I
)
_NAMED_VARIABLE = re.compile(r"\bvariable\s+(?:called|named)\s+[\"'`]?([A-Za-z_]\w*)", re.I)
_VARIABLES = 8  # quoted names before "variable" tried at most
_EXAMPLE = 800  # characters after a variable's mention read for the example of its value
_OPENING = re.compile(r"\{\s*\"")
_TRIES = 8  # example objects tried at most
_SQL_PARAM = re.compile(r"sql|query", re.I)
_TYPES = {"int": "integer", "float": "number", "bool": "boolean", "list": "array"}
_TYPES |= {"dict": "object", "str": "string"}


@dataclass(frozen=True, slots=True)
class Table:
    """A table the prompt's schema names, and the first of its columns (none: `*`)."""

    name: str
    columns: tuple[str, ...] = ()

    def select(self) -> str:
        return f"SELECT {', '.join(self.columns) or '*'} FROM {self.name}"


@dataclass(frozen=True, slots=True)
class Function:
    """A function the prompt says is provided: its name and its required parameters, each
    a name and the annotation's type name ("" where none)."""

    name: str
    params: tuple[tuple[str, str], ...]


def asks_sql(user: str, system: str) -> bool:
    """Whether the user's text or the system's asks for a SQL query, and the user's does not
    ask for Python (pandas-ai wants Python that runs SQL). Both are `prompt.ends` reads."""
    asked = any(
        _has(text, "quer", "statement") and _SQL_NOUN.search(text) and _ASK_SQL.search(text)
        for text in (user, system)
    )
    return asked and not _PYTHON.search(user)


def _has(text: str, *words: str) -> bool:
    """Whether a text holds any of the (lower-case) words a pattern needs: a plain search
    first, as `prompted.objects_in` does, since the patterns cost milliseconds on a long
    window that holds none of them."""
    lowered = text.lower()
    return any(word in lowered for word in words)


def window(text: str) -> str:
    """The head and the tail of a long text, where schemas and provided functions are read."""
    if len(text) <= _HEAD + _TAIL:
        return text
    return f"{text[:_HEAD]}\n…\n{text[-_TAIL:]}"


def first_table(*texts: str) -> Table | None:
    """The first table the first text naming one shows: a `CREATE TABLE` statement's or a
    table tag's (`table_name="..."`), whichever comes first."""
    for text in texts:
        read = window(text)
        if not _has(read, "table"):
            continue
        found = [m for m in (_CREATE.search(read), _TAGGED.search(read)) if m is not None]
        if not found:
            continue
        first = min(found, key=lambda match: match.start())
        if first.re is _TAGGED:
            return Table(first.group(1))
        return Table(re.sub(r"\s+", "", first.group(1)), _columns(read, first.end()))
    return None


def _columns(text: str, start: int) -> tuple[str, ...]:
    """The first plainly named columns of the definitions from `start` (just past the
    opening parenthesis) to the one closing the list; none where one is quoted or the
    list is cut off."""
    names: list[str] = []
    depth, piece = 0, start
    for index in range(start, min(len(text), start + _DEFINITIONS)):
        char = text[index]
        if char == "(":
            depth += 1
        elif char in ",)" and depth == 0:
            definition = text[piece:index]
            if not _NOT_COLUMN.match(definition):
                column = _COLUMN.match(definition)
                if column is None:
                    return ()
                names.append(column.group(1))
            if char == ")" or len(names) == _COLUMNS:
                return tuple(names)
            piece = index + 1
        elif char == ")":
            depth -= 1
    return ()


def sql_answer(table: Table | None) -> str:
    """A SQL query in a ```sql fence and nothing else (vanna's `extract_sql` takes the
    `SELECT … ;` it finds, else the fenced block): a SELECT over the table's first
    columns, or a constant where the prompt shows no table."""
    query = table.select() if table is not None else "SELECT 1 AS answer"
    return f"```sql\n{query};\n```"


def provided(*texts: str) -> tuple[Function, ...]:
    """The functions the texts show after saying they are already provided (or must not be
    redefined), in a sentence about functions: each `def` in the `_SIGNATURES` after it.
    The first `_SAYS` such sayings of a text are read, and `_MOST` functions at most."""
    functions: dict[str, Function] = {}
    for text in texts:
        read = window(text)
        if not _has(read, "already", "re-", "redefine", "reimplement", "redeclare"):
            continue
        for said in itertools.islice(_PROVIDED.finditer(read), _SAYS):
            if not _FUNCTION_WORD.search(_sentence(read, said.start(), said.end())):
                continue
            for signature in _DEF.finditer(read, said.end(), said.end() + _SIGNATURES):
                name = signature.group(1)
                if name not in functions:
                    functions[name] = Function(name, _params(signature.group(2)))
                if len(functions) == _MOST:
                    return tuple(functions.values())
    return tuple(functions.values())


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence holding `text[start:end]`, read at most `_SENTENCE` characters either
    side: "The following functions have already been provided", "Do not redefine these
    functions"."""
    before = PARAGRAPH_SENTENCE_END.split(text[max(0, start - _SENTENCE) : start])[-1]
    after = PARAGRAPH_SENTENCE_END.split(text[end : end + _SENTENCE])[0]
    return before + text[start:end] + after


def _params(text: str) -> tuple[tuple[str, str], ...]:
    """The required parameters of a signature's list: not `self`, `*args`, `**kwargs`, the
    markers, or one with a default; each with its annotation's type name."""
    params = []
    for part in _split(text):
        name, _, annotation = part.partition(":")
        name = name.strip()
        if "=" in part or not name.isidentifier() or name in ("self", "cls"):
            continue
        params.append((name, annotation.strip().split("[")[0].split(".")[-1]))
    return tuple(params)


def _split(text: str) -> list[str]:
    """A parameter list split at its top-level commas (`Dict[str, int]` stays whole)."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += char in "[({"
        depth -= char in "])}"
        if char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part for part in parts if part.strip()]


def declared(*texts: str) -> tuple[str, Any] | None:
    """The variable the texts ask the code to declare ('declare "result" variable',
    "a variable named `answer`"), and the first JSON object shown after it as an example
    of its value (None where none is)."""
    for text in texts:
        read = window(text)
        if not _has(read, "var"):
            continue
        quoted = itertools.islice(_QUOTED_VARIABLE.finditer(read), _VARIABLES)
        asked = (m for m in quoted if _DECLARING.search(read, max(0, m.start() - 32), m.start()))
        found = [m for m in (next(asked, None), _NAMED_VARIABLE.search(read)) if m is not None]
        if found:
            match = min(found, key=lambda m: m.start())
            return match.group(1), _example(read[match.end() : match.end() + _EXAMPLE])
    return None


def _example(text: str) -> Any:
    decoder = json.JSONDecoder()
    position = 0
    for _ in range(_TRIES):
        opening = _OPENING.search(text, position)
        if opening is None:
            return None
        try:
            value, _end = decoder.raw_decode(text, opening.start())
        except ValueError:
            position = opening.start() + 1
            continue
        return value
    return None


def call_answer(
    functions: tuple[Function, ...],
    table: Table | None,
    user: str,
    variable: tuple[str, Any] | None,
) -> str:
    """Python that calls the first provided function (a SQL query for a parameter named
    for one, else a value of its annotated type) and, where the prompt asks a variable
    declared, sets it to the example shown (else to the call's result)."""
    function = functions[0]
    args = ", ".join(repr(_argument(name, kind, table, user)) for name, kind in function.params)
    lines = [f"data = {function.name}({args})"]
    if variable is not None:
        name, example = variable
        lines.append(f"{name} = {'data' if example is None else repr(example)}")
    else:
        lines.append("print(data)")
    code = "\n".join(lines)
    return f"Here is the code:\n\n```python\n{code}\n```"


def _argument(name: str, kind: str, table: Table | None, user: str) -> Any:
    if _SQL_PARAM.search(name) and kind in ("str", ""):
        return table.select() if table is not None else "SELECT 1 AS answer"
    return value_for(name, {"type": _TYPES.get(kind.lower(), "string")}, user)
