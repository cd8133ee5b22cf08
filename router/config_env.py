"""`${VAR}`, `${VAR:-default}` and `${VAR-default}` in a config's strings, filled in after
YAML parsing, with the shell's (and Compose's) meaning: `:-` takes the default when the
variable is unset or empty, `-` only when it is unset. (`:-` used to keep an empty value,
so `SMF_CLOUD_MODEL=` in a Compose `.env` gave a backend the model ''.) A default may
itself use these forms (`${A:-${B:-x}}`); any other `${` (`${VAR:?msg}`, `${1}`) is an
error, never kept as text, and so is any `${` in a key (values only are filled in). `$${`
is a literal `${` (as in Compose), for a password that holds one; any other `$`, `$$`
included, is text as it always was.

After parsing, not before: a comment is not read, and a variable's value (often a secret)
can neither add YAML structure nor appear in a YAML syntax error. `through_env` remembers
where variables were used, so `config check` can show those values masked.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_HEAD = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(\}|:-|-)?")
_OPERATOR = re.compile(r"[:?=+]{1,2}")  # what follows the name in ${VAR:?msg} and kin
SUPPORTED = (
    "${VAR}, ${VAR:-default} and ${VAR-default} (a default may hold these forms too; "
    "a literal ${ is written $${)"
)
ESCAPE = "$${"

Where = tuple[str | int, ...]  # a path into parsed YAML: keys and list indexes


class UnsetVariable(Exception):
    """A `${VAR}` without default whose variable is not set, or a `${` of a form not
    supported; the message names the field."""


@dataclass(frozen=True, slots=True)
class _Var:
    """One `${...}`: `default` is None for `${VAR}`, else parsed text (it may nest)."""

    name: str
    operator: str | None
    default: list[str | _Var] | None


def _parse(text: str, start: int = 0, nested: bool = False) -> tuple[list[str | _Var], int]:
    """`text` as plain runs and `${...}`, from `start` to its end (or, `nested`, to the `}`
    that closes the default being read). Any other `${` is an error: `${VAR:?msg}` and
    `${A:-${B}}` used to be kept as text, a model or URL no one meant (found in review)."""
    parts: list[str | _Var] = []
    plain, at = start, start
    while at < len(text):
        if text.startswith(ESCAPE, at):
            parts.append(text[plain:at] + "${")
            at += len(ESCAPE)
            plain = at
        elif text.startswith("${", at):
            head = _HEAD.match(text, at)
            if head is None or head.group(2) is None:
                raise UnsetVariable(f"{_form(text, at, head)} is not supported: use {SUPPORTED}")
            parts.append(text[plain:at])
            name, operator = head.group(1), head.group(2)
            if operator == "}":
                parts.append(_Var(name, None, None))
                at = head.end()
            else:
                default, at = _parse(text, head.end(), nested=True)
                parts.append(_Var(name, operator, default))
            plain = at
        elif nested and text[at] == "}":
            parts.append(text[plain:at])
            return parts, at + 1
        else:
            at += 1
    if nested:
        raise UnsetVariable(f"a ${{ without its closing }}: use {SUPPORTED}")
    parts.append(text[plain:])
    return parts, at


def _form(text: str, at: int, head: re.Match[str] | None) -> str:
    """The `${` at `at` named by its operator and position, never quoted: the string may be
    a password, and the error quoted up to 40 characters of it (found in review)."""
    where = f"the ${{ at character {at + 1}"
    operator = _OPERATOR.match(text, head.end()) if head else None
    if operator:
        return f"{where} (a ${{VAR{operator.group()}...}})"
    if head:
        return f"{where} (its variable name followed by neither }}, :- nor -)"
    return f"{where} (no variable name after it)"


def _from_env(var: _Var, env: Mapping[str, str]) -> bool:
    """Whether this `${...}` takes the variable's value rather than its default."""
    if var.operator == ":-":
        return bool(env.get(var.name))
    return var.name in env


def _render(parts: list[str | _Var], env: Mapping[str, str], masked: bool) -> str:
    """The text with each `${...}` filled in; `masked`: a variable that is set as `***`."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif _from_env(part, env):
            out.append("***" if masked else env[part.name])
        elif part.default is not None:
            out.append(_render(part.default, env, masked))
        elif masked:
            out.append("")
        else:
            name = part.name
            raise UnsetVariable(f"environment variable {name} is not set (used as ${{{name}}})")
    return "".join(out)


def interpolate(text: str, env: Mapping[str, str] | None = None) -> str:
    """Replace each `${...}`; an unset variable without default is an error."""
    env = os.environ if env is None else env
    return _render(_parse(text)[0], env, masked=False)


def interpolate_values(data: Any, env: Mapping[str, str], where: str = "") -> Any:
    """`interpolate` on every string value of parsed YAML."""
    if isinstance(data, str):
        try:
            return interpolate(data, env)
        except UnsetVariable as exc:
            raise UnsetVariable(f"{where or '<root>'}: {exc}") from None
    if isinstance(data, list):
        return [
            interpolate_values(v, env, f"{where}.{i}" if where else str(i))
            for i, v in enumerate(data)
        ]
    if isinstance(data, dict):
        if any(isinstance(key, str) and "${" in key for key in data):
            raise UnsetVariable(f"{where or '<root>'}: {KEY_REFUSED}")
        return {k: interpolate_values(v, env, _inside(where, k)) for k, v in data.items()}
    return data


# `${VAR}` in a key was kept as written (`aliases: {"${MYALIAS}": math}` made an alias named
# `${MYALIAS}`), where the README said any other `${` is never kept as text (found in
# review). Refused rather than filled in: a key is a name the file gives, a variable's value
# as a name would be hidden from `config check`'s masking, and no setting needs one. The key
# is not quoted: under `headers` it may be a pasted `Authorization: Bearer sk-...`.
KEY_REFUSED = (
    "a key holds ${, but ${VAR} is filled in values only, never in keys (nor is $${ read "
    "there): write the name itself"
)


def _inside(where: str, key: Any) -> str:
    """The path of `key` under `where`, but a header's name is left out: it may be a pasted
    `Authorization: Bearer sk-...`, and the path is printed."""
    if where == "headers" or where.endswith(".headers"):
        return where
    return f"{where}.{key}" if where else str(key)


def through_env(data: Any, env: Mapping[str, str], path: Where = ()) -> dict[Where, str]:
    """Every string of parsed YAML that uses `${VAR}`, by path, as it may be shown: each
    variable that is set as `***` (it may hold a secret), a default as written."""
    if isinstance(data, str):
        parts = _parse(data)[0] if "${" in data else []
        if not any(isinstance(part, _Var) for part in parts):
            return {}  # no variable: a `$${` alone is text written in the file
        return {path: _render(parts, env, masked=True)}
    found: dict[Where, str] = {}
    if isinstance(data, list):
        for index, value in enumerate(data):
            found |= through_env(value, env, (*path, index))
    elif isinstance(data, dict):
        for key, value in data.items():
            found |= through_env(value, env, (*path, key))
    return found
