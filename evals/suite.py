"""Suites: load smf-bench's YAML/JSON case files (and ours) into frozen ``Case`` objects.

The format is smf-bench's (see ``docs/evals.md``): multi-document YAML streams or one list per
file, loaded recursively; unknown top-level keys become metadata; cases smf-bench sends or
grades in ways we do not (templated prompts, timings, judges) load and are N/A, as is a
case on an endpoint that cannot run it (``evals.applicability``).
A malformed file or field is a ``SuiteError`` that names the file, the case and the field
(a case without a usable ``id`` by its line, or in JSON its place in the list); a case that
must not run as written is N/A and says why in ``Case.warnings`` (``evals.suite_flaws``), and
one that runs but is likely not what its author meant (both ``prompt`` and
``prompt_template``, a key near a field its grader reads: ``must_not_mach``) is named there
too (``evals.suite_notes``).
A field given as null is absent. YAML is read by ``evals.suite_yaml``; plain values (numbers,
names, tools) are checked by ``evals.case_values``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from evals import case_values, grader_fields, suite_flaws, suite_notes, suite_yaml

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

GRADED = frozenset(
    {
        "regex_match",
        "text_match",
        "text_contains",
        "structural_count",
        "tool_call",
        "programmatic",  # with eval_type: unit_test; with a checker it is N/A
        "unit_test",
        "code_compiles",
        "json_contains",
        "html_valid",
    }
)
"""Evaluators ``evals.graders`` grades."""

NOT_GRADED = frozenset(
    {"performance", "llm_judge", "agentic_file_check", "perceptual_clip", "binary_exists"}
)
"""smf-bench's other evaluators (timings, a judge model, files an agent wrote, media): their
cases load and are N/A here."""


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
    not_runnable: str | None = None  # why no endpoint can run it here (e.g. a templated prompt)
    warnings: tuple[str, ...] = ()  # what to warn of at load, naming file, case and field
    flawed: bool = False  # N/A for a mistake in it (``evals.suite_flaws``), said in ``warnings``


def load_warnings(cases: Iterable[Case]) -> list[str]:
    """What to warn of once the cases are loaded (``Case.warnings``), in their order."""
    return [warning for case in cases for warning in case.warnings]


def _where(source: str, raw: Mapping[str, Any], at: str) -> str:
    """The case by its id, else by where it is (``at``: "line 7", "item 2"): a message
    naming no case ("case '?'") left the user to search the file."""
    ident = raw.get("id")
    if isinstance(ident, str | int) and not isinstance(ident, bool):
        case = f"case {ident!r}"
    else:
        case = f"the case at {at}" if at else "a case"
    return f"{source}: {case}" if source else case


def _present(raw: Mapping[str, Any]) -> dict[str, Any]:
    """``raw`` without its null fields: ``category: null`` is no category (it became the
    suite "None"), ``max_tokens: null`` the default (it was refused as not a number)."""
    return {key: value for key, value in raw.items() if value is not None}


def case_from_dict(raw: Mapping[str, Any], source: str = "", *, at: str = "") -> Case:
    """Build a ``Case`` from one parsed mapping; unknown keys are merged into metadata.

    A field of the wrong type or value is a ``SuiteError`` naming the file, case and field
    (never a TypeError from deep inside), and so is a case its grader cannot use as written
    or would pass whatever the answer. A case we cannot send as written (no ``prompt``:
    smf-bench builds it from ``prompt_template``, or sends multimodal ``messages``) loads
    and is N/A, as is one with an smf-bench evaluator we do not run; an evaluator smf-bench
    does not have is an error. A case that must not run as written (``evals.suite_flaws``)
    loads, N/A with the reason, and names its mistakes in ``warnings``; so does one that
    runs as written but likely not as meant (``evals.suite_notes``).
    """
    raw = _present(raw)
    where = _where(source, raw, at)
    for key in ("id", "evaluator"):
        if key not in raw:
            raise SuiteError(f"{where} has no {key!r}")
    if isinstance(raw["id"], bool) or not isinstance(raw["id"], str | int):
        raise SuiteError(f"{where}: 'id' must be a string, got {type(raw['id']).__name__}")
    evaluator = _evaluator(raw, where)
    given = raw.get("metadata")
    if given is not None and not isinstance(given, Mapping):
        raise SuiteError(f"{where}: 'metadata' must be a mapping, got {type(given).__name__}")
    extra = {k: v for k, v in raw.items() if k not in _KNOWN}
    metadata = {**extra, **_present(given or {})}
    with _naming(where):
        tools = case_values.tools(metadata)
    prompt, not_runnable = _prompt(raw, evaluator, where)
    language = _check_grader_fields(raw.get("expected"), evaluator, metadata, where)
    if language is not None and not_runnable is None:
        not_runnable = (
            f"metadata.language is {language!r}, not read as Python 3 (write 'python' if it"
            " is): the sandbox runs Python only"
        )
    flaws = suite_flaws.flaws(raw, evaluator, metadata, where)
    notes = suite_notes.notes(raw, _present(given or {}), metadata, evaluator, where, _KNOWN)
    if flaws:  # the reason to fix comes first, whatever else keeps the case from running
        not_runnable = "; ".join(reason for reason, _ in flaws)
    with _naming(where):
        max_tokens = case_values.positive_int(raw.get("max_tokens", 1024), "max_tokens")
        temperature = case_values.temperature(raw.get("temperature", 0.0))
        modalities = case_values.names(raw.get("requires_modalities", ("text",)), "modalities")
        capabilities = case_values.names(raw.get("requires_capabilities"), "capabilities")
    return Case(
        id=str(raw["id"]),
        name=str(raw.get("name", raw["id"])),
        suite=str(raw.get("category", "uncategorised")),
        difficulty=str(raw.get("difficulty", "unrated")),
        prompt=prompt,
        evaluator=evaluator,
        expected=raw.get("expected"),
        max_tokens=max_tokens,
        temperature=temperature,
        metadata=metadata,
        requires_modalities=modalities,
        requires_capabilities=capabilities,
        tools=tools,
        reference=None if raw.get("reference") is None else str(raw["reference"]),
        dimension=str(raw.get("dimension", "quality")),
        source=source,
        not_runnable=not_runnable,
        warnings=(*(warning for _, warning in flaws), *notes),
        flawed=bool(flaws),
    )


def _evaluator(raw: Mapping[str, Any], where: str) -> str:
    """The evaluator's name; a typo (``regex_mach``) would otherwise make the case N/A."""
    name = raw["evaluator"]
    if not isinstance(name, str) or name not in GRADED | NOT_GRADED:
        known = ", ".join(sorted(GRADED | NOT_GRADED))
        raise SuiteError(f"{where}: 'evaluator' {name!r} is not one smf-bench has ({known})")
    return name


def _prompt(raw: Mapping[str, Any], evaluator: str, where: str) -> tuple[str, str | None]:
    """The prompt, and why the case cannot be sent when smf-bench's harness builds it."""
    if "prompt" in raw:
        prompt = raw["prompt"]
        if isinstance(prompt, bool) or not isinstance(prompt, str | int | float):
            raise SuiteError(f"{where}: 'prompt' must be text, got {type(prompt).__name__}")
        return str(prompt), None
    if "prompt_template" in raw:
        template = raw["prompt_template"]
        return "", f"its prompt is built by smf-bench's harness (prompt_template {template!r})"
    if "messages" in raw:
        return "", "it sends smf-bench's multimodal messages, which we do not"
    if evaluator in NOT_GRADED:
        return "", None  # N/A anyway: the evaluator is not one we run
    raise SuiteError(f"{where} has no 'prompt'")


def _check_grader_fields(
    expected: Any, evaluator: str, metadata: Mapping[str, Any], where: str
) -> str | None:
    """Refuse a case its grader cannot grade as written, or would pass whatever the answer
    (``evals.grader_fields`` says what each grader needs); return the language of a
    unit-test case's code when it is not Python (the case is N/A)."""
    with _naming(where):
        grader_fields.check(expected, evaluator, metadata)
        return grader_fields.foreign_language(evaluator, metadata)


@contextmanager
def _naming(where: str) -> Iterator[None]:
    """A field's problem (``grader_fields.FieldProblem``) as a ``SuiteError`` that also names
    the file and the case."""
    try:
        yield
    except grader_fields.FieldProblem as exc:
        raise SuiteError(f"{where}: {exc}") from None


def _documents(path: Path) -> Iterator[tuple[Any, yaml.Node | None]]:
    """The parsed documents of one file, each with its YAML node (None for JSON); text that
    is not UTF-8 (a byte-order mark is fine), JSON or YAML is a ``SuiteError`` naming the
    file and, for YAML, the line."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SuiteError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        if path.suffix == ".json":
            try:
                yield json.loads(text), None
            except json.JSONDecodeError as exc:
                raise SuiteError(f"{path}: not valid JSON: {exc}") from None
            return
        try:
            yield from suite_yaml.documents(text)
        except yaml.YAMLError as exc:
            raise SuiteError(f"{path}: {suite_yaml.problem(exc)}") from None
    except RecursionError:
        raise SuiteError(f"{path}: nested too deeply to read") from None


def load_file(path: Path) -> list[Case]:
    """All cases of one file: multi-document stream, a list, or ``{"cases": [...]}``."""
    cases: list[Case] = []
    for doc, node in _documents(path):
        if doc is None:
            continue  # the empty first document of a stream that starts with ---
        items = doc.get("cases", [doc]) if isinstance(doc, Mapping) else doc
        if not isinstance(items, list):
            place = "" if node is None else f" at line {suite_yaml.line(node)}"  # JSON: one
            raise SuiteError(
                f"{path}: the document{place} must be a case, a list or {{cases: [...]}}"
            )
        nodes = suite_yaml.items(doc, node) if node is not None else []
        for index, item in enumerate(items):
            item_node = nodes[index] if index < len(nodes) else None
            at = f"item {index + 1}" if item_node is None else f"line {suite_yaml.line(item_node)}"
            if not isinstance(item, Mapping):
                kind = type(item).__name__
                raise SuiteError(f"{path}: the case at {at} must be a mapping, got {kind}")
            if item_node is not None:
                item = suite_yaml.as_written(item, item_node)
            try:
                cases.append(case_from_dict(item, str(path), at=at))
            except RecursionError:  # a YAML alias can make a value hold itself
                raise SuiteError(f"{path}: the case at {at} holds itself") from None
    return cases


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():  # its message is the path alone otherwise: `Invalid value: nonexist`
        raise FileNotFoundError(f"no such file or directory: {path}")
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
    return _some(_unique(c for f in _files(Path(path)) for c in load_file(f)), path)


def _some(cases: list[Case], where: Path | str) -> list[Case]:
    """A load that found no case is an error: a run of nothing graded nothing, and looked
    like an endpoint that is down (exit 3); the canary measured nothing."""
    if not cases:
        raise SuiteError(f"{where} holds no cases")
    return cases


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
    cases = _unique(c for f in profile_files(root, profile) for c in load_file(f))
    return _some(cases, f"profile {profile} under {root}")


def published_count(profile: str) -> int:
    """How many cases the team's published profile has (to warn about partial checkouts)."""
    return PROFILES[profile][1]
