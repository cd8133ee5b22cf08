"""What the commands print for a terminal or stdout unlike the usual: one that is not UTF-8
(`PYTHONIOENCODING=ascii`, a Latin-1 locale), and a TTY with NO_COLOR set."""

from __future__ import annotations

import html
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from router.ledger import LedgerWriter
from router.record import Record
from tests.harness import VENV_BIN
from tests.processes import on_terminal

SMF_ROUTER = str(VENV_BIN / "smf-router")
ENCODINGS = pytest.mark.parametrize("encoding", ["ascii", "latin-1"])


def run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("SMF_", "PYTHONIO"))}
    return subprocess.run(
        argv,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        env=kept | env,
        check=False,
    )


def ledger_of_one(directory: Path, callers: tuple[str, ...] = ("José",)) -> Path:
    """A request of each key, named in Unicode, served with a latency to report."""
    writer = LedgerWriter(directory, process_tag="t")
    now = time.time() - 3600
    for n, caller in enumerate(callers):
        writer.submit(
            Record(
                f"r{n}", now, caller=caller, backend="local", tier="local", ttft_s=0.1, duration_s=1
            )
        )
    writer.flush()
    writer.close()
    return directory


@ENCODINGS
def test_report_on_a_stdout_that_is_not_utf8_draws_its_table_in_ascii(
    tmp_path: Path, encoding: str
) -> None:
    """The table's box drawing, `·` and `→` ended `report` in a UnicodeEncodeError (found
    in review): it draws in ASCII, and a character the stdout cannot hold is a `?`."""
    ledger = ledger_of_one(tmp_path / "ledger")
    argv = [SMF_ROUTER, "report", "--ledger", str(ledger), "--by", "caller"]
    done = run(argv, {"PYTHONIOENCODING": encoding})
    assert done.returncode == 0, done.stderr.decode()
    text = done.stdout.decode(encoding)
    assert "+-----" in text and "| TOTAL " in text
    assert ("| Jos? " if encoding == "ascii" else "| José ") in text
    assert "local: TTFT p50 " in text and " | total p50 " in text


@ENCODINGS
def test_a_wide_character_keeps_the_ascii_table_aligned(tmp_path: Path, encoding: str) -> None:
    """ "日本" was laid out in the four cells of two wide characters, then written as two
    `?`: each row after it two columns short of the borders (found in re-review)."""
    ledger = ledger_of_one(tmp_path / "ledger", callers=("José", "日本"))
    argv = [SMF_ROUTER, "report", "--ledger", str(ledger), "--by", "caller"]
    done = run(argv, {"PYTHONIOENCODING": encoding})
    assert done.returncode == 0, done.stderr.decode()
    rows = [line for line in done.stdout.decode(encoding).splitlines() if line[:1] in "|+"]
    assert "| ?? " in "\n".join(rows)
    assert len(rows) == 8 and len({len(row) for row in rows}) == 1, rows


@ENCODINGS
def test_an_html_report_on_a_stdout_that_is_not_utf8_is_utf8(tmp_path: Path, encoding: str) -> None:
    """`<meta charset=utf-8>` over the stdout's own bytes, "José" as Latin-1's E9 (and a
    `?` for each character it could not hold): no valid page (found in re-review). Other
    characters than ASCII are character references, right in every encoding."""
    ledger = ledger_of_one(tmp_path / "ledger", callers=("José", "日本"))
    argv = [SMF_ROUTER, "report", "--ledger", str(ledger), "--by", "caller", "--format", "html"]
    done = run(argv, {"PYTHONIOENCODING": encoding})
    assert done.returncode == 0, done.stderr.decode()
    page = done.stdout.decode("ascii")
    assert "<meta charset=utf-8>" in page
    assert "<td>José</td>" in html.unescape(page) and "<td>日本</td>" in html.unescape(page)


def test_other_commands_print_what_a_stdout_that_is_not_utf8_cannot_hold_as_a_question_mark(
    tmp_path: Path,
) -> None:
    """`ledger compact`'s summary (`→`) died the same way under a Latin-1 stdout; so did
    anything printed through one that could not hold it (found in review). (click writes
    UTF-8 to an ASCII stdout itself, taking it for a misconfigured one.)"""
    LedgerWriter(tmp_path).close()  # an empty ledger, as a new router leaves it
    done = run(
        [SMF_ROUTER, "ledger", "compact", "--ledger", str(tmp_path)],
        {"PYTHONIOENCODING": "latin-1"},
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode("latin-1").startswith("compacted 0 day(s): 0 files ? 0;")


def test_report_on_a_narrow_terminal_folds_a_long_key_and_cuts_no_number(
    tmp_path: Path,
) -> None:
    """Laid out in 140 columns whatever the terminal, the report cut a long key to
    `platform…` and dollar cells to `…` (found in a new user's review). On a terminal it
    takes the terminal's width: a key too long for it folds onto a second line, and the
    numbers stay whole (wider than the terminal if they must: it wraps, nothing is lost)."""
    writer = LedgerWriter(tmp_path / "ledger", process_tag="t")
    for n, (caller, cost) in enumerate([("platform-team-ci-runner-eu-west-1", 3.17e-6), ("b", 1)]):
        writer.submit(
            Record(f"r{n}", time.time() - 3600, caller=caller, backend="local", tier="local",
                   cost_usd=cost, counterfactual_usd=1_234_567.0)
        )  # fmt: skip
    writer.close()
    argv = [SMF_ROUTER, "report", "--ledger", str(tmp_path / "ledger"), "--by", "caller"]
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("SMF_", "COLUMNS"))}
    for columns in (100, 200):
        status, output = on_terminal(argv, kept | {"NO_COLOR": "1"}, columns=columns)
        text = re.sub(r"\x1b\[[0-9;]*m", "", output.decode()).replace("\r\n", "\n")
        assert status == 0, text
        assert "…" not in text
        rows = [line.split("│") for line in text.splitlines() if line.startswith("│")]
        keys = [row[1].strip() for row in rows]
        runner = ["platform-team-ci-runner-", "eu-west-1"]  # folded at 100 columns
        assert keys == ["b", *(runner if columns == 100 else ["".join(runner)]), "TOTAL"]
        assert [c.strip() for c in rows[keys.index("b")][6:10]] == [
            "$0", "$1.00", "$1,234,567.00", "$1,234,566.00"
        ]  # fmt: skip
        assert "$0.0000032" in text and "$2,469,134.00" in text  # the runner's, the total's
        widths = {len(line) for line in text.splitlines() if line.startswith(("┏", "│", "└"))}
        assert len(widths) == 1, widths  # one table, every line as wide
        assert columns == 100 or widths.pop() <= columns  # it fits in a wide enough terminal


# An SGR parameter that sets a colour: 30-39 and 40-49 (38/48 start 256-colour and RGB ones),
# 90-97 and 100-107 (bright). 1 (bold), 2 (dim), 0 (reset) are styles, not colours.
COLOUR = re.compile(r"^(3[0-9]|4[0-9]|9[0-7]|10[0-7])$")
SGR = re.compile(rb"\x1b\[([0-9;]*)m")


def on_a_tty(argv: list[str], env: dict[str, str]) -> set[str]:
    """The SGR parameters `argv` writes to a pseudo-terminal (stdout and stderr)."""
    kept = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    _, output = on_terminal(argv, kept | {"TERM": "xterm-256color", "COLUMNS": "100"} | env)
    return {p.decode() for m in SGR.finditer(output) for p in m.group(1).split(b";") if p}


@pytest.mark.parametrize("args", [["--help"], ["report", "--bogus"]], ids=["help", "usage-error"])
def test_no_color_on_a_tty_leaves_no_colour_but_keeps_bold(args: list[str]) -> None:
    """NO_COLOR prevents colour, not emphasis: no-color.org's FAQ says it does not disable
    bold, underline or italic, which rich and so the help and error panels keep (reviewed:
    the decision, documented in the README). Without it the same output is coloured."""
    coloured = on_a_tty([SMF_ROUTER, *args], {})
    plain = on_a_tty([SMF_ROUTER, *args], {"NO_COLOR": "1"})
    assert any(COLOUR.match(p) for p in coloured), coloured
    assert not any(COLOUR.match(p) for p in plain), plain
    assert "1" in plain  # bold stays
