"""The configuration: one validated model, loaded once from YAML at start and passed down.

Secrets never live in the file: a backend names the environment variable that holds its
key (`api_key_env`), and any string may use `${VAR}`, `${VAR:-default}` or `${VAR-default}`
with the shell's meaning (`router.config_env`). A backend's settings are in
`router.config_backend`, the other sections' in `router.config_sections`; this module keeps
the whole model and the checks across sections. Only a regular file of at most 10 MB is
read. The YAML is read by `router.config_yaml`, single values are checked by
`router.config_checks`, and `router.config_mask` prints the result without secrets.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, PrivateAttr, ValidationError, model_validator

from classifier.intent import INTENTS
from evals import yaml_errors
from router import config_env, config_warnings, config_yaml
from router.config_backend import NAME, Strict
from router.config_backend import Backend as Backend
from router.config_backend import LocalCost as LocalCost
from router.config_checks import shadow_backends
from router.config_sections import (
    Auth,
    CanarySettings,
    ClassifierSettings,
    LedgerSettings,
    ResilienceSettings,
    ServerSettings,
    ShadowSettings,
)
from router.gating import samples_to_clear, wilson_lower

DEFAULT_ROUTES: dict[str, list[str]] = {
    "coding": ["local", "cloud"],
    "tool_calling": ["local", "cloud"],
    "instruction": ["local", "cloud"],
    "math": ["cloud", "local"],
    "reasoning": ["cloud", "local"],
    "prose": ["cloud", "local"],
    "writing": ["cloud", "local"],
}

MAX_CONFIG_BYTES = 10 * 2**20  # a config is a few kB; beyond this it is some other file


class Config(Strict):
    """The whole configuration. Cross-field checks live in the validator below."""

    backends: list[Backend]
    routes: dict[str, list[str]] = Field(default_factory=lambda: dict(DEFAULT_ROUTES))
    aliases: dict[str, str] = Field(default_factory=lambda: {"auto": "auto"})
    auth: Auth = Auth()
    classifier: ClassifierSettings = ClassifierSettings()
    server: ServerSettings = ServerSettings()
    ledger: LedgerSettings = LedgerSettings()
    shadow: ShadowSettings = ShadowSettings()
    canary: CanarySettings = CanarySettings()
    resilience: ResilienceSettings = ResilienceSettings()
    demo: bool = False  # true in the built-in demo config only: `load` refuses it in a file
    # Where `load` put a variable's value: the value as it may be shown (`config_mask`).
    _from_env: dict[config_env.Where, str] = PrivateAttr(default_factory=dict)
    # The environment variables `parse` was told filled each place (`router.default_config`).
    _variables: dict[config_yaml.Loc, str] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _check_references(self) -> Config:
        names = [b.name for b in self.backends]
        if not names:
            raise ValueError("backends: at least one backend is required")
        first_of: dict[str, int] = {}
        for index, name in enumerate(names):  # at the second one: `backends` had no line
            if (first := first_of.setdefault(name, index)) != index:
                raise ValueError(
                    f"backends.{index}.name: {name!r} is also the name of backends.{first}; "
                    "routes, aliases and the ledger name a backend by it: give each its own"
                )
        for route, members in self.routes.items():
            _check_route_name(route)
            if not members:
                raise ValueError(f"routes.{route}: a route needs at least one backend")
            twice = sorted({m for m in members if members.count(m) > 1})
            if twice:  # the fallback would only try the same backend again
                raise ValueError(f"routes.{route}: {twice} listed more than once")
            for member in members:
                if member not in names and "routes" not in self.model_fields_set:
                    raise ValueError(_default_routes_unmet(names))
                if member not in names:
                    raise ValueError(f"routes.{route}: unknown backend {member!r}")
        missing = [i for i in INTENTS if i not in self.routes]
        if missing:
            raise ValueError(f"routes: no route for intent(s) {missing}")
        for alias, target in self.aliases.items():
            if target != "auto" and target not in self.routes and target not in names:
                raise ValueError(f"aliases.{alias}: {target!r} is neither a route nor a backend")
        if self.classifier.default_route not in self.routes:
            raise ValueError(
                f"classifier.default_route: unknown route {self.classifier.default_route!r}"
            )
        return self

    @model_validator(mode="after")
    def _check_shadow_and_canary(self) -> Config:
        """The backends and routes the shadow and the canary name exist."""
        shadow_backends(self)
        names = {b.name for b in self.backends}
        # a typo (`codign`) was accepted, did nothing; a backend is the route of a request
        # pinned to it (`model: <backend>`), which `shadow_sampling.rate_for` looks up
        for route in self.shadow.route_rates:
            if route not in self.routes and route not in names:
                raise ValueError(
                    f"shadow.route_rates.{route}: neither a route ({', '.join(self.routes)}) "
                    "nor a backend"
                )
        for backend in self.canary.baselines:  # a typo there learned no floor, said nothing
            if backend not in names:
                raise ValueError(f"canary.baselines.{backend}: unknown backend {backend!r}")
        return self

    @model_validator(mode="after")
    def _check_auto_alias(self) -> Config:
        """Aliases apply before `auto` is read (`target.resolve_target`): `aliases: {auto:
        math}` loaded, and `model: auto` (and `x-smf-route: auto`) never classified again,
        silently (found in review), as a backend named `auto` could never be chosen."""
        target = self.aliases.get("auto", "auto")
        if target != "auto":
            raise ValueError(
                f"aliases.auto: model 'auto' means: classify the request, and an alias named "
                f"'auto' would send it to {target!r} instead, so no request would be "
                "classified; name the alias otherwise (auto may map only to auto)"
            )
        return self

    @model_validator(mode="after")
    def _check_names_and_keys(self) -> Config:
        names = {b.name for b in self.backends}
        for index, backend in enumerate(self.backends):  # `model: auto` always classifies,
            # and `x-smf-route: auto` too: nothing could choose such a backend by its name
            if backend.name == "auto":
                raise ValueError(
                    f"backends.{index}.name: a backend may not be named 'auto' (model 'auto' "
                    "means: classify the request), so nothing could choose it; rename it"
                )
        for route in self.routes:  # `model` names a route or a backend: one would hide the other
            if route == "auto" or route in names:
                raise ValueError(
                    f"routes.{route}: a route may not be named 'auto' or like a backend"
                )
        for alias, target in self.aliases.items():  # the alias won, silently: even a header
            # forcing the backend or route by its own name went to the alias's target
            kind = "backend" if alias in names else "route" if alias in self.routes else None
            if kind is not None and target != alias:
                raise ValueError(
                    f"aliases.{alias}: {alias!r} is also a {kind}'s name, and the alias would "
                    f"send model {alias!r} to {target!r} instead of {kind} {alias!r}; "
                    "rename the alias"
                )
        digests = [k.sha256 for k in self.auth.keys]
        if len(set(digests)) < len(digests):
            raise ValueError(
                "auth.keys: two keys have the same sha256 (one would take the other's rights)"
            )
        # The ledger's `caller` is the name: one name is one caller. Two keys of one caller
        # (a key being rotated in beside the old one) share it, but not with other rights.
        first_of: dict[str, int] = {}
        for index, key in enumerate(self.auth.keys):
            first = self.auth.keys[first_of.setdefault(key.name, index)]
            if (first.private, first.admin) != (key.private, key.admin):
                raise ValueError(
                    f"auth.keys.{index}.name: {key.name!r} is also the name of auth.keys."
                    f"{first_of[key.name]}, with other rights (private, admin), and the "
                    "ledger's caller column could not tell them apart; give it a name of its "
                    "own (two keys of one caller with the same rights, as while rotating a "
                    "key, may share a name)"
                )
        canary = self.canary
        if canary.min_samples > canary.window:  # no gate could ever close, or ever reopen
            raise ValueError(
                f"canary.min_samples: {canary.min_samples} is more than canary.window "
                f"({canary.window}), so the window could never hold enough results"
            )
        for intent, floor in canary.floors.items():
            if floor >= 1:
                raise ValueError(
                    f"canary.floors.{intent}: {floor:g} is out of reach: a lower bound never"
                    " reaches 1, so the gate would close for good; lower the floor"
                )
            if samples_to_clear(floor) > canary.window:  # the gate would close for good
                best = wilson_lower(canary.window, canary.window)
                raise ValueError(
                    f"canary.floors.{intent}: {floor:g} is out of reach: with canary.window "
                    f"{canary.window}, even a backend that passes every case has a lower "
                    f"bound of {best:.3f}; raise the window to at least "
                    f"{samples_to_clear(floor)} or lower the floor"
                )
        return self

    def field_name(self, *loc: int | str) -> str:
        """The field at `loc` as an error found after loading (`router.backends.check`) names
        it: for the built-in defaults, by the SMF_* variable that filled it, as `parse` does
        (it said `backends.1.model` of `SMF_CLOUD_MODEL=antropic/...`, found in review)."""
        return config_yaml.field_name(loc, variables=self._variables)

    @property
    def from_env(self) -> dict[config_env.Where, str]:
        """Where `load` put a variable's value, with that value as it may be shown."""
        return self._from_env

    def warnings(self) -> list[str]:
        """What `config check`, `serve` and a reload say of a config that loads
        (`router.config_warnings`: an unset key variable, a leftover shadow backend, ...)."""
        return config_warnings.of(self)

    @functools.cached_property
    def backend_tiers(self) -> frozenset[tuple[str, str]]:
        """(name, tier) of every backend, once per config: "is this backend still configured?"
        is asked as attempts end, and after a reload the answer must be the new config's."""
        return frozenset((b.name, b.tier) for b in self.backends)

    @functools.cached_property
    def backend_names(self) -> frozenset[str]:
        return frozenset(name for name, _ in self.backend_tiers)

    def backend(self, name: str) -> Backend:
        for b in self.backends:
            if b.name == name:
                return b
        raise KeyError(name)


def _check_route_name(route: str) -> None:
    """A route's name is what a request sends as `model` and what the router sends back in
    the `x-smf-route` header, so it is a name as a backend's is. `"快速"` loaded, and each
    request on it was answered and billed by the backend, then failed to encode as a
    header: a plain-text 500, a `router_error` in the ledger; `"line\\nbreak"` gave an empty
    reply the ledger called a 200 (found in review). An alias needs no such rule: it is the
    client's model name (`Qwen/Qwen2.5-7B-Instruct`), read only to find its route."""
    if not re.fullmatch(NAME, route):
        shown = route if route.isprintable() else repr(route)
        raise ValueError(
            f"routes.{shown}: a route's name is sent back in the x-smf-route header, so it is "
            "written as a backend's is: lower-case letters, digits, _, . and -, starting "
            "with a letter or digit (a client's other model name goes in aliases)"
        )


def _default_routes_unmet(names: list[str]) -> str:
    """Without `routes:` the defaults apply, and they name `local` and `cloud`: a newcomer with
    one vLLM box named otherwise was told `routes.coding: unknown backend 'cloud'`, of a
    section the file does not have, with no line (found in review). Each default name that
    is missing is said (naming the first only, it sent the user who renamed `spark` to
    `local` on to the same error for `cloud`)."""
    defaults = dict.fromkeys(name for members in DEFAULT_ROUTES.values() for name in members)
    missing = " or ".join(repr(name) for name in defaults if name not in names)
    return (
        f"routes: not given, so the default routes apply, and they name the backends "
        f"{' and '.join(map(repr, defaults))} (there is no backend {missing}); add a routes: "
        f"section naming your backends for each intent ({', '.join(INTENTS)}), e.g. "
        "`coding: [<backend>]`"
    )


class ConfigError(Exception):
    """A config that cannot be used; the message names the file and the field."""


def load(path: str | Path, env: dict[str, str] | None = None) -> Config:
    """Read, interpolate and validate a YAML config; errors name the file and the field."""
    path = Path(path)
    try:
        raw = _read(path).decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    try:
        data = config_yaml.read(raw)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {yaml_errors.problem(exc)}") from None
    except RecursionError:  # the reader's depth limit should come first; never a traceback
        raise ConfigError(f"{path}: invalid YAML: nested too deeply") from None
    if isinstance(data, dict) and data.get("demo"):  # the built-in demo config's mark
        at = config_yaml.line_of(raw, ("demo",))  # (`false`, as a dumped config says, is fine)
        raise ConfigError(f"{path}: demo (line {at}): set by the router in demo mode only")
    data = _without_extensions(data)
    env = dict(os.environ) if env is None else env
    try:
        values = config_env.interpolate_values(data, env)
    except config_env.UnsetVariable as exc:
        raise ConfigError(f"{path}: {exc}") from None
    config = parse(values, source=str(path), text=raw)
    config._from_env = config_env.through_env(data, env)
    return config


def _without_extensions(data: Any) -> Any:
    """The file's data without its top-level `x-` keys, which hold what other places merge
    (`x-common: &common {...}` and `<<: *common`), as in Compose files: there was nowhere
    to put such a block, any other key being refused as unknown (found in review)."""
    if not isinstance(data, dict):
        return data
    return {k: v for k, v in data.items() if not (isinstance(k, str) and k.startswith("x-"))}


def _read(path: Path) -> bytes:
    """The file's bytes, if it is a regular file of at most MAX_CONFIG_BYTES. `--config
    /dev/zero` ended in a MemoryError traceback and a FIFO waited for a writer forever (found
    in review); the read is bounded too, for a file that grows after the look."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{path}: not a regular file (a config is a YAML file)")
    with path.open("rb") as file:
        data = file.read(MAX_CONFIG_BYTES + 1)
    if info.st_size > MAX_CONFIG_BYTES or len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_CONFIG_BYTES // 2**20} MB; not a config")
    return data


def parse(
    data: Any,
    source: str = "<config>",
    text: str | None = None,
    variables: Mapping[config_yaml.Loc, str] | None = None,
) -> Config:
    """`data` validated; an error names each field and its line in `text`, or the
    environment `variables` that filled it in (`router.default_config`)."""
    if data is None:  # what YAML reads from a file of comments, or of `null`, `~` or `---`
        raise ConfigError(
            f"{source}: the file holds no settings; a config needs at least `backends:`"
        )
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping")
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(config_yaml.describe(exc, source, text, variables)) from None
    config._variables = dict(variables or {})
    return config


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()
