"""`smf-router canary run`: one canary round against every backend, results into the ledger.

For deployments where the schedule lives outside the routers (a Kubernetes CronJob runs
it once per cluster; routers without `canary.enabled` read its rounds back from the ledger,
`router.canary_follow`); a router with `canary.enabled` runs the same rounds itself.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from router.canary import Canary, load_cases
from router.canary_judge import gate_book
from router.config import ConfigError, load
from router.ledger import LedgerWriter

app = typer.Typer(help="Canary evals against every configured backend.", no_args_is_help=True)


@app.command()
def run(
    config: Annotated[Path, typer.Option("--config", "-c", help="Router config YAML")],
) -> None:
    """Run one rotating sample of every suite against every backend and record the results."""
    try:
        settings = load(config)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    book = gate_book(settings.canary)
    writer = LedgerWriter(Path(settings.ledger.path), settings.ledger.flush_interval_s)
    writer.start()
    canary = Canary(settings, load_cases(settings), book, rows=writer)

    async def once() -> None:
        try:
            await canary.run_once()
        finally:
            await canary.aclose()

    try:
        asyncio.run(once())
    finally:
        writer.close()
    for backend, run_info in canary.status().get("last_run", {}).items():
        typer.echo(f"{backend}: {run_info}")
