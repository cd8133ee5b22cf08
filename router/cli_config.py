"""How command-line commands find and load the config: `--config`, else $SMF_ROUTER_CONFIG."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from router.config import Config, ConfigError, load


def locate(path: Path | None) -> Path | None:
    """The config file to use: the one given, else $SMF_ROUTER_CONFIG, else none."""
    if path is not None:
        return path
    env = os.environ.get("SMF_ROUTER_CONFIG")
    return Path(env) if env else None


def load_or_exit(path: Path | None) -> Config | None:
    """The located config, or None; a broken config ends the command with its message."""
    source = locate(path)
    if source is None:
        return None
    try:
        return load(source)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def load_config(path: Path | None) -> tuple[Config | None, bool]:
    """The config to run with (None in demo mode), and whether it is demo mode. Exits with a
    clear message on errors."""
    from router import default_config

    loaded = load_or_exit(path)
    if loaded is not None:
        return loaded, False
    try:
        if default_config.is_demo(os.environ):
            return None, True
        return default_config.from_environment(), False
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def routing_config(path: Path | None) -> Config:
    """The config whose routes and classifier settings `classify` reports: the file, else
    the built-in defaults (demo mode routes the same way)."""
    from router import default_config

    loaded, _ = load_config(path)
    return loaded if loaded is not None else default_config.from_environment()
