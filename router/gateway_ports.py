"""What the gateway is plugged into, as protocols: the source of backend states it plans by
(`States`), and what it hands a finished request to (`Sink`, `CallSink`), prices it with
(`Pricing`) and tells each classification (`ClassifyObserver`).

Apart from `router.gateway` so that what implements them (resilience, the canary's gates,
the components' sinks) need not import the gateway itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from router.backend_state import BackendState
from router.call import Call
from router.record import Record
from router.relay import Tally


class Sink(Protocol):
    """Receives each finished record once (ledger, metrics, shadow)."""

    def record_finished(self, record: Record) -> None: ...


class CallSink(Protocol):
    """Sees a finished call whole (body and live answer): shadow replays sample it.

    `samples` is asked once, as the call is prepared (it rolls the dice): a call it picks
    keeps its body as received and its answer text for it (`Call.sampled`), no other one.
    `call_finished` runs after the client got the last byte and must never block or raise.
    """

    def samples(self, call: Call) -> bool: ...

    def call_finished(self, call: Call, tally: Tally) -> None: ...


class ClassifyObserver(Protocol):
    def classified(self, label: str, confidence: float, seconds: float) -> None: ...


class Pricing(Protocol):
    def price(self, record: Record) -> tuple[float | None, float | None]: ...


class States(Protocol):
    def states(self) -> Mapping[str, BackendState]: ...

    def sticky(self, conversation: str) -> str | None: ...


class NoStates:
    """Before health tracking exists every backend is presumed fine."""

    def states(self) -> Mapping[str, BackendState]:
        return {}

    def sticky(self, conversation: str) -> str | None:
        return None
