"""A config file's YAML: read safely and within bounds, every problem with its line.

PyYAML's `safe_load` leaves holes a config file must not have. A value it cannot construct
(`2024-13-45`, `!!int abc`, `!!bool x`) raises a plain ValueError, KeyError or the like
without a line, and deep nesting a RecursionError: both escaped `config check` and `serve`
as tracebacks and made a reload answer 500. Nested aliases expand without bound: a
566-byte file ("billion laughs") took seconds to load and gigabytes to print. A key given
twice silently took the last value. Here each of these is a `yaml.YAMLError` whose message
names the line.

PyYAML's own message quotes the file, and a config file holds literal secrets (a header
value, a password in a URL): `evals.yaml_errors` says what went wrong with its line
and column only, for the log and the reload answer; a value it cannot construct is named
by its tag only, never by the reason, which quotes it; a character YAML refuses anywhere
in the file, by its line and column, never its code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml
from pydantic import ValidationError
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.reader import ReaderError

from evals import yaml_errors, yaml_mapping

# Limits far above any real config (a few hundred values, a few levels deep) and far below
# what costs noticeable time or memory.
MAX_VALUES = 100_000  # scalars, lists and mappings once aliases are expanded
MAX_DEPTH = 100


class _Loader(yaml_mapping.SafeLoader):
    """`SafeLoader` with merges by the spec, duplicate keys refused (`evals.yaml_mapping`),
    a depth limit and construct errors marked."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep", mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise  # already marked, by PyYAML or by an inner value
        except Exception:
            # PyYAML's constructors fail in many ways (KeyError for `!!bool x`, IndexError
            # for `!!int ""`), and each reason quotes the value, often altered first
            # (lower-cased, `_` or a sign dropped), so no test of the text can tell it is
            # not there: a secret written in the file. The tag and the place say enough.
            problem = f"cannot read this {_kind(node)} as {node.tag}"
            raise ConstructorError(None, None, problem, node.start_mark) from None


def read(text: str) -> Any:
    """The data in `text`, or a `yaml.YAMLError` naming the line (None for an empty file)."""
    try:
        loader = _Loader(text)  # which first looks at every character
    except ReaderError as exc:
        raise yaml_errors.unreadable(text, exc.position) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_size(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def line_of(text: str, loc: tuple[int | str, ...]) -> int | None:
    """The line of the deepest part of `loc` the YAML holds: the key itself, or for a
    missing key its list item or section (matching the first `key:` in the text pointed
    at another backend's lines)."""
    return _find(text, loc)[0]


def _find(text: str, loc: tuple[int | str, ...]) -> tuple[int | None, int]:
    """`line_of`, and how many parts of `loc` the YAML holds (all: the field is written).
    A key a `<<` merged in is found in what it merged, and named by the `<<`'s line, as
    is all below it: that line is where this mapping took it (the anchor's own line would
    be that of every mapping merging it). It was named by its mapping's line, as missing."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return None, 0
    line, found, merged_at = None, 0, None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            pair = _lookup(node, str(part))
            if pair is None:
                break
            line, node, merge = pair
            merged_at = merged_at or merge
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                break
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
        found += 1
    return merged_at or line, found


def _lookup(node: yaml.MappingNode, key: str) -> tuple[int, yaml.Node, int | None] | None:
    """The line of `key` in `node`, its value, and the line of the `<<` that merged it
    (None: written there): the mapping's own key first, then its merged mappings in the
    order written, as `evals.yaml_mapping` merges them."""
    merges = []
    for name, value in node.value:
        if name.tag == yaml_mapping.MERGE:
            merges.append((name.start_mark.line + 1, value))
        elif name.value == key:
            return name.start_mark.line + 1, value, None
    for at, value in merges:
        sources = value.value if isinstance(value, yaml.SequenceNode) else [value]
        for source in sources:
            if isinstance(source, yaml.MappingNode) and (pair := _lookup(source, key)):
                return pair[0], pair[1], at
    return None


Loc = tuple[int | str, ...]


def describe(
    exc: ValidationError,
    source: str,
    text: str | None,
    variables: Mapping[Loc, str] | None = None,
) -> str:
    """A validation error as the lines `config check` prints: each field with its line, or,
    for a config built from environment `variables` (each at the place it filled in), with
    the variables set there: `backends.0.base_url` is no name their user ever wrote."""
    lines = [f"{source}: invalid configuration"]
    for err in exc.errors():
        loc, msg = _field_of(tuple(err["loc"]), err["msg"], text)
        msg = msg.removeprefix(_RAISED)  # pydantic's mark of a ValueError: no news to a reader
        msg += _hint(loc, err["type"])
        loc = without_header_names(loc)
        where = line_of(text, loc) if text else None
        lines.append(f"  {field_name(loc, where, variables)}: {msg}")
    return "\n".join(lines)


def _hint(loc: Loc, kind: str) -> str:
    """What to write instead of a key a backend does not have, where the mistake is a
    common one: `api_key: sk-...` is what other gateways take (the value is not shown);
    and where a block of anchors goes, for an unknown key at the top (`defaults: &d`)."""
    if kind == "extra_forbidden" and len(loc) == 3 and loc[0] == "backends":
        return _HINTS.get(str(loc[2]), "")
    if kind == "extra_forbidden" and len(loc) == 1:
        return "; a block that only holds anchors for `<<` goes under a key starting x- (x-common:)"
    return ""


_HINTS = {
    "api_key": "; use api_key_env: the NAME of the environment variable that holds the key "
    "(a key never goes in the file)",
}


def field_name(
    loc: Loc, line: int | None = None, variables: Mapping[Loc, str] | None = None
) -> str:
    """The field at `loc` as an error names it: with its `line` in the file, or with the
    environment `variables` set there (or anywhere in this backend) for a config built from
    them: `backends.0.base_url` is no name their user ever wrote."""
    field = ".".join(str(p) for p in loc) or "<root>"
    named = [name for place, name in (variables or {}).items() if place[: len(loc)] == loc]
    if loc and named:
        return f"{', '.join(named)} ({field})"
    return f"{field} (line {line})" if line else field


def without_header_names(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """`loc` cut at a `headers` map: a header name may be a pasted `Authorization: Bearer
    sk-...`, and a location is printed (found in review)."""
    if "headers" in loc:
        return loc[: loc.index("headers") + 1]
    return loc


_RAISED = "Value error, "
_NAMED = re.compile(rf"^{_RAISED}([A-Za-z_][\w-]*(?:\.[\w-]+)*): (.*)$", re.DOTALL)


def _field_of(
    loc: tuple[int | str, ...], msg: str, text: str | None
) -> tuple[tuple[int | str, ...], str]:
    """A model validator's error is located at its model, and its message names the field:
    the whole path (`routes.coding: unknown backend`), or one in that model (a backend's
    `base_url: ...`), when the file has it. That field, so the error gets the field's line
    (`backends.0 (line 2): base_url: ...` sent the reader looking for it)."""
    named = _NAMED.match(msg)
    if named is None:
        return loc, msg
    parts = tuple(int(p) if p.isdigit() else p for p in named.group(1).split("."))
    if parts[: len(loc)] == loc:
        return parts, named.group(2)
    if text is not None and _find(text, loc + parts)[1] == len(loc + parts):
        return loc + parts, named.group(2)
    return loc, msg


def _check_size(root: yaml.Node) -> None:
    """Count values as the aliases expand them, up to the limit (a cycle never ends, so it
    is refused too); the count stops at the limit, so a bomb costs no more than that. The
    depth too: the composer's limit sees one anchored piece at a time, and nesting built
    from aliases went past Python's recursion limit in the code that walks the data."""
    count, stack = 0, [(root, 1)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_VALUES:
            raise ComposerError(
                None,
                None,
                f"the aliases in this document expand to more than {MAX_VALUES} values",
                root.start_mark,
            )
        if depth > MAX_DEPTH:
            raise ComposerError(
                None,
                None,
                f"with its aliases expanded, this is nested more than {MAX_DEPTH} levels deep",
                node.start_mark,
            )
        if isinstance(node, yaml.SequenceNode):
            stack += ((item, depth + 1) for item in node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack += ((key, depth + 1), (value, depth + 1))


def _kind(node: yaml.Node) -> str:
    return "value" if isinstance(node, yaml.ScalarNode) else "collection"
