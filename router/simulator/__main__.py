"""`python -m router.simulator --profile vllm --port P`: one simulated backend on its own."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from router import heap, listen_address, standard_fds
from router.simulator.faults import FaultError
from router.simulator.faults import parse as parse_fault
from router.simulator.runner import new_loop, serve
from router.simulator.settings import PROFILES, SimSettings


def port_number(text: str) -> int:
    """A TCP port, 0 (any free one, printed once listening) to 65535: a larger number
    used to wrap around silently (69553 listened on 4017)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not in 0..65535")
    return port


def fault_spec(text: str) -> str:
    """A `NAME[:ARG]` fault, checked now: a bad one used to surface as a traceback."""
    try:
        parse_fault(text)
    except FaultError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def host_name(text: str) -> str:
    """`--host`, never empty (`router.listen_address.checked_host`)."""
    try:
        return listen_address.checked_host(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


PROG = "python -m router.simulator"


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The simulator's options, its usage line naming the command it was started as. No
    abbreviations (`--he` was `--help`): `cli_stdout.asks_help` must see what asks for help,
    and one it missed was exit 0 in silence at `>/dev/full` (found in review)."""
    p = argparse.ArgumentParser(prog=prog, description=__doc__, allow_abbrev=False)
    p.add_argument("--profile", choices=PROFILES, default="vllm")
    p.add_argument("--host", type=host_name, default="127.0.0.1")
    p.add_argument("--port", type=port_number, default=8888)
    p.add_argument("--model", default=None, help="served model name (echoed in responses)")
    p.add_argument("--max-model-len", type=int, default=None)
    p.add_argument(
        "--max-output-tokens",
        type=int,
        default=None,
        help="the cloud profile's cap on a chat request's max_tokens (gpt-4o's: 16384)",
    )
    p.add_argument("--max-num-seqs", type=int, default=32)
    p.add_argument(
        "--max-queued",
        type=int,
        default=None,
        help="waiting requests before a 503 (vLLM's --max-num-queued-reqs minus max-num-seqs)",
    )
    p.add_argument("--ttft-ms", type=float, default=0.0)
    p.add_argument("--tokens-per-s", type=float, default=0.0, help="0 = unpaced")
    p.add_argument("--code-tokens-per-s", type=float, default=None)
    p.add_argument(
        "--fault", type=fault_spec, default=None, help="default fault for every request, NAME[:ARG]"
    )
    p.add_argument(
        "--tokens-per-chunk", type=int, default=1, help="tokens per streamed delta (busy vLLM)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--keep-requests",
        type=int,
        default=0,
        metavar="N",
        help="show the last N request bodies at /sim/stats (the newest as last_request)",
    )
    p.add_argument(
        "--repeatable",
        action="store_true",
        help="same request, same response bytes (ids hashed from the request, fixed created)",
    )
    return p


def settings_from(args: argparse.Namespace) -> SimSettings:
    return SimSettings(
        profile=args.profile,
        model=args.model,
        max_model_len=args.max_model_len,
        max_output_tokens=args.max_output_tokens,
        max_num_seqs=args.max_num_seqs,
        max_queued=args.max_queued,
        ttft_s=args.ttft_ms / 1000,
        tokens_per_s=args.tokens_per_s,
        code_tokens_per_s=args.code_tokens_per_s,
        fault=args.fault,
        seed=args.seed,
        tokens_per_chunk=args.tokens_per_chunk,
        keep_requests=args.keep_requests,
        repeatable=args.repeatable,
    )


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    """Serve until interrupted; 2 (after one line on stderr) when it cannot listen."""
    cli = parser(prog)
    args = cli.parse_args(argv)
    try:
        settings = settings_from(args)
    except ValueError as exc:  # a setting out of range or an unknown fault: a message, no trace
        cli.error(str(exc))

    def ready(url: str) -> None:
        heap.settle()  # a process of its own, like the router: no full collections under load
        with contextlib.suppress(OSError):  # stdout closed or unread: serve all the same
            print(f"simulator ({settings.profile}) listening on {url}", flush=True)

    loop = new_loop()
    serving = loop.create_task(serve(settings, args.host, args.port, ready))
    # SIGTERM (`kill`, `docker stop`) stops it as Ctrl-C does, exit 0 as `serve`'s: it was
    # the signal's own death, 143 (found in review)
    loop.add_signal_handler(signal.SIGTERM, serving.cancel)
    try:
        with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
            loop.run_until_complete(serving)
    # port in use, an address not of this machine, a name not found or no name at all
    except (OSError, UnicodeError) as exc:
        print(f"error: {listen_address.cannot_listen(args.host, args.port, exc)}", file=sys.stderr)
        return 2
    finally:
        loop.close()
    return 0


if __name__ == "__main__":
    from evals import cli_stdout

    # argparse drops the error of help it cannot write and exits 0 (found in re-review):
    # the one line and exit 1 of every other command's stdout instead
    if cli_stdout.asks_help(sys.argv[1:]):
        cli_stdout.run(lambda: sys.exit(main()))
    standard_fds.occupy()
    sys.exit(main())
