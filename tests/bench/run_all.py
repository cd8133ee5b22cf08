"""`make bench`: every benchmark in this folder, one after another, each bounded in time.

Results print to the terminal; copy the numbers with the machine and date into
docs/benchmarks.md. Each script also runs alone: `.venv/bin/python tests/bench/NAME.py`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIMIT_S = 1800


def main() -> int:
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"\n=== {script.name}", flush=True)
        try:
            done = subprocess.run(
                [sys.executable, str(script)], cwd=HERE.parents[1], timeout=LIMIT_S
            )
        except subprocess.TimeoutExpired:
            print(f"{script.name}: stopped after {LIMIT_S} s", flush=True)
            failed.append(script.name)
            continue
        if done.returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
