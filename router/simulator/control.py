"""What tests change while a simulator runs: the default fault, fault rates, quality,
scripted replies, `down`, a `/metrics` that hangs.

Served under `/sim/` (never a real backend path): `GET /sim/stats`, `POST /sim/faults`
`{"fault": "NAME[:ARG]"|null, "times": N, "rates": {...}, "down": bool, "for_s": S,
"hang_metrics": bool}`,
`POST /sim/quality` `{"suite": q, ...}`, `POST /sim/replies` `{"prompt": "answer text"|null,
...}` (null forgets a prompt's reply), `POST /sim/release` `{"fault": "NAME[:ARG]"|null}`
(every request the `hold` fault holds goes on, served as usual or meeting that fault),
`POST /sim/reset` (back to the settings).
A `POST /sim/faults` body is all or nothing: a field it cannot read answers 400 naming it
and changes nothing, however many fields before it were right.
Each answers with the stats and the state after it.

`hang_metrics` is a vLLM whose `/metrics` reads each request and never answers (a wedged
exporter, a scrape path a proxy holds) while everything else, `/health` included, answers
as usual: what a router's capacity polls must outlast without the other backends' readings
going stale. False answers again; `POST /sim/reset` too.

`times` makes the fault transient, a backend's blip (one 500, one 429, one cut stream: what
an SDK's retry is for): `{"fault": "server_error", "times": 1}` fails the next request only,
then the default fault that was set before (or none) applies again, with no clearing call
racing the client's retry. What counts is a request whose fault is chosen by the runtime
default (`Simulator._fault`): one to a generation API (chat, completions, Messages,
Responses) that passed authorization, its body's validation and the model-name check, and
carries no fault of its own (`x-sim-fault`, a `+NAME` model suffix). `/health`, `/models`,
`/metrics`, `/tokenize` and `/sim/` never count. Each such request takes one in
`Control.take_fault`, with no await between the check and the decrement, so under any
number of concurrent requests exactly `times` meet the fault. The state shows what is left
(`"transient": {"fault": ..., "left": N}`, null once spent). A `fault` without `times`
(null included) sets the default and drops a transient fault still pending; `POST
/sim/reset` drops it too. `times` is a whole number from 1 and needs a fault named with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from router.simulator import faults
from router.simulator.faults import Fault, FaultError
from router.simulator.settings import SimSettings


@dataclass
class Control:
    """Mutable runtime state, initialised from the (frozen) settings."""

    fault: Fault | None = None
    rates: dict[str, float] = field(default_factory=dict)
    quality: dict[str, float] = field(default_factory=dict)
    replies: dict[str, str] = field(default_factory=dict)  # stripped prompt -> answer text
    hang_metrics: bool = False  # `/metrics` never answers
    transient: Fault | None = None  # `times`: before `fault`, for `transient_left` requests
    transient_left: int = 0

    @classmethod
    def from_settings(cls, settings: SimSettings) -> Control:
        for spec in settings.fault_rates:
            faults.parse(spec)
        fault = faults.parse(settings.fault) if settings.fault else None
        replies = {prompt.strip(): text for prompt, text in settings.replies.items()}
        return cls(fault, dict(settings.fault_rates), dict(settings.quality), replies)

    def take_fault(self) -> Fault | None:
        """The runtime fault of one request, taking one of a transient fault's requests:
        the only place the count goes down, synchronous so concurrent requests take one each."""
        transient = self.transient
        if transient is None:
            return self.fault
        self.transient_left -= 1
        if self.transient_left <= 0:
            self.transient, self.transient_left = None, 0
        return transient

    def set_fault(self, fault: Fault | None, times: int | None) -> None:
        """The default fault (`times` None), dropping a pending transient one; or a
        transient fault for the next `times` requests, the default kept for after."""
        if times is None:
            self.fault, self.transient, self.transient_left = fault, None, 0
        else:
            self.transient, self.transient_left = fault, times

    def as_dict(self) -> dict[str, Any]:
        transient = self.transient
        left = {"fault": transient.spec, "left": self.transient_left} if transient else None
        return {
            "fault": self.fault.spec if self.fault else None,
            "transient": left,
            "rates": self.rates,
            "quality": self.quality,
            "replies": len(self.replies),  # a count: a scripted answer may be long
            "hang_metrics": self.hang_metrics,
        }


@dataclass(frozen=True, slots=True)
class DownOrder:
    """`down` from `POST /sim/faults`: refuse connections, for `for_s` seconds or until told."""

    down: bool
    for_s: float | None = None


def apply_faults(control: Control, body: Any) -> DownOrder | None:
    """Apply a `POST /sim/faults` body, all or nothing: every field is read and checked
    before any is applied, so a 400 (FaultError, naming the field) leaves the state as it was."""
    if not isinstance(body, dict):
        raise FaultError("body must be a JSON object")
    times = _times(body)
    fault = _fault(body, times) if "fault" in body else None
    rates = _rates(body) if "rates" in body else None
    hang = body.get("hang_metrics")
    if "hang_metrics" in body and not isinstance(hang, bool):
        raise FaultError("hang_metrics must be true or false")
    order = _down(body) if "down" in body else None
    if "fault" in body:
        control.set_fault(fault, times)
    if rates is not None:
        control.rates = rates
    if isinstance(hang, bool):
        control.hang_metrics = hang
    return order


def _fault(body: dict[str, Any], times: int | None) -> Fault | None:
    """`fault` of a `POST /sim/faults` body: a spec or null (none); raises FaultError."""
    spec = body["fault"]
    if spec is not None and not isinstance(spec, str):
        raise FaultError("fault must be a string or null")
    fault = faults.parse(spec) if spec else None
    if fault is None and times is not None:
        raise FaultError("times needs a fault to apply that many times")
    return fault


def _rates(body: dict[str, Any]) -> dict[str, float]:
    """`rates` of a `POST /sim/faults` body (null: none); raises FaultError naming the field."""
    rates = body["rates"] or {}
    if not isinstance(rates, dict) or not all(
        isinstance(v, int | float) and 0 <= v <= 1 for v in rates.values()
    ):
        raise FaultError("rates must map fault specs to probabilities in [0, 1]")
    for spec in rates:
        try:
            faults.parse(spec)
        except FaultError as exc:
            raise FaultError(f"rates: {exc}") from None
    if sum(rates.values()) > 1:
        raise FaultError("rates must sum to at most 1")
    return {str(k): float(v) for k, v in rates.items()}


def _down(body: dict[str, Any]) -> DownOrder:
    """`down` (and `for_s`) of a `POST /sim/faults` body; raises FaultError naming `for_s`."""
    for_s = body.get("for_s")
    if for_s is not None and (not isinstance(for_s, int | float) or for_s <= 0):
        raise FaultError("for_s must be a positive number of seconds")
    return DownOrder(bool(body["down"]), None if for_s is None else float(for_s))


def _times(body: dict[str, Any]) -> int | None:
    """`times` of a `POST /sim/faults` body: None when absent, else a whole number from 1
    sent with a `fault`; raises FaultError naming the field."""
    if "times" not in body or body["times"] is None:
        return None
    times = body["times"]
    if isinstance(times, bool) or not isinstance(times, int) or times < 1:
        raise FaultError(f"times must be a whole number of requests from 1, not {times!r}")
    if "fault" not in body:
        raise FaultError("times needs a fault to apply that many times")
    return times


def released_fault(body: Any) -> Fault | None:
    """The fault a `POST /sim/release` body names for the held requests (None: served as
    usual); raises FaultError on anything malformed, and for `hold` (held again, a request
    would wait for a release that already came)."""
    if not isinstance(body, dict):
        raise FaultError("body must be a JSON object")
    spec = body.get("fault")
    if spec is not None and not isinstance(spec, str):
        raise FaultError("fault must be a string or null")
    fault = faults.parse(spec) if spec else None
    if fault is not None and fault.name == "hold":
        raise FaultError("a released request is not held again: name another fault, or none")
    return fault


def apply_quality(control: Control, body: Any) -> None:
    if isinstance(body, dict) and isinstance(body.get("quality"), dict):
        body = body["quality"]
    if not isinstance(body, dict) or not all(
        isinstance(v, int | float) and 0 <= v <= 1 for v in body.values()
    ):
        raise FaultError("quality must map suite names to numbers in [0, 1]")
    control.quality.update({str(k): float(v) for k, v in body.items()})


def apply_replies(control: Control, body: Any) -> None:
    """Apply a `POST /sim/replies` body: prompt -> answer text, or null to forget one."""
    if not isinstance(body, dict) or not all(
        v is None or isinstance(v, str) for v in body.values()
    ):
        raise FaultError("replies must map prompt texts to answer texts (or null)")
    for prompt, text in body.items():
        if text is None:
            control.replies.pop(prompt.strip(), None)
        else:
            control.replies[prompt.strip()] = text
