"""`smf-router eval`: evals' CLI, plus `--backend NAME` that takes the endpoint from the config.

A backend is asked exactly as the canary asks it: its URL, model, key, headers and its own
extras (`extra_body`, e.g. thinking off for vLLM), so `eval run --backend local` reproduces
what the canary scheduler measured.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from evals import cli as eval_cli
from evals import cli_finish
from evals.endpoint import Endpoint
from evals.suite import SHIPPED, published_count
from router.canary_endpoint import endpoint_of
from router.config import ConfigError, load

app = typer.Typer(
    help="Run eval suites against an endpoint or a configured backend.", no_args_is_help=True
)
app.command("report")(eval_cli.report_command)


DEFAULT_KEY_ENV = "OPENAI_API_KEY"


def resolve(
    backend: str | None,
    config: Path | None,
    endpoint: str | None,
    model: str | None,
    key_env: str | None,
) -> Endpoint:
    """The endpoint to ask: a configured backend, or the explicit URL and model (its key in
    `key_env`, by default `DEFAULT_KEY_ENV`). A backend's URL and key are the config's: an
    `--endpoint` or `--api-key-env` beside `--backend` was dropped without a word, and the
    run asked another server than the one named (found in review)."""
    import os

    if backend is None:
        if not endpoint or not model:
            raise typer.BadParameter("give --backend NAME, or both --endpoint and --model")
        return eval_cli.endpoint_of(endpoint, model, os.environ.get(key_env or DEFAULT_KEY_ENV))
    for given, name in ((endpoint, "--endpoint"), (key_env, "--api-key-env")):
        if given is not None:
            raise typer.BadParameter(
                f"{name} goes with --endpoint, not --backend (the backend's URL and key are"
                " the config's)"
            )
    if config is None:
        raise typer.BadParameter("--backend needs --config (the router's YAML)")
    try:
        settings = load(config).backend(backend)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc)) from None
    except KeyError:
        raise typer.BadParameter(f"no backend named {backend!r} in {config}") from None
    if settings.kind != "openai" or not settings.base_url:
        raise typer.BadParameter(f"backend {backend!r} is not an OpenAI-compatible endpoint")
    found = endpoint_of(settings)
    return dataclasses.replace(found, model=model or found.model)


@app.command()
def run(
    backend: Annotated[str | None, typer.Option(help="A backend name from --config")] = None,
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="Router config YAML")
    ] = None,
    endpoint: Annotated[
        str | None, typer.Option(help="Base URL, e.g. http://spark:8888/v1")
    ] = None,
    model: Annotated[str | None, typer.Option(help="Model name to send")] = None,
    suites: Annotated[Path, typer.Option(help="Suite file or directory")] = SHIPPED,
    profile: Annotated[str | None, typer.Option(help="Published profile, e.g. strict_v01")] = None,
    thinking: Annotated[
        str | None, typer.Option(help="off | on | omit (default: omit with --backend, else off)")
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=256)] = 8,
    timeout: Annotated[float, typer.Option(help="Seconds per request")] = 300.0,
    api_key_env: Annotated[
        str | None,
        typer.Option(
            help=f"Env var holding the API key of --endpoint (default: {DEFAULT_KEY_ENV})",
            show_default=False,
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Write results JSON here")] = None,
    compare: Annotated[Path | None, typer.Option(help="Older results JSON to diff")] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar (on stderr)")] = True,
    context_window: Annotated[
        int | None, typer.Option(min=1, help=eval_cli.CONTEXT_WINDOW_HELP)
    ] = None,
) -> None:
    """Run suites against an endpoint or backend; print the report; optionally save/compare."""
    mode = thinking or ("omit" if backend else "off")
    if mode not in eval_cli.THINKING:
        raise typer.BadParameter(f"--thinking must be one of {sorted(eval_cli.THINKING)}")
    target = resolve(backend, config, endpoint, model, api_key_env)
    timeout = eval_cli.request_timeout(timeout)
    console = Console()
    cases = eval_cli.select_cases(suites, profile)
    old = eval_cli.check_outputs(out, compare)
    if profile and len(cases) != published_count(profile):
        eval_cli.before_run(
            console,
            f"note: {len(cases)} cases, the published {profile} has {published_count(profile)}",
        )
    options: dict[str, Any] = dict(
        concurrency=concurrency, timeout_s=timeout, thinking=mode, profile=profile, backend=backend
    )
    doc = eval_cli.measure(console, cases, target, progress, context_window, out=out, **options)
    cli_finish.finish(console, doc, out, old)
