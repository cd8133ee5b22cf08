"""Generate the Grafana dashboards for smf-router as plain JSON files.

Each dashboard is built by the module named for it (`overview.py`, `latency.py`,
`reliability.py`, `quality.py`, `cost.py`, from the pieces in `panels.py`); this script
writes them to `dashboards/` or checks the files there. Run `python grafana/generate.py`
after changing a panel, and commit the JSON it writes; `--check` exits 1 when the files on
disk differ from what this script would write. Every query is evaluated against a real
Prometheus scraping a real router in tests/observability/test_dashboards_prometheus.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cost
import latency
import overview
import quality
import reliability

OUT = Path(__file__).resolve().parent / "dashboards"

DASHBOARDS = {
    "overview": overview.build,
    "latency": latency.build,
    "reliability": reliability.build,
    "quality": quality.build,
    "cost": cost.build,
}


def render() -> dict[str, str]:
    """File name -> JSON text for every dashboard."""
    return {
        f"smf-{name}.json": json.dumps(build(), indent=2, ensure_ascii=False) + "\n"
        for name, build in DASHBOARDS.items()
    }


def main(argv: list[str]) -> int:
    files = render()
    if "--check" in argv:
        stale = [n for n, text in files.items() if _read(OUT / n) != text]
        for name in stale:
            print(f"grafana/dashboards/{name} is stale: run python grafana/generate.py")
        return 1 if stale else 0
    OUT.mkdir(exist_ok=True)
    for name, text in files.items():
        (OUT / name).write_text(text)
    print(f"wrote {len(files)} dashboards to {OUT}")
    return 0


def _read(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
