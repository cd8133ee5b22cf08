"""`smf-router classify`: how a prompt or a whole request body is classified, why, and the
route the router gives it, offline. `--json` prints the document `POST /v1/router/explain`
answers, made by the same code (`router.explanation`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NoReturn

import typer

if TYPE_CHECKING:
    from router.config import Config

# The command's annotations are resolved in this module's namespace: `router.cli`'s
# `ConfigOption` and `classifier.cli`'s `TextArgument`, declared again
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="YAML config file (default: $SMF_ROUTER_CONFIG)."),
]
TextArgument = Annotated[
    str | None,
    typer.Argument(
        help="The prompt; '-' or none reads it from stdin (a text starting with '-': after --)."
    ),
]
BodyOption = Annotated[
    Path | None,
    typer.Option(
        "--body",
        metavar="FILE",
        help="A whole request body (JSON), as a client sends it; '-' reads it from stdin.",
    ),
]
ApiOption = Annotated[
    Literal["chat", "messages", "responses", "completions"] | None,
    typer.Option(
        help="The API of the --body, as explain's `api` field (default: the body's own, else"
        " chat).",
    ),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print the JSON that POST /v1/router/explain answers.")
]


def classify(
    text: TextArgument = None,
    config: ConfigOption = None,
    body: BodyOption = None,
    api: ApiOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show how a prompt (TEXT, or stdin) or a request body (--body FILE) is classified,
    why, and the route the router gives it."""
    from classifier.cli import prompt_text, render, require_model

    routing = _routing(config)  # a bad --config: its one line, before any work
    limit = routing.server.max_body_bytes  # stdin and --body: the router's own limit
    if body is None:
        if api is not None:
            _fail("--api names the API of a --body FILE; TEXT is one chat message")
        _note_a_file_name(text)
        prompt = prompt_text(text, limit)
        request: dict[str, Any] = {
            "model": "auto",
            "messages": [{"role": "user", "content": prompt}],
        }
        has_text = bool(prompt.strip())
    else:
        if text is not None:
            _fail("give TEXT or --body FILE, not both")
        request = _read_body(body, limit, api)
    require_model()
    explained = explain_offline(request, routing, where=f"--body {body}" if body else "TEXT")
    if as_json:
        typer.echo(json.dumps(explained, indent=2, ensure_ascii=False))
        return
    if explained["warning"]:
        typer.echo(f"warning: {explained['warning']}", err=True)
    if body is not None:
        has_text = _read_any(explained["classifier"])
    render(explained["classifier"], has_text)
    typer.echo(route_line(explained))


def explain_offline(request: dict[str, Any], config: Config, where: str) -> dict[str, Any]:
    """The explain document of `request` (an explain body: a request, and its `api`) as a
    router with `config`, just started, answers it to a caller without a key: no backend
    seen down, full or gated, no conversation pinned, no response stored. Its gateway has
    no backend to send to. A refusal is one `error:` line naming `where` the request came
    from, and exit 2."""
    from router.auth import Caller
    from router.dispatch import Dispatcher
    from router.errors import RouterError
    from router.explanation import explain
    from router.gateway import Gateway

    gateway = Gateway(config, {}, Dispatcher({}))
    try:
        return explain(gateway, request, Caller("anonymous"), {})
    except RouterError as exc:
        _fail(f"{where}: {exc.message}")


def route_line(explained: dict[str, Any]) -> str:
    """Where the router sends the request, and why when the intent line above cannot say
    it: a label below `min_confidence` is not what decided the route (found in review),
    even when the default route has the label's name (found in re-review)."""
    intent, route = explained["intent"], explained["route"]
    reason = explained["route_reason"]  # `router.target.route_reason`'s, as explain says
    if reason == "nothing_read":
        why = " (nothing to classify: the default route)"
    elif reason == "below_min_confidence":
        below = f"confidence {intent['confidence']:.4f} is below min_confidence"
        same = ", which is also its label" if route == intent["label"] else ""
        why = f" ({below} {explained['min_confidence']}: the default route{same})"
    elif reason == "forced_route":
        why = " (the route the request names)"
    elif reason == "forced_backend":
        why = " (the backend the request names)"
    else:
        why = ""
    backends = ", ".join(step["backend"] for step in explained["backends"]) or "no backend"
    skipped = "".join(f"; skips {s['backend']} ({s['reason']})" for s in explained["skipped"])
    return f"route: {route}{why} -> {backends}{skipped}"


def _routing(path: Path | None) -> Config:
    from router.cli_config import routing_config

    return routing_config(path)


def _note_a_file_name(text: str | None) -> None:
    """A TEXT that names a file is still classified as text, but said so: `classify body.json`
    classified the 9 characters of its name (found in review)."""
    if text is None or text == "-":
        return
    try:
        named = Path(text).is_file()
    except (OSError, ValueError):  # a name too long, a NUL in it: no file
        return
    if named:
        typer.echo(
            f"note: classifying the text {text!r}; use --body FILE or `< FILE` to read a file",
            err=True,
        )


def _read_body(path: Path, limit: int, api: str | None) -> dict[str, Any]:
    """The JSON object in `path` ('-': stdin) as an explain body, `api` set in it when given.
    Too large, not JSON, not an object, unreadable: one `error:` line naming --body, exit 2."""
    from router.errors import BadRequest
    from router.request import parse_json

    where = f"--body {path}"
    try:
        if str(path) == "-":
            raw = sys.stdin.buffer.read(limit + 1) if sys.stdin is not None else b""
        else:
            with path.open("rb") as file:
                raw = file.read(limit + 1)
    except OSError as exc:
        _fail(f"{where}: cannot read it: {exc.strerror or exc}")
    if len(raw) > limit:
        _fail(f"{where}: the request body is larger than the limit of {limit} bytes")
    try:
        request = parse_json(raw)  # as the router parses a body, depth limit included
    except BadRequest as exc:
        _fail(f"{where}: {exc.message}")
    if api is not None:
        named = request.get("api", api)
        if named != api:
            _fail(f"{where}: its 'api' is {str(named)[:20]!r}, --api says {api!r}")
        request["api"] = api
    return request


def _read_any(info: dict[str, Any]) -> bool:
    """Whether the classifier found any text in the request (for "nothing to classify")."""
    read = info["read"]
    return bool(read["latest_chars"] or read["first_chars"] or read["system_chars"])


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)
