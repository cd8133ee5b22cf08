"""The faults a simulated backend can inject, and how one is chosen for a request.

`queued` and `late_first_token` shape streams only: a whole reply's headers come with its
body, so it is not delayed. `late_first_token` is a server that opens its stream before
its first token: the role chunk, `response.created` or `message_start` go out at once, the
first token after the wait. Anthropic opens Messages that way and vLLM 0.32 its Responses
(`response.created`, `response.in_progress`); vLLM's chat and Messages streams send only
their headers until the first token, the role chunk or `message_start` coming with it,
which `queued` comes closest to (its keep-alive comments are a cloud gateway's, not
vLLM's). The `down` fault refuses each request; `POST /sim/faults {"down": true,
"for_s": S}` instead makes the port itself refuse connections, health and models included.

Precedence: the `x-sim-fault` header, then a `model+NAME[:ARG]` suffix, then the default set
at runtime (`POST /sim/faults`), then `SimSettings.fault`, then a draw from the fault rates.
A runtime fault may be transient: `POST /sim/faults {"fault": "server_error", "times": 1}`
fails the next generation request that carries no fault of its own (not `/health` nor
`/models`), then the default before it (or none) applies again: a blip, one 500, 429 or cut
stream, for an SDK's retry to get past (`control.py` says which requests count).

| name | what the client sees |
|---|---|
| `rate_limit[:S]` | 429 with `Retry-After: S` (default 1) |
| `rate_limit_no_retry_after` | 429 without any retry header |
| `server_error[:STATUS]` | a 5xx, 500 to 599 (default 500; 503: the profile's overload reply) |
| `overloaded[:S]` | the profile's overload reply, a 503, with `Retry-After: S` (default 1) |
| `bad_request` | a 400 in the profile's words that is not a context error |
| `reset` | TCP RST after the request is read: no HTTP response at all |
| `no_response` | the request is read and never answered |
| `slow_first_token[:S]` | headers only after S more seconds (default 10) |
| `queued[:S]` | streams: headers at once, S s of SSE comments, then events (default 10) |
| `late_first_token[:S]` | streams: opening events at once, the first token S s later (10) |
| `thinking[:S]` | chat streams: reasoning deltas for S s before the answer (10; see below) |
| `stall[:S]` | S seconds of silence after two tokens (default 10), then the rest |
| `cut_stream` | the connection closes after two tokens, mid-body |
| `malformed_chunk` | a `data:` line that is not JSON after two tokens |
| `endless_event[:N]` | streams: after N tokens (default 2; 0: first) an event that never ends |
| `missing_done` | the stream ends cleanly without its terminal event (`[DONE]`) |
| `cut_before_done` | streams: the connection closes mid-body just before that event |
| `no_usage` | chat and completions: no usage, even when asked for (`stream_options` ignored) |
| `abort[:N]` | chat and completions: the engine drops the request after N tokens (default 2) |
| `ollama_tool_calls` | chat: a call to every offered tool at once, streamed as Ollama does |
| `unindexed_tool_calls` | chat: as `ollama_tool_calls`, all in one delta with no `index` |
| `malformed_arguments` | chat: tool-call arguments that are not JSON, string values unquoted |
| `error_event[:N[:STATUS]]` | after N tokens (default 2; 0: first), an in-band error ends it |
| `echo_credentials[:N[:STATUS]]` | as `error_event`, its message repeating the request's keys |
| `echo_credentials_named[:N[:STATUS]]` | as `echo_credentials`, the keys as its `type` and `code` |
| `echo_credentials_long[:N[:STATUS]]` | as `echo_credentials`, long, the key past character 500 |
| `echo_credentials_page[:N[:STATUS]]` | as `echo_credentials_long`, a whole reply a text page |
| `context_length` | the profile's context-length 400, whatever the prompt |
| `context_length_sglang` | SGLang's flat context-length 400 (see `servers.py`) |
| `context_length_llamacpp` | llama.cpp's `exceed_context_size_error` 400 |
| `context_length_tgi` | TGI's context-length 422 |
| `down` | per request like `reset` (`{"down": true}` on `/sim/faults` closes the port) |
| `hold` | the request waits, read but not admitted, until `POST /sim/release`; then as usual |

`hold` is for tests that act while a request is at the backend: `/sim/stats` counts the
held ones (`held`), and `POST /sim/release` lets all of them go (see `hold.py`), served as
usual or, with `{"fault": "rate_limit:600"}`, meeting that fault (an answer that comes after
the test acted); later requests are held again while the fault stays chosen.

`cut_before_done` is a connection lost at the very end: a chat stream's finish reason and
usage chunk came, its `[DONE]` never does (Messages' `message_stop` and Responses'
`response.completed`, which carries the usage, likewise). A whole reply is sent as usual.

`abort` is vLLM's engine dropping a request it was generating (shutdown, sleep mode,
scale-down): the answer so far (a tool call cut mid-arguments) ends with `finish_reason:
"abort"`, then usage and `[DONE]` as after any end; a whole reply says "abort" too. It and
`no_usage` apply to chat and completions; the other APIs ignore them.

`ollama_tool_calls` is Ollama's OpenAI-compatible stream of parallel calls: each call whole
in one chunk with its own id, and every one `index: 0` (ollama/ollama#15457), where OpenAI and
vLLM number them 0, 1, …. The model calls each offered tool, so that there are several. It
applies to chat; a whole reply lists the calls as usual. `unindexed_tool_calls` is Ollama
before 0.4.7 (ollama/ollama#7881): the same calls side by side in one delta, none with an
`index`.

`endless_event` is an upstream gone wrong that keeps sending bytes and never the blank line
ending an event: after N tokens (0: before the first event, right after the headers) a
`data: ` line opens a JSON string, then 64 KiB pieces of it follow as fast as the client
reads them, until 20 MiB (`playback.ENDLESS_BYTES`, more than the router holds of one
event) went out, and the connection closes. A whole reply is sent as usual.

`malformed_arguments` is a small local model's tool call whose arguments are not JSON: the
object's string values written without their quotes (`{"city": Paris}`), streamed in pieces
and in a whole reply alike. Arguments holding no string value stay valid. It applies to chat.

`thinking` is a model with a reasoning parser: `"delta": {"reasoning": "Let me think. "}`
chunks four a second, shaped like the stream's own, before the answer, as vLLM names the
field since January 2026 (FACTS.md); the other profiles use the older `reasoning_content`,
as DeepSeek's API and SGLang still do. It applies to chat streams.

`error_event` is what a server sends when generation fails after the 200 went out: chat and
completions a `data: {"error": ...}` line (vLLM then `data: [DONE]`, from its
`create_streaming_error_response`), Messages an `event: error`, Responses an `error` event.
STATUS (default 500) picks the error, named as the profile names it over HTTP: 429 a rate
limit, 503 or 529 an overload (Anthropic's `overloaded_error`), 400 the context length. A
whole (non-streamed) reply gets that status.

`echo_credentials` is a gateway in front of a provider that repeats what it was sent in its
errors (a Python gateway returning an HTTP error's text with the whole URL, Gemini's `?key=`
in it: BerriAI/litellm#24902): where `error_event` would strike, and with the same statuses
(400 a plain bad request here), an error whose message names the request's target with its
query, the key of its Authorization or `x-api-key` header bare, and each header named for a
key, a token or auth with its value (`errors.echoed_credentials`). Two variants:
`echo_credentials_named` says the key in its error's names instead, its `type` the bare key
and its `code` the first other credential header's value (its message names nothing);
`echo_credentials_long` pads its message and repeats the bare key from its 460th character
on (a client that shows 500 characters of it cuts through a key); `echo_credentials_page`
answers a whole reply with that text as is, a proxy's error page, not JSON.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

FaultName = Literal[
    "rate_limit",
    "rate_limit_no_retry_after",
    "server_error",
    "overloaded",
    "bad_request",
    "reset",
    "no_response",
    "slow_first_token",
    "queued",
    "late_first_token",
    "thinking",
    "stall",
    "cut_stream",
    "malformed_chunk",
    "endless_event",
    "missing_done",
    "cut_before_done",
    "no_usage",
    "abort",
    "ollama_tool_calls",
    "unindexed_tool_calls",
    "malformed_arguments",
    "error_event",
    "echo_credentials",
    "echo_credentials_named",
    "echo_credentials_long",
    "echo_credentials_page",
    "context_length",
    "context_length_sglang",
    "context_length_llamacpp",
    "context_length_tgi",
    "down",
    "hold",
]
FAULTS: tuple[FaultName, ...] = get_args(FaultName)
DEFAULT_ARGS: dict[str, float] = {
    "rate_limit": 1.0,
    "overloaded": 1.0,
    "error_event": 2.0,
    "echo_credentials": 2.0,
    "echo_credentials_named": 2.0,
    "echo_credentials_long": 2.0,
    "echo_credentials_page": 2.0,
    "abort": 2.0,
    "endless_event": 2.0,
    "server_error": 500.0,
    "slow_first_token": 10.0,
    "queued": 10.0,
    "late_first_token": 10.0,
    "thinking": 10.0,
    "stall": 10.0,
}
TOKENS_BEFORE_MIDSTREAM_FAULT = 2
ERROR_STATUSES = ("400", "429", "500", "503", "529")  # error_event's and echo_credentials'
ECHOES = (
    "echo_credentials",
    "echo_credentials_named",
    "echo_credentials_long",
    "echo_credentials_page",
)
IN_BAND = ("error_event", *ECHOES)  # the faults that end a stream with an error


class FaultError(ValueError):
    """A fault spec that names no known fault or carries a bad argument."""


@dataclass(frozen=True, slots=True)
class Fault:
    name: FaultName
    arg: float | None = None
    status: int | None = None  # error_event's (and echo_credentials') second argument
    echo: str = ""  # the ECHOES': what the request carried (`app`), not in `spec`
    echo_names: tuple[str, str] = ("", "")  # the bare key, another credential (`app`)

    @property
    def value(self) -> float:
        """The argument, or the fault's default."""
        return self.arg if self.arg is not None else DEFAULT_ARGS.get(self.name, 0.0)

    @property
    def spec(self) -> str:
        arg = "" if self.arg is None else f"{self.arg:g}"
        status = "" if self.status is None else f":{self.status}"
        return f"{self.name}:{arg}{status}" if arg or status else self.name


def parse(spec: str) -> Fault:
    """`NAME`, `NAME:ARG` or `error_event:N:STATUS` (`echo_credentials` too) → Fault;
    raises FaultError naming the known faults."""
    name, _, raw = spec.strip().partition(":")
    if name not in FAULTS:
        raise FaultError(f"unknown fault {name!r}; known: {', '.join(FAULTS)}")
    raw, _, second = raw.partition(":")
    try:
        arg = float(raw) if raw else None
    except ValueError as exc:
        raise FaultError(f"fault argument must be a number, not {raw!r}") from exc
    if name == "server_error" and arg is not None and not (arg.is_integer() and 500 <= arg < 600):
        raise FaultError(f"server_error takes an HTTP status from 500 to 599, not {raw!r}")
    if not second:
        return Fault(name, arg)
    if name not in IN_BAND:
        raise FaultError(f"only {', '.join(IN_BAND)} take a second argument, not {name}")
    if second not in ERROR_STATUSES:
        raise FaultError(f"{name}'s status is one of {', '.join(ERROR_STATUSES)}, not {second}")
    return Fault(name, arg, int(second))


def split_model(model: str) -> tuple[str, Fault | None]:
    """`name+fault:arg` → (name, Fault). A `+` not followed by a known fault stays in the name."""
    base, plus, spec = model.rpartition("+")
    if not plus or spec.partition(":")[0] not in FAULTS:
        return model, None
    return base, parse(spec)


def draw(rates: Mapping[str, float], rng: random.Random) -> Fault | None:
    """Pick at most one fault with the given per-request probabilities."""
    if not rates:
        return None
    roll = rng.random()
    for spec, rate in rates.items():
        if roll < rate:
            return parse(spec)
        roll -= rate
    return None


def choose(
    header: str | None,
    from_model: Fault | None,
    runtime: Fault | None,
    configured: Fault | None,
    rates: Mapping[str, float],
    rng: random.Random,
) -> Fault | None:
    """Apply the precedence documented above."""
    if header:
        return parse(header)
    return from_model or runtime or configured or draw(rates, rng)
