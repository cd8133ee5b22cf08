"""Config errors say the user's mistake in the user's terms: no pydantic wording, the line of
the entry at fault, what an empty file or left-out routes mean."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.config import ConfigError, load
from tests.router.config_files import GOOD, config_check, write


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (GOOD.replace("https://api.example.com/v1", "spark:8000/v1"), "backends.1.base_url"),
        (GOOD + "server: {allowed_hosts: ['http://x:80']}\n", "server.allowed_hosts"),
        (GOOD + "server: {allowed_origins: [x]}\n", "server.allowed_origins"),
        (GOOD + "ledger: {retention_days: yes}\n", "ledger.retention_days"),
    ],
)
def test_a_refused_value_is_said_without_pydantics_value_error_prefix(
    tmp_path: Path, text: str, field: str
) -> None:
    """Found in review: "base_url (line 9): Value error, must be an http:// ..."."""
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, text), env={})
    message = str(info.value)
    assert f"  {field} (line " in message
    assert "Value error" not in message


def test_a_backend_name_given_twice_points_at_the_second_entry(tmp_path: Path) -> None:
    """It said `backends (line 2): duplicate name(s) ['local']` (found in review)."""
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, GOOD.replace("name: cloud", "name: local")), env={})
    assert "backends.1.name (line 7): 'local' is also the name of backends.0" in str(info.value)


@pytest.mark.parametrize("text", ["", "# nothing yet\n", "null\n", "~\n", "---\n"])
def test_a_config_file_without_settings_says_so(tmp_path: Path, text: str) -> None:
    """It said "the top level must be a mapping" (found in review), then "the file is empty"
    of a file holding `null`, `~` or `---` too."""
    with pytest.raises(ConfigError, match=r"router\.yaml: the file holds no settings; .*backends:"):
        load(write(tmp_path, text), env={})


def test_left_out_routes_say_the_defaults_name_local_and_cloud(tmp_path: Path) -> None:
    """One vLLM box named `spark` and no `routes:` got `routes.coding: unknown backend
    'cloud'`, of a section the file does not have (found in review)."""
    text = "backends:\n  - name: spark\n    tier: local\n    base_url: http://127.0.0.1:9/v1\n"
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, text + "    model: m\n"), env={})
    message = str(info.value)
    assert "routes: not given, so the default routes apply" in message
    assert "name the backends 'local' and 'cloud' (there is no backend 'local' or 'cloud')" in (
        message
    )
    assert "add a routes: section" in message and "coding, tool_calling" in message
    given = text + "    model: m\nroutes: {coding: [cloud]}\n"  # written: said of its line
    with pytest.raises(ConfigError, match=r"routes\.coding \(line 6\): unknown backend 'cloud'"):
        load(write(tmp_path, given), env={})


@pytest.mark.parametrize(
    ("local", "missing"), [("spark", "'local' or 'cloud'"), ("local", "'cloud'")]
)
def test_left_out_routes_name_each_default_backend_missing(
    tmp_path: Path, local: str, missing: str
) -> None:
    """Backends `spark` and `remote` were told "(there is no backend 'local')" alone, and
    the user who renamed spark met the same error for 'cloud' next (found in review)."""
    text = GOOD.replace("name: local", f"name: {local}").replace("name: cloud", "name: remote")
    with pytest.raises(ConfigError, match=rf"\(there is no backend {missing}\); add a routes:"):
        load(write(tmp_path, text), env={})


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (
            "https://api.example.com/v1",
            "https://u:pw@api.example.com/v1",
            "backends.1.base_url (line 9): a user and password in it and api_key_env",
        ),
        (
            "/v1\n    model: gpt-4o",
            "/v1?v=1\n    model: gpt-4o\n    kind: litellm",
            "backends.1.base_url (line 9): a `kind: litellm` backend cannot send a query",
        ),
        (  # not in the file: said of the backend, whose line is there
            "    base_url: https://api.example.com/v1\n",
            "",
            "backends.1 (line 7): base_url: a `kind: openai` backend needs one",
        ),
    ],
)
def test_a_backends_own_check_is_said_at_the_field_it_names(
    tmp_path: Path, old: str, new: str, said: str
) -> None:
    """A check of the whole backend names its field in its message, and was said of the
    backend: `backends.1 (line 7): base_url: ...`, two lines above the URL (found in
    review)."""
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, GOOD.replace(old, new)), env={"CLOUD_KEY": "k"})
    assert f"  {said}" in str(info.value)


def test_a_backend_with_no_apis_is_refused(tmp_path: Path) -> None:
    """`apis: []` loaded: a backend no request of any API could reach (found in review)."""
    text = GOOD.replace("model: gpt-4o", "model: gpt-4o\n    apis: []")
    with pytest.raises(ConfigError, match=r"backends\.1\.apis \(line 11\): .*at least one API"):
        load(write(tmp_path, text), env={})


def test_an_api_key_under_a_backend_says_to_name_its_variable(tmp_path: Path) -> None:
    """`api_key: sk-...` (what other gateways take) got only "Extra inputs are not
    permitted" (found in review): the hint names api_key_env, and never the value."""
    text = GOOD.replace("api_key_env: CLOUD_KEY", "api_key: sk-proj-SECRET999")
    done = config_check(write(tmp_path, text))
    assert done.returncode == 2, done.stderr
    assert (
        "backends.1.api_key (line 11): Extra inputs are not permitted; use api_key_env: the "
        "NAME of the environment variable that holds the key"
    ) in done.stderr
    assert "SECRET" not in done.stdout + done.stderr
    other = config_check(write(tmp_path, GOOD.replace("model: gpt-4o", "modle: gpt-4o")))
    assert "use api_key_env" not in other.stderr  # a hint for that key only
