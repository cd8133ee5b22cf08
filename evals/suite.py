"""Suites: load smf-bench's YAML/JSON case files (and ours) into frozen ``Case`` objects.

The format is smf-bench's (see ``docs/evals.md``): multi-document YAML streams or one list per
file, loaded recursively; unknown top-level keys become metadata; capability gating marks a
case N/A on an endpoint that lacks a modality or capability instead of failing it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SHIPPED = Path(__file__).parent / "suites"
"""Our own canary suites (one directory per intent), each case with a reference answer."""

SUFFIXES = (".yaml", ".yml", ".json")

PROFILES: dict[str, tuple[tuple[str, ...], int]] = {
    "strict_v01": (
        (
            "quality/tier0_deterministic/math.yaml",
            "quality/tier0_deterministic/coding.yaml",
            "quality/tier0_deterministic/reasoning.yaml",
            "quality/tier0_deterministic/instruction.yaml",
            "quality/tier0_deterministic/prose.yaml",
            "quality/writing/writing.yaml",
            "quality/tool_calling/tool_calling.yaml",
        ),
        157,
    ),
}
"""Published profiles: their files (relative to smf-bench's ``suites/``) and case count."""

_KNOWN = frozenset(
    {
        "id",
        "name",
        "category",
        "difficulty",
        "prompt",
        "max_tokens",
        "temperature",
        "evaluator",
        "expected",
        "metadata",
        "requires_modalities",
        "requires_capabilities",
        "reference",
        "dimension",
    }
)

TEXT_MODALITIES = frozenset({"text"})
TEXT_CAPABILITIES = frozenset({"reasoning", "writing", "tool_calling", "coding", "instruction"})


class SuiteError(ValueError):
    """A case file that does not follow the format; the message names the file and case."""


@dataclass(frozen=True)
class Case:
    """One test case. ``suite`` is smf-bench's ``category`` (one of the intents for quality)."""

    id: str
    name: str
    suite: str
    difficulty: str
    prompt: str
    evaluator: str
    expected: Any = None
    max_tokens: int = 1024
    temperature: float = 0.0
    metadata: Mapping[str, Any] = field(default_factory=dict)
    requires_modalities: tuple[str, ...] = ("text",)
    requires_capabilities: tuple[str, ...] = ()
    tools: list[dict[str, Any]] | None = None
    reference: str | None = None
    dimension: str = "quality"
    source: str = ""


@dataclass(frozen=True)
class Capabilities:
    """What an endpoint can do; a case needing more is N/A there, not a failure."""

    modalities: frozenset[str] = TEXT_MODALITIES
    capabilities: frozenset[str] = TEXT_CAPABILITIES
    context_window: int | None = None  # tokens of prompt and answer together, when known


MIN_ANSWER_TOKENS = 256
"""Below this an answer budget cut to fit a small window would grade the window, not the model."""

TEMPLATE_TOKENS = 64
"""The chat template's framing around the prompt."""


def prompt_tokens_at_most(case: Case) -> int:
    """An upper bound on the prompt's tokens without a tokenizer: one token per two UTF-8
    bytes over-counts English (~4 characters a token), code, and CJK (3 bytes a token)."""
    size = len(case.prompt.encode())
    if case.tools:
        size += len(json.dumps(case.tools).encode())
    return size // 2 + TEMPLATE_TOKENS


def answer_budget(case: Case, caps: Capabilities) -> int:
    """The case's ``max_tokens``, cut so that prompt and answer fit the context window: a
    backend rejects a request whose prompt plus ``max_tokens`` exceeds it, even when the
    answer would have been short."""
    if caps.context_window is None:
        return case.max_tokens
    return min(case.max_tokens, caps.context_window - prompt_tokens_at_most(case))


def not_applicable(case: Case, caps: Capabilities) -> str | None:
    """Why ``case`` cannot run on an endpoint with ``caps``, or None when it can."""
    missing = [m for m in case.requires_modalities if m not in caps.modalities]
    if missing:
        return f"endpoint lacks modality {', '.join(missing)}"
    lacking = [c for c in case.requires_capabilities if c not in caps.capabilities]
    if lacking:
        return f"endpoint lacks capability {', '.join(lacking)}"
    if answer_budget(case, caps) < min(MIN_ANSWER_TOKENS, case.max_tokens):
        return f"prompt and answer do not fit the {caps.context_window}-token context window"
    return None


def _names(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value)


def case_from_dict(raw: Mapping[str, Any], source: str = "") -> Case:
    """Build a ``Case`` from one parsed mapping; unknown keys are merged into metadata."""
    for key in ("id", "prompt", "evaluator"):
        if key not in raw:
            raise SuiteError(f"{source}: case {raw.get('id', '?')!r} has no {key!r}")
    extra = {k: v for k, v in raw.items() if k not in _KNOWN}
    metadata = {**extra, **dict(raw.get("metadata") or {})}
    tools = metadata.get("tools")
    return Case(
        id=str(raw["id"]),
        name=str(raw.get("name", raw["id"])),
        suite=str(raw.get("category", "uncategorised")),
        difficulty=str(raw.get("difficulty", "unrated")),
        prompt=str(raw["prompt"]),
        evaluator=str(raw["evaluator"]),
        expected=raw.get("expected"),
        max_tokens=int(raw.get("max_tokens", 1024)),
        temperature=float(raw.get("temperature", 0.0)),
        metadata=metadata,
        requires_modalities=_names(raw.get("requires_modalities", ("text",))),
        requires_capabilities=_names(raw.get("requires_capabilities")),
        tools=list(tools) if tools else None,
        reference=None if raw.get("reference") is None else str(raw["reference"]),
        dimension=str(raw.get("dimension", "quality")),
        source=source,
    )


def _documents(path: Path) -> Iterator[Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        yield json.loads(text)
        return
    try:
        yield from yaml.safe_load_all(text)
    except yaml.YAMLError as exc:
        raise SuiteError(f"{path}: {exc}") from exc


def load_file(path: Path) -> list[Case]:
    """All cases of one file: multi-document stream, a list, or ``{"cases": [...]}``."""
    cases: list[Case] = []
    for doc in _documents(path):
        if doc is None:
            continue  # the empty first document of a stream that starts with ---
        items = doc.get("cases", [doc]) if isinstance(doc, Mapping) else doc
        if not isinstance(items, list):
            raise SuiteError(f"{path}: a document must be a case, a list or {{cases: [...]}}")
        for item in items:
            if not isinstance(item, Mapping):
                raise SuiteError(f"{path}: a case must be a mapping, got {type(item).__name__}")
            cases.append(case_from_dict(item, str(path)))
    return cases


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(path)
    return sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file())


def _unique(cases: Iterable[Case]) -> list[Case]:
    seen: dict[str, str] = {}
    out: list[Case] = []
    for case in cases:
        if case.id in seen:
            raise SuiteError(f"duplicate case id {case.id!r} in {case.source} and {seen[case.id]}")
        seen[case.id] = case.source
        out.append(case)
    return out


def load(path: Path | str) -> list[Case]:
    """Cases from a file, or from every ``*.yaml``/``*.yml``/``*.json`` under a directory."""
    return _unique(c for f in _files(Path(path)) for c in load_file(f))


def profile_files(root: Path | str, profile: str) -> list[Path]:
    """The files of a published profile under an smf-bench checkout (or its ``suites/``).

    A flat directory holding the files by their base names (like the shared sample) works too.
    """
    if profile not in PROFILES:
        raise SuiteError(f"unknown profile {profile!r}; known: {sorted(PROFILES)}")
    base = Path(root)
    out: list[Path] = []
    for rel in PROFILES[profile][0]:
        options = (base / rel, base / "suites" / rel, base / Path(rel).name)
        found = next((p for p in options if p.is_file()), None)
        if found is None:
            raise FileNotFoundError(f"profile {profile}: {rel} not found under {base}")
        out.append(found)
    return out


def load_profile(root: Path | str, profile: str = "strict_v01") -> list[Case]:
    """The cases of a published profile (``strict_v01``: 157 cases in smf-bench)."""
    return _unique(c for f in profile_files(root, profile) for c in load_file(f))


def published_count(profile: str) -> int:
    """How many cases the team's published profile has (to warn about partial checkouts)."""
    return PROFILES[profile][1]
