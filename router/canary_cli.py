"""`smf-router canary run`: one canary round against every backend, results into the ledger.

For deployments where the schedule lives outside the routers (a Kubernetes CronJob runs
it once per cluster; routers without `canary.enabled` read its rounds back from the ledger,
`router.canary_follow`); a router with `canary.enabled` runs the same rounds itself.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from evals.results import CaseResult
from evals.runner import Endpoint, run_cases
from router.canary import Canary, Runner, endpoint_of, load_cases
from router.canary_judge import gate_book
from router.cli_config import load_or_exit
from router.ledger import LedgerWriter

app = typer.Typer(help="Canary evals against every configured backend.", no_args_is_help=True)

MAX_DETAILS = 3  # distinct error details shown per backend, most common first
MAX_DETAIL_CHARS = 200


class ErrorDetails:
    """The canary's runner, keeping what each error said: the ledger keeps only its kind,
    and `errors: 7` alone did not say why (an unreachable backend, a refused key)."""

    def __init__(self, runner: Runner = run_cases) -> None:
        self.runner = runner
        self.seen: dict[str, Counter[str]] = {}

    async def __call__(
        self, cases: Any, endpoint: Endpoint, *args: Any, **kwargs: Any
    ) -> list[CaseResult]:
        results = await self.runner(cases, endpoint, *args, **kwargs)
        details = self.seen.setdefault(_identity(endpoint), Counter())
        for r in results:
            if r.status == "error":
                text = " ".join((r.detail or r.failure_kind or "no detail").split())
                details[text[:MAX_DETAIL_CHARS]] += 1
        return results

    def lines(self, endpoint: Endpoint) -> list[str]:
        """The most common details for one backend, one line each."""
        details = self.seen.get(_identity(endpoint), Counter())
        return [f"  {n} × {text}" for text, n in details.most_common(MAX_DETAILS)]


def _identity(endpoint: Endpoint) -> str:
    """Which backend an endpoint is: two backends may share a URL and model and differ in
    headers or body extras (thinking on and off on one vLLM), and must not share details."""
    return json.dumps(dataclasses.asdict(endpoint), sort_keys=True, default=str)


@app.command()
def run(
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", help="Router config YAML (default: $SMF_ROUTER_CONFIG)."),
    ] = None,
) -> None:
    """Run one rotating sample of every suite against every backend and record the results."""
    settings = load_or_exit(config)
    if settings is None:
        typer.echo("error: no config: give --config or set SMF_ROUTER_CONFIG", err=True)
        raise typer.Exit(2)
    book = gate_book(settings.canary)
    writer = LedgerWriter(Path(settings.ledger.path), settings.ledger.flush_interval_s)
    writer.start()
    errors = ErrorDetails()
    canary = Canary(settings, load_cases(settings), book, rows=writer, runner=errors)

    async def once() -> None:
        try:
            await canary.run_once()
        finally:
            await canary.aclose()

    try:
        asyncio.run(once())
    finally:
        writer.close()
    last = canary.status().get("last_run", {})
    for backend in settings.backends:
        if backend.name in last:
            typer.echo(f"{backend.name}: {last[backend.name]}")
            for line in errors.lines(endpoint_of(backend)):
                typer.echo(line)
