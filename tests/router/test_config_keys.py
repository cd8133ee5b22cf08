"""Config keys that YAML or a name made mean something else than written: `extra_body`'s
keys at its top level, an alias named `auto`, and what `config check` shows for a backend
with no key variable. The rest of config validation is in test_config.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.config import ConfigError, load
from router.config_mask import masked
from router.target import resolve_target
from tests.router.config_files import GOOD, config_check, write


def _with_extra_body(extra_body: str) -> str:
    return GOOD.replace("model: gpt-4o", f"model: gpt-4o\n    extra_body: {extra_body}")


def test_an_int_key_at_the_top_of_extra_body_is_sent_as_json_does(tmp_path: Path) -> None:
    """Only nested keys were converted: `extra_body: {50256: -100}` was refused with
    pydantic's `backends.1.extra_body.50256.[key]: Input should be a valid string` (found in
    review), where `{logit_bias: {50256: -100}}` loaded."""
    top = load(write(tmp_path, _with_extra_body("{50256: -100}")), env={})
    assert top.backend("cloud").extra_body == {"50256": -100}
    nested = load(write(tmp_path, _with_extra_body("{logit_bias: {50256: -100}}")), env={})
    assert nested.backend("cloud").extra_body == {"logit_bias": {"50256": -100}}


@pytest.mark.parametrize(
    ("extra_body", "said"),
    [
        ("{on: 1}", "extra_body has the key True: JSON keys are strings (quote it)"),
        ("{1: -100, '1': 5}", "extra_body has the key '1' twice"),
    ],
)
def test_a_key_at_the_top_of_extra_body_json_cannot_send_is_named_clearly(
    tmp_path: Path, extra_body: str, said: str
) -> None:
    """YAML's `on:` at the top was `extra_body.1.[key]: Input should be a valid string`,
    naming neither the key as written nor what to do (found in review); nested, it was
    already the message below."""
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, _with_extra_body(extra_body)), env={})
    message = str(info.value)
    assert "backends.1.extra_body (line 11)" in message and said in message
    assert "[key]" not in message


def test_an_alias_named_auto_is_refused_naming_it(tmp_path: Path) -> None:
    """Aliases apply before `auto` is read (`target.resolve_target`), so `aliases: {auto:
    math}` loaded and `model: auto` never classified again, silently (found in review), as
    a backend named `auto` could never be chosen. `auto: auto`, the default, still loads."""
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, GOOD + "aliases: {auto: math, smart: auto}\n"), env={})
    message = str(info.value)
    assert "aliases.auto (line 16): model 'auto' means: classify the request" in message
    assert "'math'" in message
    config = load(write(tmp_path, GOOD + "aliases: {auto: auto, smart: math}\n"), env={})
    target = resolve_target("auto", config)
    assert target is not None and target.mode == "auto"


def test_config_check_says_where_a_key_may_come_from_without_a_key_variable(tmp_path: Path) -> None:
    """`api_key: null` beside `set` and `MISSING` read as "missing" (found in review), and
    "none" was wrong for a key the router did not look for, in a `?api-key=` or an
    `X-Goog-Api-Key` header (found in re-review): without `api_key_env`, where a key may
    come from is said, never whether one is sent."""
    gateways = (
        "  - name: claude\n    tier: cloud\n    kind: litellm\n    model: anthropic/c\n"
        '  - {name: gw, tier: cloud, base_url: "https://user:pw@gw.example/v1", model: m}\n'
        '  - {name: gw2, tier: cloud, base_url: "https://gw.example/v1", model: m,'
        ' headers: {Authorization: "Bearer sk-abc"}}\n'
        '  - {name: gw3, tier: cloud, base_url: "https://gw.example/v1?api-key=sk-abc", model: m}\n'
        '  - {name: gw4, tier: cloud, base_url: "https://gw.example/v1", model: m,'
        ' headers: {X-Goog-Api-Key: "sk-abc"}}\n'
    )
    text = GOOD.replace("auth:\n", gateways + "auth:\n")
    shown = masked(load(write(tmp_path, text), env={}))["backends"]
    neutral = (
        "no api_key_env (a key may come from base_url, headers or, for litellm, the "
        "provider's variable)"
    )
    assert [b["api_key"] for b in shown] == [neutral, "MISSING"] + [neutral] * 5
    assert "sk-abc" not in str(shown) and "pw@" not in str(shown)
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert f"`{neutral}`" in " ".join(readme.split())  # it said `none` (found in review)


@pytest.mark.parametrize(
    "key", ["stream", "stream_options", "model", "messages", "prompt", "input", "n"]
)
def test_a_key_the_router_or_the_request_sets_is_refused_in_extra_body(
    tmp_path: Path, key: str
) -> None:
    """`extra_body: {stream: true}` loaded, then filled in `stream` on every request that left
    it out: each whole reply came as a stream, read as a malformed answer, and three opened
    the backend's circuit (found in review). `serve`, `config check` and a reload read
    through `load`."""
    path = write(tmp_path, _with_extra_body(f"{{top_k: 20, {key}: []}}"))
    with pytest.raises(ConfigError) as info:
        load(path, env={})
    assert f"backends.1.extra_body.{key} (line 11): cannot be a default for requests" in str(
        info.value
    )


def test_config_check_names_a_stream_in_extra_body(tmp_path: Path) -> None:
    done = config_check(write(tmp_path, _with_extra_body("{stream: true}")))
    assert done.returncode == 2, done.stderr
    assert "backends.1.extra_body.stream (line 11): cannot be a default" in done.stderr
    assert "Traceback" not in done.stderr


def test_n_in_extra_body_is_refused_naming_it(tmp_path: Path) -> None:
    """`extra_body: {n: 2}` loaded, and every reply to a client that left `n` out came with
    two choices, billed twice, while the router planned one: a litellm stream it cannot tell
    whole, the end of a stream counted on one choice (found in review)."""
    done = config_check(write(tmp_path, _with_extra_body("{top_k: 20, n: 2}")))
    assert done.returncode == 2, done.stdout
    said = "backends.1.extra_body.n (line 11): cannot be a default for requests: the request "
    assert said + "says how many choices it wants" in done.stderr
    assert "Traceback" not in done.stderr
