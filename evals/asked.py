"""Which case an eval's request is for, while it is sent: the body alone does not say.

The runner sets it around each case's ask (`evals.runner.run_case`); the router's canary
reads it to name the suite and case on the call's span, and to tell a case its own
timeout ended from one cancelled otherwise (`router.canary_spans`).
"""

from __future__ import annotations

import asyncio
from contextvars import ContextVar
from dataclasses import dataclass

from evals.suite import Case


@dataclass(frozen=True)
class Asked:
    """The case whose body an ``Ask`` is sending, and the timeout it is sent under."""

    case: Case
    deadline: asyncio.Timeout

    def timed_out(self) -> bool:
        """Whether the case's own timeout cancelled the send: a cancellation then is the
        case's ``timeout`` (as its result says), not the round's end nor a stop."""
        return self.deadline.expired()


ASKED: ContextVar[Asked | None] = ContextVar("evals_asked_case", default=None)
"""What an ``Ask`` is sending, while it sends it: the body alone does not say which case it
is, and the router's canary names the suite and case on each call's span, and tells a case
that timed out from a call cancelled otherwise (found in review)."""
