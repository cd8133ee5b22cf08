"""`config check` and config errors never show a secret, and masking one never fails."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
import yaml

from evals import yaml_errors
from evals.urls import masked_url
from router.config import ConfigError, load
from tests.router.env_config_check import config_check

CLOUD = """  - name: cloud
    tier: cloud
    base_url: https://api.example.com/v1
    model: gpt-4o
"""


def backends(local_url: str) -> str:
    """A config whose local backend has `local_url` (quoted: it may hold `#` or `${}`)."""
    local = f"  - name: local\n    tier: local\n    base_url: '{local_url}'\n    model: m\n"
    return "backends:\n" + local + CLOUD


def test_config_check_masks_secrets_that_came_through_variables_or_sit_in_urls(
    tmp_path: Path,
) -> None:
    """`config check` masked `headers` only: a password in a URL, a token in `extra_body`
    or a `metrics_url` query, filled in from `${VAR}`, was printed (found in review)."""
    text = (
        "backends:\n"
        "  - name: local\n    tier: local\n"
        "    base_url: http://box:written-in-file@127.0.0.1:8888/v1\n"
        "    model: ${LOCAL_MODEL:-laguna}\n"
        "  - name: cloud\n    tier: cloud\n    model: gpt-4o\n"
        "    base_url: https://proxy-user:${PW}@gateway.example/v1?key=${PW}&team=${TEAM:-core}\n"
        "    extra_body: {user_token: '${PW}'}\n"
        "    metrics_url: https://gateway.example/metrics?token=${PW}\n"
    )
    done = config_check(tmp_path, text, {"PW": "pw-SECRET"})
    assert done.returncode == 0, done.stderr
    assert "SECRET" not in done.stdout and "written-in-file" not in done.stdout
    shown = yaml.safe_load(done.stdout)
    cloud, local = shown["backends"][1], shown["backends"][0]
    assert cloud["base_url"] == "https://***@gateway.example/v1?key=***&team=***"
    assert cloud["extra_body"] == {"user_token": "***"}
    assert cloud["metrics_url"] == "https://gateway.example/metrics?token=***"
    assert local["base_url"] == "http://***@127.0.0.1:8888/v1"
    assert local["model"] == "laguna"  # a default as written: not from a variable


def test_config_check_shows_a_url_its_masking_leaves_unparseable_as_stars(
    tmp_path: Path,
) -> None:
    """`http://[${HOST}]:8000/v1` with HOST=::1 is a valid URL, but with `***` in place of
    the variable it is not one, and `config check` stopped with a traceback (found in
    review)."""
    done = config_check(tmp_path, backends("http://[${V6HOST}]:8000/v1"), {"V6HOST": "::1"})
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(done.stdout)["backends"][0]["base_url"] == "***"


@pytest.mark.parametrize(
    ("url", "env"),
    [
        ("http://user:${PW}@host:8000/v1", {"PW": "s3cr/et"}),  # `/` ends the host part early
        ("http://user:s3cr#et@host:8000/v1", {}),  # and so does `#`
    ],
)
def test_a_url_error_does_not_quote_the_password_in_it(
    tmp_path: Path, url: str, env: dict[str, str]
) -> None:
    """The parser's message (`Port could not be cast to integer value as 's3cr'`) was
    repeated in the error: part of the password (found in review)."""
    path = tmp_path / "router.yaml"
    path.write_text(backends(url))
    with pytest.raises(ConfigError, match=r"backends\.0\.base_url .*not a URL") as error:
        load(path, env=env)
    assert "s3cr" not in str(error.value)


@pytest.mark.parametrize(
    ("url", "env"),
    [
        ("http://user:1234#TopSecret@127.0.0.1/v1", {}),  # read as host `user`, port 1234
        ("http://user:${PW}@127.0.0.1:8000/v1", {"PW": "1234/TopSecret"}),
        ("http://user:1234?TopSecret@127.0.0.1/v1?api-version=1", {}),
    ],
)
def test_a_password_cut_short_by_an_unencoded_character_is_refused_unshown(
    tmp_path: Path, url: str, env: dict[str, str]
) -> None:
    """A password whose unencoded `# / ?` follows a part that reads as a port passed the
    check (host `user`, port 1234), and `config check` printed all after it, as a fragment
    or a path (found in re-review). An `@` after the host part is refused; nothing of the
    password is shown, and a URL masked for showing (a tracing or judge endpoint, not
    checked) hides it too."""
    done = config_check(tmp_path, backends(url), env)
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "backends.0.base_url" in output and "an @ after the host part" in output
    assert "TopSecret" not in output and "1234" not in output and "Traceback" not in output
    shown = masked_url(url.replace("${PW}", env.get("PW", "")))
    assert "TopSecret" not in shown and "1234" not in shown
    assert shown == "http://***"


def test_config_check_prints_key_digests_as_text(tmp_path: Path) -> None:
    """The shortened digest printed as `"2d711642\\u2026"`, the YAML dumper's escape for
    its ellipsis (found in review)."""
    digest = hashlib.sha256(b"sk-alice").hexdigest()
    text = (
        backends("http://127.0.0.1:8888/v1")
        + f"auth:\n  keys:\n    - {{name: a, sha256: {digest}}}\n"
    )
    done = config_check(tmp_path, text, {})
    assert done.returncode == 0, done.stderr
    assert f"sha256: {digest[:8]}…\n" in done.stdout and "\\u" not in done.stdout


CLOUD_WITH_HEADER = backends("http://127.0.0.1:8888/v1") + "    headers: {{x-key: {value}}}\n"


@pytest.mark.parametrize(
    ("value", "tag"),
    [
        ("!!bool sk-LIVE-Secret9", "bool"),  # a KeyError quoting the value, lower-cased
        ('!!int ""', "int"),  # an IndexError
        ("!!float sk-LIVE-Secret9", "float"),  # a ValueError quoting it lower-cased
        ("!!int sk_LIVE_Secret9", "int"),  # ... without its underscores
        ("!!int -sk-LIVE-Secret9", "int"),  # ... without its sign
        ("!!int 0xsk-LIVE-Secret9", "int"),  # ... without its 0x
    ],
)
def test_config_check_names_an_unreadable_value_by_its_tag_never_quoting_it(
    tmp_path: Path, value: str, tag: str
) -> None:
    """The reason PyYAML gives quotes the value, often altered first, so a test of the
    text missed it, and errors other than ValueError and TypeError escaped as a traceback
    holding the secret (found in review)."""
    done = config_check(tmp_path, CLOUD_WITH_HEADER.format(value=value), {})
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    expected = f"cannot read this value as tag:yaml.org,2002:{tag} (line 10, column 22)"
    assert expected in done.stderr
    assert "secret9" not in done.stderr.lower() and "Traceback" not in done.stderr


@pytest.mark.parametrize("value", ["sk-proj-AbC123secretKEY", "", "1KEY"])
def test_a_key_pasted_into_api_key_env_is_refused_without_quoting_it(
    tmp_path: Path, value: str
) -> None:
    """A key in place of the variable's name passed, and was quoted by `config check`'s
    warning, the log at `serve` and the 401 hint sent to clients (found in review)."""
    text = backends("http://127.0.0.1:8000/v1") + f"    api_key_env: '{value}'\n"
    done = config_check(tmp_path, text, {})
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "backends.1.api_key_env" in output and "not the key" in output
    assert "Traceback" not in output
    if value:
        assert value not in output


PASTED_HEADER = "Authorization: Bearer sk-proj-SECRETSECRET"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("x", "a header name is not an HTTP header name"),
        ("5", "Input should be a valid string"),
        ("'${X:?}'", "the ${ at character 1"),
    ],
    ids=["invalid-name", "not-a-string", "bad-interpolation"],
)
def test_a_header_pasted_as_a_header_name_is_never_quoted(
    tmp_path: Path, value: str, said: str
) -> None:
    """A whole `Authorization: Bearer sk-...` line as a `headers` key was quoted by the name
    check, and header names were part of the printed field paths (found in review)."""
    text = (
        backends("http://127.0.0.1:8000/v1") + f"    headers:\n      '{PASTED_HEADER}': {value}\n"
    )
    done = config_check(tmp_path, text, {})
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "backends.1.headers" in output and said in output
    assert "SECRET" not in output and "Traceback" not in output


def test_config_check_masks_a_variable_under_an_int_key_of_extra_body(tmp_path: Path) -> None:
    """extra_body's keys are JSON's strings in the dump, so the place of a `${VAR}` under an
    int key (`{1: ...}` in YAML) was not found and its value printed (found in re-review)."""
    text = backends("http://127.0.0.1:8888/v1") + "    extra_body: {vendor: {1: '${TOK}'}}\n"
    done = config_check(tmp_path, text, {"TOK": "sk-SECRET123"})
    assert done.returncode == 0, done.stderr
    assert "SECRET" not in done.stdout
    assert yaml.safe_load(done.stdout)["backends"][1]["extra_body"] == {"vendor": {"1": "***"}}


HEADERS_BLOCK = backends("http://127.0.0.1:8888/v1") + "    headers:\n"  # its entries: line 11


@pytest.mark.parametrize(
    ("entries", "said"),
    [
        ("X-Api-Key: !Pa55wordSECRET", "an unknown tag (YAML reads a value that starts with !"),
        ("X-A: &SECRETanchor v\n      X-B: *SECRETanchor2", "an undefined alias (YAML reads"),
        ("X-A: &SECRETa v\n      X-B: &SECRETa w", "an anchor given twice, first (line 11"),
        (
            '"Authorization: Bearer sk-SECRETdup": a\n'
            '      "Authorization: Bearer sk-SECRETdup": b',
            "a key is given twice (first on line 11) (line 12, column 7)",
        ),
        ("X-A: !SECRET!x v", "an undefined or repeated tag handle (line 11"),
        ('X-A: "sk-\\QSECRET"', "an unknown escape: in double quotes a backslash starts one"),
        ('X-A: "sk-\\xZQSECRET"', "hexadecimal numbers, but found another character (line 11"),
        ("X-A: &SECRET$ v", "alphabetic or numeric character, but found another character"),
        ("X-A: !x%ZQSECRET v", "hexadecimal numbers, but found another character (line 11"),
        (
            'X-A: "SECRET\x07"',
            "a character YAML does not allow (such as a control character but tab",
        ),
    ],
    ids=[
        "tag",
        "alias",
        "anchor-twice",
        "key-twice",
        "tag-handle",
        "escape",
        "hex-escape",
        "anchor-character",
        "uri-escape",
        "control-character",
    ],
)
def test_a_yaml_error_quotes_nothing_of_the_file_in_its_message(
    tmp_path: Path, entries: str, said: str
) -> None:
    """PyYAML's quoted lines were left out, but its message itself quoted a tag, an alias,
    an anchor, a key given twice (a header pasted whole as its name) or the character it
    stopped at: a password starting with `!` or `*` was printed by `config check`, the log
    of a refused reload and its 400 answer (found in review). Line and column stay."""
    done = config_check(tmp_path, HEADERS_BLOCK + f"      {entries}\n", {})
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert "invalid YAML: " in done.stderr and said in done.stderr
    assert "SECRET" not in done.stderr and "Traceback" not in done.stderr
    assert not re.search(r"'[QZ$]'|#x0007", done.stderr), done.stderr  # a character of it


def test_a_yaml_message_not_known_to_quote_nothing_is_cut_at_its_first_quote() -> None:
    """A message a later PyYAML may add with the input in it: cut, never passed on."""
    mark = yaml.Mark("<config>", 0, 4, 2, None, 0)
    unknown = yaml.MarkedYAMLError("while reading", None, "found strange 'sk-SECRET' here", mark)
    assert yaml_errors.problem(unknown) == (
        "while reading: found strange (the rest is not shown: it would quote the file)"
        " (line 5, column 3)"
    )
    literal = yaml.MarkedYAMLError(None, None, "could not find expected ':'", mark)
    assert yaml_errors.problem(literal) == "could not find expected ':' (line 5, column 3)"
