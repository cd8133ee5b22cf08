"""A suite file's YAML: read as its author meant it, each problem with its line.

PyYAML's ``safe_load`` reads YAML 1.1, whose implicit types surprise a case author:
``expected: 2024-01-15`` became a ``datetime.date`` (no grader can use one), ``expected: 1:30``
the number 90 (base 60), and ``expected: yes`` the boolean True; a key written twice silently
took the last value, and a value it cannot construct (``!!int abc``) raised a bare ValueError
without a file or line. Here dates and times stay text, a key given twice is refused, and
every problem is a ``yaml.YAMLError`` with a line. Booleans and numbers stay what they are
(``active: true`` in a ``json_contains`` expectation, ``stream: true`` in smf-bench's
performance suites, ``max_tokens: 4096``): only where the format types a field as text is the
scalar kept as written (``as_written``), so ``expected: 3.10`` is "3.10", not "3.1".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.reader import ReaderError

from evals import grader_fields, yaml_errors, yaml_mapping

_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_TEXT_DEPTH = 3
_CODE = frozenset({"unit_test", "programmatic"})

# PyYAML's patterns without their base-60 forms (1:30 as 90, 1:30.5 as 90.5).
_INT_PATTERN = re.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"
)
_FLOAT_PATTERN = re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?"
    r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)

_INF_NAN = re.compile(r"[-+]?\.(?:inf|nan)", re.IGNORECASE)

Path = tuple[str | int, ...]
"""Where a value sits in a case: mapping keys and list indexes."""


class _Loader(yaml_mapping.SafeLoader):
    """``SafeLoader`` without timestamps or base-60 numbers, with merges by the spec and
    duplicate keys refused (``evals.yaml_mapping``), and turning a value it cannot construct
    into a ``ConstructorError`` with its line."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except Exception:  # `!!int abc` is a ValueError, `!!bool x` a KeyError, ...
            text = f"cannot read this value as {node.tag}"
            raise ConstructorError(None, None, text, node.start_mark) from None


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_INT, _FLOAT, _TIMESTAMP)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(_INT, _INT_PATTERN, list("-+0123456789"))
_Loader.add_implicit_resolver(_FLOAT, _FLOAT_PATTERN, list("-+0123456789."))


def documents(text: str) -> Iterator[tuple[Any, yaml.Node]]:
    """Each document of ``text``, parsed, with its node (for lines); a ``yaml.YAMLError``
    with a line when it does not parse."""
    try:
        loader = _Loader(text)  # which first looks at every character
    except ReaderError as exc:
        raise yaml_errors.unreadable(text, exc.position) from None
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is not None:
                yield loader.construct_document(node), node
    finally:
        loader.dispose()


def problem(exc: yaml.YAMLError) -> str:
    """What is wrong and on which line, in one line: PyYAML's own text spans several and
    names the file "<unicode string>". Said without any of the file (`evals.yaml_errors`):
    PyYAML's message quoted a tag, an alias or a character of it, a piece of a prompt,
    which no log may hold (found in review)."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return yaml_errors.without_input(str(exc), exc)
    problem_text = yaml_errors.without_input(exc.problem, exc) if exc.problem else None
    context = yaml_errors.without_input(exc.context, exc) if exc.context else None
    text = problem_text or context or "not YAML"
    if problem_text and context:
        on = f" on line {exc.context_mark.line + 1}" if exc.context_mark else ""
        text = f"{problem_text} ({context}{on})"
    mark = exc.problem_mark or exc.context_mark
    return f"line {mark.line + 1}: {text}" if mark else text


def line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def items(doc: Any, node: yaml.Node) -> list[yaml.Node]:
    """The nodes of a document's cases, as ``evals.suite`` reads them: the document itself,
    the items of a list, or those of ``cases:``."""
    if isinstance(doc, dict):
        if "cases" not in doc:
            return [node]
        found = [v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == "cases"]
        node = found[-1] if found else node
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _plain_scalars(node: yaml.Node | None, path: Path = ()) -> dict[Path, yaml.ScalarNode]:
    """Where YAML read a plain scalar as a boolean or a number (``yes``, ``3.10``, ``0755``,
    ``.5``): each place and its node (the text as written), for the fields typed as text,
    where the value read would change what is graded (``3.1``, ``493``, ``0.5``). Text
    fields lie at most three levels down (``metadata.expected_keywords[2]``): no deeper walk
    (an alias may make a node its own child)."""
    if isinstance(node, yaml.ScalarNode):
        typed = node.tag in (_BOOL, _INT, _FLOAT)
        return {path: node} if typed and node.style is None else {}
    found: dict[Path, yaml.ScalarNode] = {}
    if len(path) >= _TEXT_DEPTH:
        return found
    if isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            found |= _plain_scalars(item, (*path, index))
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                found |= _plain_scalars(value, (*path, key.value))
    return found


_TEXT_FIELDS = frozenset(
    {
        "id",
        "name",
        "category",
        "dimension",
        "difficulty",
        "prompt",
        "reference",
        "evaluator",
        "requires_modalities",
        "requires_capabilities",
        "expected_keywords",
        "must_not_match",
        "unit",
        "op",
        "eval_type",
    }
)
"""Fields (top-level or in ``metadata``) the format types as text or a list of texts."""


def as_written(raw: Mapping[str, Any], node: yaml.Node) -> Mapping[str, Any]:
    """``raw`` with the booleans and numbers YAML 1.1 read from plain scalars put back as
    written where the format types the field as text: ``expected: yes`` for ``text_match``
    is the word "yes" (it was True, and refused), ``expected: true`` "true" (as smf-bench
    grades it), ``expected: 3.10`` "3.10" and ``0755`` "0755" (graded as "3.1" and "493"),
    a pattern ``.5`` the pattern ".5" (it was "0.5"), a tool argument ``zip: 02134``
    "02134" (it was searched for as "1116"). Elsewhere the value stays: ``active: yes`` in a
    ``json_contains`` expectation, a ``stream: on`` flag, a count."""
    evaluator = raw.get("evaluator")
    for path, scalar in _plain_scalars(node).items():
        if _is_text_field(path, evaluator) and _becomes_text(path, evaluator, scalar):
            raw = _replaced(raw, path, _spelling(scalar))
    return raw


def _becomes_text(path: Path, evaluator: Any, scalar: yaml.ScalarNode) -> bool:
    """Whether a boolean or number at ``path`` (a text field) is read as text. Not in
    unit-test assertions: the text ``3`` or ``True`` would run as a statement and pass every
    answer; refused as a number or a boolean, it says what is wrong. Nor a number in a list
    of names, where it is refused (``requires_modalities: 5`` is no modality)."""
    if path[:1] == ("expected",) and evaluator in _CODE:
        return False
    inner = path[1:] if path[:1] == ("metadata",) else path
    names = inner[:1] in (("requires_modalities",), ("requires_capabilities",))
    return scalar.tag == _BOOL or not names


def _spelling(scalar: yaml.ScalarNode) -> str:
    """The text a boolean or number stands for in a text field: as written (``yes``,
    ``3.10``, ``0755``, ``.5``, ``0x1F``), which its author may mean literally, less the
    spellings of a number only YAML has, which no answer is written in: ``1_000`` is "1000",
    ``+1`` "1", ``.inf`` "inf" (what ``str()`` of the number gave before)."""
    text = str(scalar.value)
    if scalar.tag == _BOOL:
        return grader_fields.BooleanWord(text)
    if _INF_NAN.fullmatch(text):
        return str(float(text.replace(".", "", 1)))
    text = text.replace("_", "")
    return text[1:] if text.startswith("+") else text


def _is_text_field(path: Path, evaluator: Any) -> bool:
    if evaluator == "tool_call" and path[:1] == ("expected",):
        # the tool's name, and each args_contains value: searched for as text in the call
        return path[1:] == ("tool",) or (len(path) == 3 and path[1] == "args_contains")
    inner = path[1:] if path[:1] == ("metadata",) else path
    if not inner or len(inner) > 2:
        return False
    if len(inner) == 2 and not isinstance(inner[1], int):
        return False
    if inner[0] == "expected":
        return path[0] == "expected" and evaluator in grader_fields.TEXT_EXPECTED
    return inner[0] in _TEXT_FIELDS


def _replaced(value: Any, path: Path, word: str) -> Any:
    """``value`` with the boolean or number at ``path`` replaced by ``word`` (copied, not
    changed in place: an alias may share the list)."""
    if not path:
        return word if isinstance(value, bool | int | float) else value
    head, rest = path[0], path[1:]
    if isinstance(value, Mapping) and head in value:
        return {**value, head: _replaced(value[head], rest, word)}
    if isinstance(value, list) and isinstance(head, int) and head < len(value):
        return [*value[:head], _replaced(value[head], rest, word), *value[head + 1 :]]
    return value
