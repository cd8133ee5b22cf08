"""Config validation: what each field may hold, and errors that name the field and its line.

Reading the file itself (YAML, `${VAR}` in values) is tested in test_config_reading.py;
both take `GOOD` and `write` from `tests.router.config_files`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import BaseModel

from router.config import Config, ConfigError, hash_key, load
from router.config_mask import masked
from tests.router.config_files import GOOD, write


def test_loads_with_env_defaults_and_default_routes(tmp_path: Path) -> None:
    config = load(write(tmp_path, GOOD), env={})
    assert config.backend("local").model == "laguna"
    assert config.routes["coding"] == ["local", "cloud"]
    assert config.routes["math"] == ["cloud", "local"]


def test_unknown_field_names_field_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("    model: gpt-4o", "    model: gpt-4o\n    modle: typo"))
    with pytest.raises(ConfigError) as info:
        load(path, env={})
    message = str(info.value)
    assert "router.yaml" in message and "backends.1.modle" in message and "line 11" in message


def test_errors_in_the_second_backend_point_at_its_own_lines(tmp_path: Path) -> None:
    """The first `tier:` in the file was reported, the first backend's (found in review)."""
    text = (
        "backends:\n"
        "  - name: local\n    tier: local\n    base_url: http://127.0.0.1:9/v1\n    model: m\n"
        "  - name: cloud\n    tier: clowd\n    base_url: http://127.0.0.1:9/v1\n    modle: g\n"
    )
    path = tmp_path / "router.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load(path, env={})
    message = str(info.value)
    assert "backends.1.tier (line 7)" in message  # not line 3
    assert "backends.1.model (line 6)" in message  # missing: the list item that lacks it
    assert "backends.1.modle (line 9)" in message


def test_route_to_unknown_backend_is_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD + "routes:\n  coding: [gpu]\n")
    with pytest.raises(ConfigError, match=r"routes\.coding \(line 17\): unknown backend 'gpu'"):
        load(path, env={})


def test_a_canary_window_smaller_than_min_samples_is_rejected(tmp_path: Path) -> None:
    """With window 4 and min_samples 5 no gate could ever close, and one closed before a
    reload shrank the window could never reopen (found in review)."""
    path = write(tmp_path, GOOD + "canary:\n  window: 4\n")
    with pytest.raises(
        ConfigError, match=r"canary\.min_samples \(line 16\): 5 is more than canary\.window"
    ):
        load(path, env={})


def test_missing_canary_suites_or_baselines_are_config_errors(tmp_path: Path) -> None:
    """A mistyped path passed `config check`, then stopped `serve` with a traceback."""
    path = write(tmp_path, GOOD + f"canary:\n  suites: {tmp_path / 'nosuch'}\n")
    with pytest.raises(ConfigError, match=r"canary\.suites \(line 17\): no such directory"):
        load(path, env={})
    path = write(tmp_path, GOOD + f"canary:\n  baselines:\n    local: {tmp_path / 'x.json'}\n")
    with pytest.raises(ConfigError, match=r"canary\.baselines\.local \(line 18\): no such file"):
        load(path, env={})


def test_a_baseline_that_is_no_results_document_is_a_config_error(tmp_path: Path) -> None:
    """`config check` accepted it, then `serve` and `canary run` stopped with a traceback
    when they learnt floors from it (found in review)."""
    baseline = tmp_path / "base.json"
    baseline.write_text("not json")
    path = write(tmp_path, GOOD + f"canary:\n  baselines:\n    local: {baseline}\n")
    with pytest.raises(ConfigError, match=r"canary\.baselines\.local \(line 18\): .*not JSON"):
        load(path, env={})


def test_a_health_path_without_a_leading_slash_is_rejected(tmp_path: Path) -> None:
    """`healthz` made every probe an invalid URL (see the probe loop's own test)."""
    path = write(tmp_path, GOOD.replace("tier: local", "tier: local\n    health_path: healthz"))
    with pytest.raises(ConfigError, match=r"backends\.0\.health_path"):
        load(path, env={})


def test_wrong_type_names_the_field(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("tier: local", "tier: attic"))
    with pytest.raises(ConfigError, match=r"backends\.0\.tier"):
        load(path, env={})


def test_masked_config_holds_no_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUD_KEY", "sk-very-secret")
    config = load(write(tmp_path, GOOD), env={})
    text = repr(masked(config))
    assert "sk-very-secret" not in text and hash_key("sk-alice") not in text
    assert masked(config)["backends"][1]["api_key"] == "set"


ROUTES = "routes:\n" + "".join(
    f"  {i}: [local]\n"
    for i in ("coding", "tool_calling", "math", "reasoning", "instruction", "prose", "writing")
)


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("shadow:\n  rates: {coding: 1.5}\n", "shadow.rates.coding"),
        ("shadow:\n  route_rates: {coding: -0.1}\n", "shadow.route_rates.coding"),
        ("canary:\n  floors: {math: 80}\n", "canary.floors.math"),
        ("shadow:\n  judge_backend: gpu\n", "shadow.judge_backend"),
        (ROUTES + "  local: [cloud]\n", "routes.local"),
        (ROUTES + "  auto: [cloud]\n", "routes.auto"),
    ],
)
def test_mistakes_that_used_to_pass_silently_name_their_field(
    tmp_path: Path, extra: str, field: str
) -> None:
    """A floor of 80 gated everything, a rate of 1.5 or a judge named wrong did nothing, a
    route named like a backend hid that backend from `model` (found in review)."""
    with pytest.raises(ConfigError, match=rf"{re.escape(field)}"):
        load(write(tmp_path, GOOD + extra), env={})


@pytest.mark.parametrize("field", ["retention_days", "text_retention_days"])
def test_a_retention_of_yes_is_refused_not_read_as_one_day(tmp_path: Path, field: str) -> None:
    """YAML reads `yes` as true, which loaded as 1 day: housekeeping would have dropped all
    but yesterday (found in re-review)."""
    with pytest.raises(ConfigError, match=rf"ledger\.{field}"):
        load(write(tmp_path, GOOD + f"ledger:\n  {field}: yes\n"), env={})


def test_a_retention_from_the_environment_or_quoted_loads(tmp_path: Path) -> None:
    """Strict ints refused `${SMF_RETENTION_DAYS}` (a string) and "730" (found in
    re-review): only a boolean is refused."""
    text = GOOD + "ledger:\n  retention_days: ${DAYS}\n  text_retention_days: '14'\n"
    loaded = load(write(tmp_path, text), env={"DAYS": "90"}).ledger
    assert (loaded.retention_days, loaded.text_retention_days) == (90, 14)


@pytest.mark.parametrize(
    ("extra_body", "named"),
    [
        ("{temperature: .nan}", "nan"),
        ("{temperature: .inf}", "inf"),
        ("{chat_template_kwargs: {on: 2}}", "True"),
        ("{logit_bias: {1: -100, '1': 5}}", "twice"),
    ],
)
def test_an_extra_body_json_cannot_send_as_written_is_refused(
    tmp_path: Path, extra_body: str, named: str
) -> None:
    """orjson wrote NaN as null, a YAML `on:` key as "true", and kept one of two keys that
    JSON writes alike, each silently (found in re-review)."""
    backend = "  - name: local\n    tier: local\n    base_url: http://127.0.0.1:8888/v1\n"
    text = f"backends:\n{backend}    model: m\n    extra_body: {extra_body}\n"
    with pytest.raises(ConfigError, match=rf"backends\.0\.extra_body(?s:.*){named}"):
        load(write(tmp_path, text), env={})


@pytest.mark.parametrize("field", ["retention_days", "text_retention_days"])
def test_a_retention_of_forever_loads(tmp_path: Path, field: str) -> None:
    """99999 ("forever") loaded before retention was made safe for any number; a bound of
    36500 then stopped such a router from starting after an upgrade (found in re-review).
    Retention itself drops nothing for a number too large (tests/ledger/test_ledger_upkeep)."""
    for days in (99999, 1000000):
        kept = load(write(tmp_path, GOOD + f"ledger:\n  {field}: {days}\n"), env={})
        assert getattr(kept.ledger, field) == days


@pytest.mark.parametrize(
    ("alias", "shadowed"), [("local: cloud", "backend 'local'"), ("coding: math", "route 'coding'")]
)
def test_an_alias_named_like_a_backend_or_route_is_rejected_naming_both(
    tmp_path: Path, alias: str, shadowed: str
) -> None:
    """The alias won, silently: `model: local` (and `x-smf-route: local`) went to the cloud
    backend (found in review). `serve`, `config check` and a reload all read through `load`;
    an alias to its own name changes nothing and stays allowed."""
    name, target = alias.split(": ")
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, GOOD + f"aliases: {{auto: auto, {alias}}}\n"), env={})
    message = str(info.value)
    assert f"aliases.{name} (line 16)" in message
    assert f"to '{target}' instead of {shadowed}" in message
    same = load(write(tmp_path, GOOD + f"aliases: {{auto: auto, {name}: {name}}}\n"), env={})
    assert same.aliases[name] == name


def test_a_backend_named_auto_is_rejected_naming_it(tmp_path: Path) -> None:
    """`model: auto` (and `x-smf-route: auto`) always classifies, so a backend named `auto`
    loaded and could never be chosen by name (found in review). `serve`, `config check` and
    a reload all read through `load`."""
    named_auto = GOOD.replace("  - name: cloud\n", "  - name: auto\n") + ROUTES
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, named_auto), env={})
    message = str(info.value)
    assert "backends.1.name (line 7)" in message
    assert "may not be named 'auto'" in message


def test_two_keys_with_one_digest_are_refused(tmp_path: Path) -> None:
    twice = GOOD + "    - name: mallory\n      sha256: " + hash_key("sk-alice") + "\n"
    twice = twice.replace("auth:\n  keys:\n", "auth:\n  keys:\n", 1)
    with pytest.raises(ConfigError, match="same sha256"):
        load(write(tmp_path, twice), env={})


def test_two_keys_with_one_name_and_other_rights_are_refused_at_the_second(
    tmp_path: Path,
) -> None:
    """Both passed: the ledger's `caller` column, which holds the name, could not tell an
    admin's requests from another caller's (found in review). Two keys of one caller with
    the same rights (a key rotated in beside the old one) keep sharing the name."""
    rotated = GOOD + "    - name: alice\n      sha256: " + hash_key("sk-alice-new") + "\n"
    keys = load(write(tmp_path, rotated), env={}).auth.keys
    assert [key.name for key in keys] == ["alice", "alice"]
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, rotated + "      admin: true\n"), env={})
    message = str(info.value)
    assert "auth.keys.1.name (line 16): 'alice' is also the name of auth.keys.0" in message
    assert "other rights" in message and "caller" in message


def test_a_litellm_backend_speaks_chat_only(tmp_path: Path) -> None:
    """`apis` defaulted to [chat, completions] for every kind, so /v1/completions chose a
    litellm backend that could only refuse it, and never reached the next (found in review)."""
    litellm = GOOD.replace("    base_url: https://api.example.com/v1\n", "    kind: litellm\n")
    assert load(write(tmp_path, litellm), env={}).backend("cloud").apis == ["chat"]
    both = litellm.replace(
        "    model: gpt-4o\n", "    model: gpt-4o\n    apis: [chat, completions]\n"
    )
    with pytest.raises(ConfigError, match=r"backends\.1\.apis \(line 11\): .*chat only"):
        load(write(tmp_path, both), env={})


@pytest.mark.parametrize(
    "url",
    [
        "spark:8888/v1",  # no scheme: a URL parser sees no host, requests went to localhost:80
        "not a url",
        "ftp://127.0.0.1/v1",
        "http://127.0.0.1:99999/v1",  # these two passed the check, then stopped `serve`
        "http://[::1/v1",
        "http://exa mple.com/v1",
    ],
)
def test_a_base_url_that_is_not_an_http_url_is_rejected_with_its_line(
    tmp_path: Path, url: str
) -> None:
    """Found in review: each passed `config check`."""
    path = write(tmp_path, GOOD.replace("https://api.example.com/v1", f'"{url}"'))
    with pytest.raises(ConfigError, match=r"backends\.1\.base_url \(line 9\)"):
        load(path, env={})


def test_an_openai_backend_without_base_url_and_a_bad_metrics_url_are_rejected(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, GOOD.replace("    base_url: https://api.example.com/v1\n", ""))
    with pytest.raises(ConfigError, match=r"backends\.1 \(line 7\): .*base_url"):
        load(path, env={})
    metrics = GOOD.replace("tier: local", "tier: local\n    metrics_url: spark:8000/metrics")
    with pytest.raises(ConfigError, match=r"backends\.0\.metrics_url"):
        load(write(tmp_path, metrics), env={})
    ipv6 = GOOD.replace("https://api.example.com/v1", '"http://[::1]:8000/v1"')
    assert load(write(tmp_path, ipv6), env={}).backend("cloud").base_url.startswith("http://[")


def test_a_key_is_read_without_surrounding_whitespace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key file or a Kubernetes secret often ends with a newline."""
    monkeypatch.setenv("CLOUD_KEY", "sk-from-a-file\n")
    assert load(write(tmp_path, GOOD), env={}).backend("cloud").api_key == "sk-from-a-file"


@pytest.mark.parametrize("key", ["sk-one\nsk-two", "sk-a\rb", "sk-ключ", "sk-a\x1bb"])
def test_a_key_a_header_cannot_carry_is_rejected_without_showing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """`config check` said the key was set and exited 0; `serve` then stopped with a
    traceback about a line break in the authorization header (found in review)."""
    monkeypatch.setenv("CLOUD_KEY", key)
    with pytest.raises(
        ConfigError, match=r"backends\.1\.api_key_env \(line 11\): .*CLOUD_KEY"
    ) as info:
        load(write(tmp_path, GOOD), env={})
    assert "sk-" not in str(info.value)


def test_a_header_a_request_cannot_carry_is_rejected(tmp_path: Path) -> None:
    broken = GOOD.replace("api_key_env: CLOUD_KEY", 'headers: {x-team: "a\\nb"}')
    with pytest.raises(ConfigError, match=r"backends\.1\.headers \(line 11\)"):
        load(write(tmp_path, broken), env={})
    named = GOOD.replace("api_key_env: CLOUD_KEY", 'headers: {"x team": "a"}')
    with pytest.raises(ConfigError, match=r"backends\.1\.headers .*not an HTTP header name"):
        load(write(tmp_path, named), env={})


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("server:\n  drain_s: .inf\n", "server.drain_s (line 17)"),  # OverflowError in serve
        ("resilience:\n  open_s: .nan\n", "resilience.open_s (line 17)"),
        (ROUTES.replace("coding: [local]", "coding: [local, local]"), "routes.coding (line 17)"),
        ("shadow:\n  rates: {codign: 0.1}\n", "shadow.rates.codign (line 17)"),
        ("shadow:\n  route_rates: {codign: 0.1}\n", "shadow.route_rates.codign (line 17)"),
        ("canary:\n  floors:\n    maths: 0.5\n", "canary.floors.maths (line 18)"),
        ("shadow:\n  judge_backend: gpu\n", "shadow.judge_backend (line 17)"),
    ],
)
def test_smaller_mistakes_are_rejected_at_their_line(
    tmp_path: Path, extra: str, field: str
) -> None:
    """Found in review: infinities and NaN passed as durations, a backend listed twice in
    a route, and typos in intent keys were accepted; errors found across fields
    said `<root>` and no line."""
    with pytest.raises(ConfigError, match=re.escape(field)):
        load(write(tmp_path, GOOD + extra), env={})


def _field_names(model: type[BaseModel]) -> set[str]:
    """Every field of `model` and of the models inside it."""
    names: set[str] = set()
    for name, info in model.model_fields.items():
        names.add(name)
        kinds: list[Any] = [info.annotation]
        while kinds:
            kind = kinds.pop()
            if isinstance(kind, type) and issubclass(kind, BaseModel):
                names |= _field_names(kind)
            else:
                kinds.extend(get_args(kind))
    return names


def test_the_readme_reference_names_every_config_field() -> None:
    """The table missed fields the code accepts (metrics_url, health_path, canary.min_samples,
    shadow.timeout_s, ...: found in review); `demo` is the built-in demo config's mark."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = readme.split("| section | field | meaning |", 1)[1].split("\n\n", 1)[0]
    documented = {name.removesuffix("[]") for name in re.findall(r"`([^`]+)`", table)}
    assert _field_names(Config) - {"demo"} - documented == set()


def test_a_file_may_not_turn_demo_on(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"demo \(line 16\)"):
        load(write(tmp_path, GOOD + "demo: true\n"), env={})
    assert not load(write(tmp_path, GOOD + "demo: false\n"), env={}).demo  # a dumped config


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("shadow:\n  targets: {coding: cloud}\n", "shadow.targets.coding (line 18)"),
        ("shadow:\n  judge_backend: cloud\n", "shadow.judge_backend (line 18)"),
    ],
)
def test_a_shadow_target_or_judge_that_does_not_speak_chat_is_refused(
    tmp_path: Path, extra: str, field: str
) -> None:
    """The shadow asks its targets and its judge in chat: a backend with `apis: [responses]`
    got POST /chat/completions on every replay (found in review). Only while a rate is above
    0: with none the shadow asks nobody, and a leftover stopped `serve` and a reload after an
    upgrade (found in review); it loads, with a warning (tests/router/test_config_warnings)."""
    responses_only = GOOD.replace("model: gpt-4o", "model: gpt-4o\n    apis: [responses]")
    for rate in ("  rates: {coding: 0.1}\n", "  route_rates: {math: 0.5}\n"):
        with pytest.raises(ConfigError, match=rf"{re.escape(field)}: .*does not speak chat"):
            load(write(tmp_path, responses_only + extra + rate), env={})
        load(write(tmp_path, GOOD + extra + rate), env={})  # the same backend speaking chat
    off = load(write(tmp_path, responses_only + extra + "  rates: {coding: 0.0}\n"), env={})
    assert [w.split(":")[0] for w in off.warnings() if "chat" in w] == [field.split(" ")[0]]
