"""constraints.txt pins what every install path installs: it must cover the whole dependency
tree, agree with pyproject.toml, and be what the tests ran against."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")


def pins() -> dict[str, str]:
    found: dict[str, str] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        match = PIN.match(line.strip())
        assert match, f"constraints.txt: not an exact pin: {line!r}"
        found[canonicalize_name(match[1])] = match[2]
    return found


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = project["dependencies"] + project["optional-dependencies"]["dev"]
    return [Requirement(line) for line in lines]


def closure(roots: list[Requirement]) -> set[str]:
    """Every distribution the roots pull in on this platform, by walking installed metadata."""
    seen: set[str] = set()
    todo = [(r, frozenset(r.extras)) for r in roots]
    while todo:
        requirement, extras = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        for line in metadata.requires(name) or []:
            child = Requirement(line)
            if child.marker is None:
                todo.append((child, frozenset(child.extras)))
                continue
            for extra in extras | {""}:
                if child.marker.evaluate({**default_environment(), "extra": extra}):
                    todo.append((child, frozenset(child.extras)))
                    break
    return seen


def test_every_declared_dependency_is_pinned_within_its_range() -> None:
    pinned = pins()
    for requirement in declared():
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{requirement.name} is in pyproject.toml but not constraints.txt"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"constraints.txt pins {name}=={pinned[name]}, outside pyproject's {requirement}"
        )


def test_the_whole_dependency_tree_is_pinned() -> None:
    missing = sorted(closure(declared()) - set(pins()))
    assert not missing, f"installed as dependencies but not pinned: {missing} (run `make lock`)"


def test_the_tests_run_against_the_pinned_versions() -> None:
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    drift = {
        name: (version, installed[name])
        for name, version in pins().items()
        if name in installed and installed[name] != version
    }
    assert not drift, f"pinned vs installed: {drift} (`make test` reinstalls from constraints.txt)"
