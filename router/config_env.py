"""`${VAR}`, `${VAR:-default}` and `${VAR-default}` in a config's strings, filled in after
YAML parsing, with the shell's (and Compose's) meaning: `:-` takes the default when the
variable is unset or empty, `-` only when it is unset. (`:-` used to keep an empty value,
so `SMF_CLOUD_MODEL=` in a Compose `.env` gave a backend the model ''.)

After parsing, not before: a comment is not read, and a variable's value (often a secret)
can neither add YAML structure nor appear in a YAML syntax error. `through_env` remembers
where variables were used, so `config check` can show those values masked.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}")

Where = tuple[str | int, ...]  # a path into parsed YAML: keys and list indexes


class UnsetVariable(Exception):
    """A `${VAR}` without default whose variable is not set; the message names the field."""


def _from_env(match: re.Match[str], env: Mapping[str, str]) -> bool:
    """Whether this `${...}` takes the variable's value rather than its default."""
    name, operator = match.group(1), match.group(2)
    if operator == ":-":
        return bool(env.get(name))
    return name in env


def interpolate(text: str, env: Mapping[str, str] | None = None) -> str:
    """Replace each `${...}`; an unset variable without default is an error."""
    env = os.environ if env is None else env

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(3)
        if _from_env(match, env):
            return env[name]
        if default is not None:
            return default
        raise UnsetVariable(f"environment variable {name} is not set (used as ${{{name}}})")

    return _ENV.sub(replace, text)


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
        return {
            k: interpolate_values(v, env, f"{where}.{k}" if where else str(k))
            for k, v in data.items()
        }
    return data


def through_env(data: Any, env: Mapping[str, str], path: Where = ()) -> dict[Where, str]:
    """Every string of parsed YAML that uses `${VAR}`, by path, as it may be shown: each
    variable that is set as `***` (it may hold a secret), a default as written."""
    if isinstance(data, str):
        if _ENV.search(data) is None:
            return {}
        return {path: _ENV.sub(lambda m: "***" if _from_env(m, env) else m.group(3) or "", data)}
    found: dict[Where, str] = {}
    if isinstance(data, list):
        for index, value in enumerate(data):
            found |= through_env(value, env, (*path, index))
    elif isinstance(data, dict):
        for key, value in data.items():
            found |= through_env(value, env, (*path, key))
    return found
