"""Numbers in the config, through `smf-router config check`: no boolean where a number goes,
no duration so long that what waits on it breaks, and no default wait the clients outwait."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import pytest
from pydantic import BaseModel, Field

from router.config import Config, load
from router.config_backend import Count, Number, Strict, _no_bool
from tests.router.config_files import GOOD, config_check, write


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (
            GOOD.replace("tier: local", "tier: local\n    context_window: on"),
            "backends.0.context_window (line 5)",
        ),
        (
            GOOD.replace("tier: local", "tier: local\n    max_concurrency: true"),
            "backends.0.max_concurrency (line 5)",
        ),
        (GOOD + "classifier: {min_confidence: yes}\n", "classifier.min_confidence (line 16)"),
        (GOOD + "shadow: {rates: {math: on}}\n", "shadow.rates.math (line 16)"),
        (GOOD + "shadow: {queue_bytes: yes}\n", "shadow.queue_bytes (line 16)"),
        (
            GOOD.replace("tier: local", "tier: local\n    timeouts: {total_s: off}"),
            "backends.0.timeouts.total_s (line 5)",
        ),
    ],
    ids=[
        "context_window",
        "max_concurrency",
        "min_confidence",
        "shadow_rate",
        "shadow_queue_bytes",
        "total_s",
    ],
)
def test_a_yaml_boolean_where_a_number_goes_is_refused_naming_the_field(
    tmp_path: Path, text: str, field: str
) -> None:
    """YAML reads on/yes/true as true, and every int and float field but the two retentions
    took it as 1: `context_window: on` was a 1-token window, so every request skipped the
    local backend for the paid cloud without a word (found in review)."""
    done = config_check(write(tmp_path, text))
    assert done.returncode == 2, done.stdout
    assert f"{field}: is yes/no, on/off or true/false, which YAML reads as a boolean, not a " in (
        done.stderr
    )


def test_each_boolean_in_a_mapping_is_said_at_its_own_key(tmp_path: Path) -> None:
    """The check looked into a mapping's values for the first boolean only, and said it of
    the whole mapping (`shadow.rates (line 17): the value of 'math' is ...`)."""
    text = GOOD + "shadow:\n  rates:\n    math: on\n    prose: 0.5\n    coding: yes\n"
    done = config_check(write(tmp_path, text))
    assert done.returncode == 2, done.stdout
    for field in ("shadow.rates.math (line 18)", "shadow.rates.coding (line 20)"):
        assert f"  {field}: is yes/no, on/off or true/false, which YAML reads" in done.stderr
    assert "prose" not in done.stderr


def _unchecked(annotation: Any, metadata: list[Any], where: str, seen: set[type]) -> list[str]:
    """Where `annotation` holds an int or a float that is not `Number` or `Count` (which
    refuse a YAML boolean), inside models, containers and unions all the way down."""
    if get_origin(annotation) is Annotated:
        inner, *more = get_args(annotation)
        return _unchecked(inner, [*metadata, *more], where, seen)
    if annotation in (int, float):
        checked = any(getattr(m, "func", None) is _no_bool for m in metadata)
        return [] if checked else [where]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation in seen:
            return []
        seen.add(annotation)
        fields = annotation.model_fields.items()
        return [
            bad
            for name, info in fields
            for bad in _unchecked(info.annotation, info.metadata, f"{where}.{name}", seen)
        ]
    return [bad for arg in get_args(annotation) for bad in _unchecked(arg, [], where, seen)]


def test_every_number_in_the_config_refuses_a_boolean() -> None:
    """The next number field cannot forget the check: one given as a bare `int` or `float`,
    or inside a list, a tuple, a mapping or a union, took `on` as 1 (found in review)."""
    assert _unchecked(Config, [], "", set()) == []

    class Planted(Strict):  # what the walk must find
        plain: float = 0.0
        nested: dict[str, list[tuple[Number, int]]] = Field(default_factory=dict)
        optional: Count | None = None

    assert _unchecked(Planted, [], "", set()) == [".plain", ".nested"]


def test_booleans_where_booleans_go_and_numbers_from_variables_still_load(
    tmp_path: Path,
) -> None:
    text = GOOD + "ledger: {store_text: yes, flush_interval_s: '${FLUSH}'}\n"
    text += "server: {proxy_headers: on}\n"
    config = load(write(tmp_path, text), env={"FLUSH": "2"})
    assert config.ledger.store_text and config.server.proxy_headers
    assert config.ledger.flush_interval_s == 2.0


@pytest.mark.parametrize(
    ("extra", "field", "most"),
    [
        (
            "ledger: {flush_interval_s: 1e10}\n",
            "ledger.flush_interval_s (line 16)",
            "3600 (an hour)",
        ),
        ("canary: {interval_s: 1e300}\n", "canary.interval_s (line 16)", "2592000 (30 days)"),
    ],
)
def test_a_wait_too_long_for_what_waits_on_it_is_refused(
    tmp_path: Path, extra: str, field: str, most: str
) -> None:
    """`flush_interval_s: 1e10` passed, and the ledger writer thread died of an
    OverflowError in `Event.wait` while the server looked ready; with `canary.interval_s:
    1e300`, `/v1/router/status` answered 500 writing the next run's date (found in review).
    The bound is said in hours or days too: 2592000 alone meant little."""
    done = config_check(write(tmp_path, GOOD + extra))
    assert done.returncode == 2, done.stdout
    assert f"{field}: Input should be less than or equal to {most}" in done.stderr
    kept = load(
        write(tmp_path, GOOD + extra.replace("1e10", "3600").replace("1e300", "86400")), env={}
    )
    assert (kept.ledger.flush_interval_s, kept.canary.interval_s) in {(3600, 900), (1, 86400)}


@pytest.mark.parametrize("key", ["input_per_mtok", "cache_write_input_per_mtok"])
def test_a_price_past_any_model_is_refused_naming_the_field(tmp_path: Path, key: str) -> None:
    """`output_per_mtok: 1e300` loaded, and every report then failed: its exact sums
    (DECIMAL(38, 12)) cannot hold such dollars (found in review)."""
    required = {"input_per_mtok": 1, "output_per_mtok": 1, key: "1e300"}
    price = "    price: {" + ", ".join(f"{k}: {v}" for k, v in required.items()) + "}\n"
    text = GOOD.replace("    api_key_env: CLOUD_KEY\n", "    api_key_env: CLOUD_KEY\n" + price)
    done = config_check(write(tmp_path, text))
    assert done.returncode == 2, done.stdout
    assert f"backends.1.price.{key}" in done.stderr
    assert "less than or equal to 100000" in done.stderr
    kept = load(write(tmp_path, text.replace("1e300", "600")), env={"CLOUD_KEY": "k"})
    assert getattr(kept.backend("cloud").price, key) == 600


@pytest.mark.parametrize(
    ("key", "past", "bound"),
    [
        ("hardware_usd", "1e300", "less than or equal to 10000000"),
        ("monthly_fixed_usd", "1e300", "less than or equal to 1000000"),
        ("power_watts", "1e300", "less than or equal to 100000"),
        ("electricity_usd_per_kwh", "1e300", "less than or equal to 100"),
        ("amortization_months", "1e300", "less than or equal to 1200"),
        ("amortization_months", "1e-300", "greater than or equal to 0.001"),
    ],
)
def test_a_local_cost_past_any_box_is_refused_naming_the_field(
    tmp_path: Path, key: str, past: str, bound: str
) -> None:
    """`local_cost: {hardware_usd: 1e300}` loaded (and `amortization_months: 1e-300`, which
    multiplied the price as much), and every report then failed, "Could not cast value … to
    DECIMAL(38,12)", compaction rolling up no day (found in review)."""
    line = f"tier: local\n    local_cost: {{{key}: {past}}}"
    done = config_check(write(tmp_path, GOOD.replace("tier: local", line)))
    assert done.returncode == 2, done.stdout
    assert f"backends.0.local_cost.{key}" in done.stderr
    assert bound in done.stderr
    most = bound.split()[-1]
    kept = load(write(tmp_path, GOOD.replace("tier: local", line.replace(past, most))), env={})
    assert getattr(kept.backend("local").local_cost, key) == float(most)


def _sdk_default_timeout_s() -> float:
    """The openai SDK's default timeout (`DEFAULT_TIMEOUT`, the anthropic SDK's too) where
    it is installed, else the 600 s both document."""
    try:
        openai = importlib.import_module("openai")
    except ImportError:
        return 600.0
    return float(openai.DEFAULT_TIMEOUT.read)


def test_the_default_total_s_leaves_the_client_an_answer(tmp_path: Path) -> None:
    """A whole reply's only bound is `total_s`, which was 600 s by default: the SDKs' own
    default timeout, so on a backend that never answers the router's fallback or error
    raced the client giving up (2 of 5 ended a 499 `cancelled`, found in review). The
    default is below it: a hung backend falls back or fails while the client still waits."""
    config = load(write(tmp_path, GOOD), env={})
    assert config.backend("local").timeouts.total_s < _sdk_default_timeout_s()


def test_resilience_waits_past_their_bound_are_refused(tmp_path: Path) -> None:
    """`open_s: 1e300` (with `max_open_s` as long) loaded, and a refusal's Retry-After header
    carried a 300-digit number (found in review)."""
    hour = ("open_s", "max_open_s", "probe_timeout_s", "max_queue_wait_s")
    day = ("probe_interval_s", "capacity_poll_s", "models_refresh_s")
    fields = (*hour, *day, "sticky_ttl_s")
    text = GOOD + "resilience:\n" + "".join(f"  {name}: 1e300\n" for name in fields)
    done = config_check(write(tmp_path, text))
    assert done.returncode == 2, done.stdout
    for line, name in enumerate(fields, start=17):
        most = "3600 (an hour)" if name in hour else "86400 (a day)"
        most = "2592000 (30 days)" if name == "sticky_ttl_s" else most
        said = f"resilience.{name} (line {line}): Input should be less than or equal to {most}"
        assert said in done.stderr
    longest = (
        GOOD
        + "resilience:\n"
        + "".join(f"  {name}: {3600 if name in hour else 86400}\n" for name in fields[:-1])
    )
    assert load(write(tmp_path, longest), env={}).resilience.max_open_s == 3600


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ("{open_s: 30}", "30 is more than resilience.max_open_s (8)"),
        ("{open_s: 2, max_open_s: 1.5}", "2 is more than resilience.max_open_s (1.5)"),
    ],
)
def test_a_first_wait_past_its_cap_is_refused_naming_both(
    tmp_path: Path, settings: str, said: str
) -> None:
    """`max_open_s` caps every wait before a trial, the first too: `open_s: 30` beside the
    default cap of 8 loaded and waited 8 s, saying nothing (found in review)."""
    done = config_check(write(tmp_path, GOOD + f"resilience: {settings}\n"))
    assert done.returncode == 2, done.stdout
    assert f"resilience.open_s (line 16): {said}" in done.stderr
    equal = load(write(tmp_path, GOOD + "resilience: {open_s: 30, max_open_s: 30}\n"), env={})
    assert equal.resilience.open_s == equal.resilience.max_open_s == 30


_BACKEND_WAITS = {  # the bound of each, as the error says it
    "timeouts: {connect_s": "3600 (an hour)",
    "timeouts: {first_token_s": "3600 (an hour)",
    "timeouts: {idle_s": "3600 (an hour)",
    "timeouts: {total_s": "86400 (a day)",
    "retry_after_max_s": "3600 (an hour)",
}


@pytest.mark.parametrize("key", list(_BACKEND_WAITS))
def test_a_backend_deadline_past_its_bound_is_refused(tmp_path: Path, key: str) -> None:
    """Every deadline of a backend loaded as `1e300` (the reviewer's big.yaml): no deadline
    at all, and a 429's Retry-After of a day slept out before the retry (found in review)."""
    close = "}" if key.startswith("timeouts") else ""
    line = f"tier: local\n    {key}: 1e300{close}"
    done = config_check(write(tmp_path, GOOD.replace("tier: local", line)))
    assert done.returncode == 2, done.stdout
    field = key.replace("timeouts: {", "timeouts.")
    most = _BACKEND_WAITS[key]
    assert f"backends.0.{field} (line 5): Input should be less than or equal to {most}" in (
        done.stderr
    )
    longest = line.replace("1e300", most.split()[0])
    kept = load(write(tmp_path, GOOD.replace("tier: local", longest)), env={})
    local = kept.backend("local")
    name = field.removeprefix("timeouts.")
    value = getattr(local.timeouts if name != field else local, name)
    assert value == float(most.split()[0])


def test_section_deadlines_past_their_bound_are_refused(tmp_path: Path) -> None:
    """`server.drain_s`, `shadow.timeout_s` and `canary.timeout_s` loaded as `1e300`: no
    limit to a shutdown's drain, a replay or a canary case (found in review)."""
    fields = ("server: {drain_s", "shadow: {timeout_s", "canary: {timeout_s")
    done = config_check(write(tmp_path, GOOD + "".join(f"{f}: 1e300}}\n" for f in fields)))
    assert done.returncode == 2, done.stdout
    for line, key in enumerate(fields, start=16):
        field = key.replace(": {", ".")
        said = f"{field} (line {line}): Input should be less than or equal to 86400 (a day)"
        assert said in done.stderr
    kept = load(write(tmp_path, GOOD + "".join(f"{f}: 86400}}\n" for f in fields)), env={})
    assert kept.server.drain_s == kept.shadow.timeout_s == kept.canary.timeout_s == 86400
