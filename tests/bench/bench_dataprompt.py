"""What reading a data assistant's prompt costs the simulator, on the shapes that were slow.

    .venv/bin/python tests/bench/bench_dataprompt.py [--repeat 3]

`compose` (the simulated model's whole answer) on prompts of 2 KB, 200 KB and 8 MB, the text
in both the user and the system turn, each a column or a run that made the SQL-ask pattern
of `router/simulator/dataprompt.py` backtrack (found in review: a column of dates, numbers,
"1\\n" or blank lines after "Summarize the query results:", 0.35-1.2 s per text), then the
same with "sql query" in it (the cheap pre-check passes, the pattern itself runs), then the
table, provided-function and variable reads (`first_table`, `provided`, `declared`) on runs
made to make them rescan. Each row is the least wall time of `--repeat` runs, in-process.
Run it from another checkout's root to compare versions: it imports `router` from the
working directory.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import random
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from router.simulator import dataprompt
from router.simulator.answer import compose
from router.simulator.prompt import Prompt

SIZES = (2_000, 200_000, 8_000_000)
RUNS = ("1\n", "\n\n", "1. ", ". a ", ":\n", "a\n", "\n- 1. ", "!\n")
SAYS = "These functions are already provided, do not redefine them. A variable named x. "
READS = ("<table ", "<table name", "CREATE TABLE a.", "table_name=", "def f(", "'a", "1\n")


def _column(kind: str, size: int) -> str:
    rng = random.Random(1)
    start = datetime.date(2020, 1, 1)
    if kind == "dates":
        one = "\n".join(str(start + datetime.timedelta(days=i % 9000)) for i in range(9000))
    else:
        one = "\n".join(str(rng.randint(0, 99999)) for _ in range(20000))
    return (one * (size // len(one) + 1))[:size]


def _run(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _least(call: Callable[[], object], repeat: int) -> float:
    return min(timeit.repeat(call, number=1, repeat=repeat)) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    print("compose, user and system the same text; ms (least of runs)")
    print(f"{'text':34}" + "".join(f"{size:>12,}" for size in SIZES))
    shapes: list[tuple[str, Callable[[int], str]]] = [
        (f"query results: {kind}", functools.partial(_column, kind))
        for kind in ("dates", "numbers")
    ]
    shapes += [(f"query results: {unit!r}", functools.partial(_run, unit)) for unit in RUNS]
    shapes += [(f"sql query, then {unit!r}", functools.partial(_run, unit)) for unit in RUNS]
    for name, make in shapes:
        row = []
        for size in SIZES:
            lead = "Summarize the query results:\n" if name.startswith("query") else "sql query\n"
            text = lead + make(size)
            prompt = Prompt(user=text, system=text)
            row.append(_least(functools.partial(compose, prompt, random.Random(0)), repeat))
        print(f"{name:34}" + "".join(f"{ms:12.2f}" for ms in row))
    print("\nfirst_table / provided / declared of (text, text); ms at 200 KB and 8 MB")
    for unit in READS:
        row = []
        for size in SIZES[1:]:
            text = SAYS + _run(unit, size)
            for read in (dataprompt.first_table, dataprompt.provided, dataprompt.declared):
                row.append(_least(functools.partial(read, text, text), repeat))
        print(f"{unit!r:34}" + "".join(f"{ms:9.2f}" for ms in row))


if __name__ == "__main__":
    main()
