"""What `smf-router serve` imports before it is ready: heavy libraries wait until needed."""

from __future__ import annotations

import subprocess
import sys

# PyArrow loads with the ledger's first flush; DuckDB with the first report; litellm only for a
# litellm backend.
DEFERRED = ("pyarrow", "duckdb", "litellm")


def test_the_serve_path_imports_no_deferred_library() -> None:
    code = (
        "import sys\n"
        "import router.cli, router.serve\n"
        "from router.app import create_app\n"
        "from router.default_config import demo\n"
        "create_app(demo('http://127.0.0.1:1/v1', 'http://127.0.0.1:2/v1'))\n"
        f"print(','.join(m for m in {DEFERRED!r} if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == ""
