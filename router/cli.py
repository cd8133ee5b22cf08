"""The `smf-router` command line. Each command imports what it needs, so none is slow to start."""

from __future__ import annotations

import sys

if sys.argv[1:2] == ["serve"]:  # first: importing typer and the rest takes a fifth of a second
    from router import early_sighup

    early_sighup.hold()

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from router.config import Config

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)
config_app = typer.Typer(no_args_is_help=True, help="Check and print configuration.")
app.add_typer(config_app, name="config")

ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="YAML config file (default: $SMF_ROUTER_CONFIG)."),
]


def _host(text: str) -> str:
    """`--host`, never empty: `""` listened on every interface without a word."""
    from router import listen_address

    try:
        return listen_address.checked_host(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


HostOption = Annotated[str, typer.Option(callback=_host, help="Address to listen on.")]


@app.command()
def serve(
    config: ConfigOption = None,
    host: HostOption = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 4000,
) -> None:
    """Serve the router (demo mode with simulated backends when nothing is configured)."""
    from classifier.decision import ModelUnavailable
    from router.cli_config import load_config, locate
    from router.config import ConfigError
    from router.sandbox_layers import undumpable
    from router.serve import run

    undumpable()  # before any sandboxed program: they must not read this environment
    loaded, demo = load_config(config)
    try:
        run(loaded, demo, host, port, config_path=locate(config))
    except (ConfigError, ModelUnavailable) as exc:  # found while building (a bad suite, model)
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def simulate(
    ctx: typer.Context,
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free one).")
    ] = 8888,
    host: HostOption = "127.0.0.1",
    profile: Annotated[str, typer.Option(help="vllm | cloud | anthropic")] = "vllm",
) -> None:
    """Serve one simulated backend (vLLM, an OpenAI-like cloud, or Anthropic Messages).

    Further options pass to the simulator: --model, --max-model-len, --max-num-seqs,
    --max-queued, --ttft-ms, --tokens-per-s, --code-tokens-per-s, --fault NAME[:ARG],
    --seed (`python -m router.simulator --help` lists them all).
    """
    from router.simulator.__main__ import main as simulator_main

    argv = ["--port", str(port), "--host", host, "--profile", profile, *ctx.args]
    status = simulator_main(argv, prog="smf-router simulate")
    raise typer.Exit(status)


@config_app.command("check")
def config_check(config: ConfigOption = None) -> None:
    """Validate the config and print it, effective values included, secrets masked."""
    import yaml

    from router.cli_config import load_config
    from router.config_mask import masked
    from router.ledger import location

    loaded, _ = load_config(config)
    if loaded is None:  # demo mode
        typer.echo("# no config and no backend variables: `serve` would start in DEMO MODE")
        return
    check_canary_suites(loaded)
    ledger = loaded.ledger.path
    if (why := location.never_a_directory(ledger)) is not None:  # as `serve` would refuse it
        typer.echo(f"error: {why}", err=True)
        raise typer.Exit(2)
    shown = masked(loaded)
    typer.echo(yaml.safe_dump(shown, sort_keys=False, allow_unicode=True))  # "…", not "\u2026"
    for warning in loaded.warnings():
        typer.echo(f"warning: {warning}", err=True)
    # Only a warning: this check may run as another user than `serve` (or before systemd's
    # StateDirectory exists), and the permissions it reads are not the whole story.
    compacts = loaded.ledger.housekeeping
    if (unwritable := location.not_writable(ledger, compacts)) is not None:
        typer.echo(f"warning: {unwritable}", err=True)


def check_canary_suites(config: Config) -> None:
    """`canary.suites` loaded as `smf-router canary run` (the CronJob) loads them: with
    `canary.enabled: false` nothing else does, and a case without an id passed the check
    only to fail every round of the job (found in review)."""
    from router.canary import load_cases
    from router.config import ConfigError

    if config.canary.suites is None:
        return  # the shipped suites
    try:
        load_cases(config, warn=lambda warning: typer.echo(f"warning: {warning}", err=True))
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def _mount_optional() -> None:
    """Sub-commands owned by other packages, mounted when present."""
    try:
        from classifier.cli import app as classifier_app
        from router.classify_cli import classify

        app.add_typer(
            classifier_app, name="classifier", help="Train and inspect the intent classifier."
        )
        app.command()(classify)
    except ImportError:
        pass
    try:
        from router.ledger.cli import app as ledger_app
        from router.ledger.cli import report_command

        app.command("report", help="Usage, spend and offload report from the ledger.")(
            report_command
        )
        app.add_typer(ledger_app, name="ledger", help="Ledger maintenance: compaction, retention.")
    except ImportError:
        pass
    try:
        from router.eval_command import app as eval_app
    except ImportError:
        from evals.cli import app as eval_app
    app.add_typer(eval_app, name="eval", help="Run eval suites against an endpoint or backend.")
    from router.canary_cli import app as canary_app

    app.add_typer(canary_app, name="canary", help="Run canary evals once (for cron jobs).")
    try:
        from router.shadow_cli import app as shadow_app

        app.add_typer(shadow_app, name="shadow", help="Shadow evaluation reports.")
    except ImportError:
        pass


# Servers print nothing a reader needs: their stdout, closed or unread, must not stop them
# (a wrapped one did, as "cannot listen", found in re-review). Their help is printed as any
# command's is.
SERVERS = ("serve", "simulate")


def asks_help(server: str, args: list[str]) -> bool:
    """Whether a server's command line asks for help. `simulate` passes what follows its
    `--` to the simulator, whose `--help` it is then: `simulate -- --help` was its help
    unwatched, exit 0 in silence at `>/dev/full` (found in review)."""
    from evals import cli_stdout

    if server == "simulate":
        args = [arg for arg in args if arg != "--"]
    return cli_stdout.asks_help(args)


def main() -> None:
    from evals import cli_stdout
    from router import standard_fds

    _mount_optional()
    if sys.argv[1:2] and sys.argv[1] in SERVERS and not asks_help(sys.argv[1], sys.argv[2:]):
        standard_fds.occupy()
        app()
        return
    cli_stdout.run(app)


if __name__ == "__main__":  # `python -m router.cli` did nothing and exited 0
    main()
