"""Reading a config file before its values are checked: the YAML and `${VAR}` in values.

A file that cannot be read is a config error naming the line (and column) and quoting no
line of it, which may hold a secret; anchors and merge keys work (as the YAML merge spec
says), but aliases cannot expand without bound.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from router import config_yaml
from router.config import ConfigError, load
from tests.processes import smf_router
from tests.router.config_files import GOOD, write
from tests.yaml_merge_spec import EXAMPLES


def test_env_interpolation(tmp_path: Path) -> None:
    config = load(write(tmp_path, GOOD), env={"LOCAL_MODEL": "qwen"})
    assert config.backend("local").model == "qwen"


def test_unset_variable_is_an_error_naming_it(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("gpt-4o", "${CLOUD_MODEL}"))
    with pytest.raises(ConfigError, match=r"router\.yaml.*CLOUD_MODEL"):
        load(path, env={})


def test_unset_variable_names_the_field_it_is_in(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("gpt-4o", "${CLOUD_MODEL}"))
    with pytest.raises(ConfigError, match=r"backends\.1\.model: .*CLOUD_MODEL"):
        load(path, env={})


def test_variables_are_read_in_values_not_comments(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD + "# an old box, kept for later: ${OLD_BOX_URL}\n")
    assert load(path, env={}).backend("cloud").model == "gpt-4o"


def test_a_variables_value_cannot_add_yaml_or_leak_through_an_error(tmp_path: Path) -> None:
    secret = 'gpt-4o"\nrouting: {evil: true}\n  x: "'
    config = load(
        write(tmp_path, GOOD.replace("gpt-4o", "${CLOUD_MODEL}")), {"CLOUD_MODEL": secret}
    )
    assert config.backend("cloud").model == secret  # taken as text, whatever it holds
    broken = write(tmp_path, GOOD.replace("model: gpt-4o", "model: [${CLOUD_MODEL}"))
    with pytest.raises(ConfigError) as info:
        load(broken, env={"CLOUD_MODEL": "sk-live-SECRET"})
    assert "SECRET" not in str(info.value)


def test_a_file_that_is_not_utf8_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "router.yaml"
    path.write_bytes(GOOD.encode() + b"\xff\xfe# latin-1 \xe9\n")
    with pytest.raises(ConfigError, match="UTF-8"):
        load(path, env={})


def test_invalid_yaml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="invalid YAML"):
        load(write(tmp_path, "backends: [\n"), env={})


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ("2024-13-45", 10),  # a date with month 13
        ("!!int abc", 10),
        ("!!float abc", 10),
        ("!!timestamp abc", 10),
        ("[" * 5000, 10),  # deep nesting: a RecursionError
    ],
)
def test_yaml_values_that_cannot_be_read_are_errors_with_their_line(
    tmp_path: Path, value: str, line: int
) -> None:
    """They escaped as tracebacks from `config check` and `serve`, and made a reload
    answer 500 (found in review)."""
    path = write(tmp_path, GOOD.replace("model: gpt-4o", f"model: {value}"))
    with pytest.raises(ConfigError, match=rf"(?s)invalid YAML: .*line {line}\b"):
        load(path, env={})


@pytest.mark.parametrize(
    ("broken", "where"),
    [
        ('headers: {x-secret: "sk-LIVE-1"', "line 12, column 1"),  # an unclosed mapping
        ("headers: {x-secret: sk-LIVE-1}\n    headers: {x-secret: sk-LIVE-1}", "line 12, column 5"),
        ("headers: {x-secret: !!int sk-LIVE-1}", "line 11, column 25"),
    ],
    ids=["syntax", "duplicate key", "unreadable value"],
)
def test_a_yaml_error_names_line_and_column_and_quotes_no_line(
    tmp_path: Path, broken: str, where: str
) -> None:
    """PyYAML's message quotes the lines around the problem: `config check`, the log and
    the reload answer showed the literal secret written there (found in review)."""
    path = write(tmp_path, GOOD.replace("api_key_env: CLOUD_KEY", broken))
    with pytest.raises(ConfigError, match="invalid YAML") as info:
        load(path, env={})
    assert where in str(info.value)
    assert "sk-LIVE" not in str(info.value)


def test_a_key_given_twice_is_an_error_naming_both_lines(tmp_path: Path) -> None:
    """The second one silently won."""
    path = write(tmp_path, GOOD.replace("model: gpt-4o", "model: gpt-4o\n    model: gpt-5"))
    with pytest.raises(
        ConfigError, match=r"(?s)'model' is given twice \(first on line 10\).*line 11"
    ):
        load(path, env={})


def test_aliases_that_expand_without_bound_are_refused(tmp_path: Path) -> None:
    """A 515-byte file of nested aliases is a million values once expanded: seconds to
    load and gigabytes to print with `config check` (found in review)."""
    levels = ", ".join(
        f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10) if i else '1, 2, 3, 4, 5, 6, 7, 8, 9, 0'}]"
        for i in range(6)
    )
    path = write(
        tmp_path, GOOD.replace("model: gpt-4o", "model: gpt-4o\n    extra_body: {" + levels + "}")
    )
    with pytest.raises(ConfigError, match=r"aliases .* expand to more than"):
        load(path, env={})


def test_nesting_built_from_aliases_is_refused_like_written_nesting(tmp_path: Path) -> None:
    """Each alias here holds a 90-deep list, within the reader's depth limit, but together
    they nest 990 deep: `config check` and `serve` stopped with a RecursionError
    traceback (found in review)."""
    blocks = "".join(
        f"\n      b{k}: &b{k} " + "[" * 90 + f"*b{k - 1}" + "]" * 90 for k in range(1, 12)
    )
    nest = "\n    extra_body:\n      b0: &b0 x" + blocks
    path = write(tmp_path, GOOD.replace("model: gpt-4o", "model: gpt-4o" + nest))
    with pytest.raises(ConfigError, match=r"aliases expanded, .* more than 100 levels deep"):
        load(path, env={})


def test_anchors_and_merge_keys_still_work(tmp_path: Path) -> None:
    """A merged key the mapping sets itself overrides the merged one: that is not a key
    given twice."""
    text = (
        "backends:\n"
        "  - &local\n    name: local\n    tier: local\n    base_url: http://127.0.0.1:9/v1\n"
        "    model: m\n"
        "  - <<: *local\n    name: cloud\n    tier: cloud\n"
    )
    config = load(write(tmp_path, text), env={})
    assert (config.backend("cloud").tier, config.backend("cloud").model) == ("cloud", "m")


@pytest.mark.parametrize("text", EXAMPLES.values(), ids=EXAMPLES.keys())
def test_the_merge_specs_example_gives_four_equal_maps(text: str) -> None:
    """`<<: [*BIG, *LEFT, *SMALL]` took SMALL's `radius: 1`: earlier maps win."""
    explicit, *merged = config_yaml.read(text)[4:]
    assert merged == [explicit] * 3


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # earlier mappings in the list win (it was the last)
            "x-a: &a {long key: 1}\nx-b: &b {long key: 2}\nb: {<<: [*a, *b]}\n",
            {"x-a": {"long key": 1}, "x-b": {"long key": 2}, "b": {"long key": 1}},
        ),
        (  # X's own `a: 2` wins over the `a` it merges, also where X is merged (y was 1)
            "c: &C {a: 1}\nx: &X {<<: *C, a: 2}\ny: {<<: *X}\n",
            {"c": {"a": 1}, "x": {"a": 2}, "y": {"a": 2}},
        ),
        (  # refused as "the key 'a' is given twice": y's merge had rewritten X in place
            "y: {<<: &X {<<: &C {a: 1}, a: 2}}\nz: *X\n",
            {"y": {"a": 2}, "z": {"a": 2}},
        ),
    ],
    ids=["list", "nested", "aliased-after-merge"],
)
def test_merges_follow_the_spec_whatever_python_does_with_the_key(
    text: str, expected: dict[str, Any]
) -> None:
    """PyYAML kept the first merged pair of a key by the identity of its Python string, and
    construction the last: the result hung on whether CPython reused the string."""
    assert config_yaml.read(text) == expected


def test_config_check_merges_a_backend_from_a_list_earlier_first(tmp_path: Path) -> None:
    """A backend merging `[*cloud, *local]` got local's tier, URL and model: the later
    mapping won, the spec says the earlier."""
    text = GOOD.replace("  - name: cloud", "  - &cloud\n    name: cloud").replace(
        "  - name: local", "  - &local\n    name: local"
    )
    text = text.replace("auth:", "  - <<: [*cloud, *local]\n    name: cloud-2\nauth:")
    done = smf_router("config", "check", "--config", str(write(tmp_path, text)))
    assert done.returncode == 0, done.stderr
    shown = yaml.safe_load(done.stdout)
    backend = next(b for b in shown["backends"] if b["name"] == "cloud-2")
    cloud = next(b for b in shown["backends"] if b["name"] == "cloud")
    assert backend == cloud | {"name": "cloud-2"}
    assert (backend["tier"], backend["model"]) == ("cloud", "gpt-4o")
