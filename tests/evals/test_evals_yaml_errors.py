"""A suite file's YAML error says what is wrong and on which line, quoting none of the file.

Suites hold prompts, which no log may hold unless a switch says so, and PyYAML's message
quoted a tag, an alias, an anchor or the character it stopped at: a piece of a prompt
written unquoted (`prompt: !important ...`, `prompt: *bold`) went into the message,
which the canary's load error carries into `config check`, the log of a refused reload and
its 400 answer (found in review). Said as the config's YAML errors are (`evals.yaml_errors`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evals.suite import SuiteError, load
from tests.router.config_files import GOOD
from tests.router.env_config_check import config_check

CASE = "- id: a\n  evaluator: text_match\n  expected: x\n"  # the prompt goes on line 4


@pytest.mark.parametrize(
    ("prompt", "said"),
    [
        ("!PROMPTimportant say hi", r"line 4: an unknown tag \(YAML reads a value that starts"),
        ("*PROMPTbold", r"line 4: an undefined alias \(YAML reads a value that starts"),
        ("&PROMPTa x\n  reference: &PROMPTa y", r"line 5: second occurrence \(an anchor given"),
        ('"say \\qPROMPT"', r"line 4: an unknown escape: in double quotes a backslash starts"),
        ('"say PROMPT\x07"', r"line 4: a character YAML does not allow \(such as a control"),
        ("@PROMPT say hi", r"line 4: a character that cannot start anything"),
        ("x\n  '!PROMPT': 1\n  '!PROMPT': 2", r"line 6: a key is given twice \(first on line 5\)"),
    ],
    ids=["tag", "alias", "anchor-twice", "escape", "control-character", "character", "key"],
)
def test_a_suites_yaml_error_quotes_nothing_of_the_file(
    tmp_path: Path, prompt: str, said: str
) -> None:
    (tmp_path / "bad.yaml").write_text(f"{CASE}  prompt: {prompt}\n")
    with pytest.raises(SuiteError) as caught:
        load(tmp_path)
    message = str(caught.value)
    assert re.match(rf"^{tmp_path}/bad\.yaml: {said}", message), message
    assert "PROMPT" not in message and "\n" not in message
    assert "<unicode string>" not in message and "#x0007" not in message


def test_config_check_says_a_canary_suites_yaml_error_without_its_prompt(
    tmp_path: Path,
) -> None:
    """The canary's suites are loaded by `config check`, `serve` and a reload, whose error
    reaches their output, the log and the reload's 400 answer."""
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "bad.yaml").write_text(f"{CASE}  prompt: !PROMPTimportant say hi\n")
    done = config_check(tmp_path, GOOD + f"canary:\n  suites: {suites}\n", {})
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert f"canary.suites: {suites}/bad.yaml: line 4: an unknown tag" in output
    assert "PROMPT" not in output and "Traceback" not in output
