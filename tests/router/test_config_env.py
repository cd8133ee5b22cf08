"""`${VAR}` interpolation keeps the shell's meaning, and an empty value is no model or path."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from router.config import ConfigError, load
from router.config_env import interpolate
from router.default_config import from_environment
from tests.harness import REPO, VENV_BIN
from tests.router.config_files import GOOD, write
from tests.router.env_config_check import config_check


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ("${V:-dflt}", {"V": "set"}, "set"),
        ("${V:-dflt}", {"V": ""}, "dflt"),  # set but empty: the default, as in a shell
        ("${V:-dflt}", {}, "dflt"),
        ("${V-dflt}", {"V": ""}, ""),  # `-` alone: the default only when unset
        ("${V-dflt}", {}, "dflt"),
        ("${V-dflt}", {"V": "set"}, "set"),
        ("${V}", {"V": ""}, ""),
        ("a-${V:-}-b", {"V": ""}, "a--b"),
    ],
)
def test_defaults_follow_the_shell(text: str, env: dict[str, str], expected: str) -> None:
    """`${VAR:-default}` kept an empty value, where shells and Compose take the default
    (found in review)."""
    assert interpolate(text, env) == expected


def test_the_example_config_with_empty_variables_checks_with_its_defaults() -> None:
    """`SMF_CLOUD_MODEL= SMF_LEDGER_DIR=` (a Compose `.env` with the values left out)
    loaded model '' and a ledger in the working directory, and `config check` showed them
    as `***` and exited 0 (found in review)."""
    done = subprocess.run(
        [str(VENV_BIN / "smf-router"), "config", "check"],
        capture_output=True,
        text=True,
        timeout=120,
        env={
            **os.environ,
            "SMF_ROUTER_CONFIG": str(REPO / "deploy" / "router.example.yaml"),
            "SMF_CLOUD_MODEL": "",
            "SMF_LEDGER_DIR": "",
        },
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shown = yaml.safe_load(done.stdout)
    cloud = next(b for b in shown["backends"] if b["name"] == "cloud")
    assert cloud["model"] == "gpt-4o"
    assert shown["ledger"]["path"] == "/var/lib/smf-router/ledger"


def test_an_empty_model_or_ledger_path_is_an_error_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "router.yaml"
    path.write_text(
        "backends:\n"
        "  - name: local\n    tier: local\n    base_url: http://127.0.0.1:8888/v1\n"
        "    model: ${MODEL}\n"
        "ledger:\n  path: ${LEDGER-}\n"
    )
    with pytest.raises(ConfigError) as error:
        load(path, env={"MODEL": "", "LEDGER": ""})
    assert "backends.0.model (line 5)" in str(error.value)
    assert "ledger.path (line 7)" in str(error.value)


@pytest.mark.parametrize("model", ['""', '"   "', "'\t'"])
def test_a_blank_model_name_is_refused(tmp_path: Path, model: str) -> None:
    """`model: "   "` loaded, with min_length=1 its only check: a backend asked for a
    model named by spaces (found in review)."""
    text = "backends:\n  - name: local\n    tier: local\n    base_url: http://127.0.0.1:9/v1\n"
    with pytest.raises(ConfigError, match=r"backends\.0\.model \(line 5\): is empty or only"):
        load(write(tmp_path, text + f"    model: {model}\n"), env={})


def test_a_blank_built_in_model_is_named_by_its_variable() -> None:
    with pytest.raises(ConfigError, match=r"SMF_LOCAL_MODEL \(backends\.0\.model\): is empty"):
        from_environment({"SMF_LOCAL_MODEL": "   "})


def test_built_in_variables_set_but_empty_count_as_unset() -> None:
    config = from_environment({"SMF_LOCAL_URL": "http://box:8000/v1", "SMF_CLOUD_MODEL": ""})
    assert config.backend("cloud").model == "gpt-4o-mini"
    assert config.backend("local").base_url == "http://box:8000/v1"


def test_a_bad_built_in_variable_is_named_by_config_check() -> None:
    """`SMF_LOCAL_URL=spark:8000/v1` was reported as `backends.0.base_url`, a name the user
    never wrote (found in review)."""
    env = {k: v for k, v in os.environ.items() if k != "SMF_ROUTER_CONFIG"}
    done = subprocess.run(
        [str(VENV_BIN / "smf-router"), "config", "check"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "SMF_LOCAL_URL": "spark:8000/v1"},
        check=False,
    )
    assert done.returncode == 2, done.stdout
    assert "built-in defaults: invalid configuration" in done.stderr
    assert "  SMF_LOCAL_URL (backends.0.base_url): must be an http:// or https://" in done.stderr


def test_an_error_across_built_in_variables_names_each_and_no_value() -> None:
    with pytest.raises(ConfigError) as error:
        from_environment({"SMF_LOCAL_URL": "http://box:8000/v1", "SMF_CLOUD_API_KEY_ENV": "sk-x y"})
    message = str(error.value)
    assert "  SMF_CLOUD_API_KEY_ENV (backends.1.api_key_env): must name" in message
    assert "sk-x" not in message
    both = {"SMF_CLOUD_URL": "http://u:pw@127.0.0.1:9/v1", "SMF_CLOUD_API_KEY_ENV": "KEY"}
    with pytest.raises(ConfigError) as error:
        from_environment(both)
    assert "  SMF_CLOUD_URL, SMF_CLOUD_API_KEY_ENV (backends.1): base_url: a user" in str(
        error.value
    )


def test_laguna_settings_are_laguna_s_only() -> None:
    """Another local model got Laguna's window (262144), concurrency and thinking switch: a
    configured window wins over the learned one, so a prompt too long for the real window
    was still planned to local and failed there first (found in review)."""
    laguna = from_environment({"SMF_LOCAL_URL": "http://box:8000/v1"}).backend("local")
    assert (laguna.context_window, laguna.max_concurrency) == (262144, 32)
    assert laguna.extra_body == {"chat_template_kwargs": {"enable_thinking": False}}
    other = from_environment({"SMF_LOCAL_MODEL": "qwen/small"}).backend("local")
    assert (other.context_window, other.max_concurrency, other.extra_body) == (None, None, {})


def test_a_built_in_cloud_url_with_a_user_and_password_needs_no_key_variable() -> None:
    """`SMF_CLOUD_URL=http://user:pw@host/v1` was always refused: the default
    `api_key_env: OPENAI_API_KEY` and the URL's basic auth would both be Authorization."""
    config = from_environment({"SMF_CLOUD_URL": "http://user:pw@127.0.0.1:9/v1"})
    cloud = config.backend("cloud")
    assert cloud.api_key_env is None
    assert cloud.basic_auth() == "Basic dXNlcjpwdw=="
    plain = from_environment({"SMF_CLOUD_URL": "http://127.0.0.1:9/v1"})
    assert plain.backend("cloud").api_key_env == "OPENAI_API_KEY"


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ("${A:-${B:-x}}", {}, "x"),
        ("${A:-${B:-x}}", {"B": "b"}, "b"),
        ("${A:-${B:-x}}", {"A": "a", "B": "b"}, "a"),
        ("${A:-${B}}", {"A": "a"}, "a"),  # a default not taken is not read
        ("${A-${B-x}}/v1", {"B": ""}, "/v1"),
        ("${A:-{x}}", {}, "{x}"),  # braces without `$` are text, as before
    ],
)
def test_a_default_may_use_a_variable_too(text: str, env: dict[str, str], expected: str) -> None:
    """`${A:-${B:-x}}` (as Compose and shells take it) came out as `${B:-x}` (found in review)."""
    assert interpolate(text, env) == expected


def config_with_model(tmp_path: Path, model: str) -> Path:
    path = tmp_path / "router.yaml"
    path.write_text(
        "backends:\n"
        "  - name: local\n    tier: local\n    base_url: http://127.0.0.1:8888/v1\n"
        f"    model: '{model}'\n"
        "  - name: cloud\n    tier: cloud\n    base_url: http://127.0.0.1:8889/v1\n    model: c\n"
        f"ledger:\n  path: {tmp_path}\n"
    )
    return path


@pytest.mark.parametrize(
    "model", ["${M:?set M}", "${M?x}", "${M:=x}", "${M:+x}", "${1}", "${ M }", "${M:-x"]
)
def test_a_form_not_supported_is_an_error_naming_the_field(tmp_path: Path, model: str) -> None:
    """`${VAR:?msg}` passed as the literal model `${VAR:?msg}` (found in review)."""
    with pytest.raises(ConfigError) as error:
        load(config_with_model(tmp_path, model), env={"M": "m"})
    message = str(error.value)
    assert "backends.0.model: " in message
    assert "${VAR}, ${VAR:-default} and ${VAR-default}" in message


def test_a_variable_in_a_default_is_masked_by_config_check(tmp_path: Path) -> None:
    path = config_with_model(tmp_path, "${SMF_TEST_NOPE:-${SMF_TEST_MODEL}}")
    done = subprocess.run(
        [str(VENV_BIN / "smf-router"), "config", "check", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "SMF_TEST_MODEL": "secret-model"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(done.stdout)["backends"][0]["model"] == "***"
    assert "secret-model" not in done.stdout + done.stderr


SECRET_HEADER = """backends:
  - name: local
    tier: local
    base_url: http://127.0.0.1:8888/v1
    model: m
    headers:
      X-Api-Key: "k7{dollar}{{Qz9sECRETpart!x2}}Vb"
routes: {{coding: [local], tool_calling: [local], instruction: [local], math: [local],
  reasoning: [local], prose: [local], writing: [local]}}
"""


def test_a_literal_dollar_brace_is_written_twice_and_an_error_quotes_no_secret(
    tmp_path: Path,
) -> None:
    """A password holding `${` was refused with no escape, and the error quoted up to 40
    characters of it (found in review). `$${` is a literal `${`, as in Compose."""
    path = tmp_path / "router.yaml"
    path.write_text(SECRET_HEADER.format(dollar="$$"))
    loaded = load(path, env={})
    assert loaded.backends[0].headers["X-Api-Key"] == "k7${Qz9sECRETpart!x2}Vb"
    path.write_text(SECRET_HEADER.format(dollar="$"))
    with pytest.raises(ConfigError) as error:
        load(path, env={})
    message = str(error.value)
    assert "backends.0.headers" in message
    assert "the ${ at character 3" in message
    assert "ECRET" not in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [("$$", "$$"), ("a$b", "a$b"), ("$${A}", "${A}"), ("${B:-$${}}", "${}")],
)
def test_only_a_doubled_dollar_before_a_brace_is_an_escape(text: str, expected: str) -> None:
    """Any other `$` stays text, as before `$${` meant anything."""
    assert interpolate(text, {"A": "a"}) == expected


@pytest.mark.parametrize(
    ("section", "where"),
    [
        ('aliases: {"${MYALIAS}": math}\n', "aliases"),
        ('aliases: {"$${MYALIAS}": math}\n', "aliases"),
        ("    extra_body: {'${FIELD}': 1}\n", "backends.1.extra_body"),
    ],
    ids=["variable", "escaped", "nested"],
)
def test_a_variable_in_a_key_is_refused_naming_the_mapping(
    tmp_path: Path, section: str, where: str
) -> None:
    """Keys were not interpolated: `aliases: {"${MYALIAS}": math}` made an alias named
    `${MYALIAS}`, though the README said any `${` is filled in or refused, never kept as
    text (found in review). The key is not quoted: it may be a header pasted whole."""
    if section.startswith(" "):
        text = GOOD.replace(
            "    api_key_env: CLOUD_KEY\n", "    api_key_env: CLOUD_KEY\n" + section
        )
    else:
        text = GOOD + section
    done = config_check(tmp_path, text, {"MYALIAS": "fast", "FIELD": "sk-SECRET"})
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert f"{where}: a key holds ${{, but ${{VAR}} is filled in values only" in output
    assert "MYALIAS" not in output and "SECRET" not in output and "FIELD" not in output
    readme = " ".join((REPO / "README.md").read_text().split())
    assert "a `${` in a key is an error too" in readme
