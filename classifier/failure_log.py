"""A request a reader could not read, logged so that a flood of one bad shape stays a few lines.

`classify` and `explain` send such a request the default route, and the router's
conversation key reads it as sent (`router.conversation`): each logs it, by kind and place
and never by text (a message may quote the body), the 1st, 2nd, 4th, 8th... time only.
"""

from __future__ import annotations

import itertools
import logging
import traceback


class FailureLog:
    """Failures of one reader: `what` failed, and `then` what the request gets instead."""

    def __init__(self, log: logging.Logger, what: str, then: str) -> None:
        self._log, self._what, self._then = log, what, then
        self._count = itertools.count(1)

    def failed(self, exc: Exception) -> None:
        """Log `exc`, the failure to read one request, if its number is a power of two."""
        n = next(self._count)
        if n & (n - 1) == 0:
            where = traceback.extract_tb(exc.__traceback__)[-1]
            self._log.warning(
                "%s (%s at %s:%s; %d so far); %s",
                self._what,
                type(exc).__name__,
                where.filename,
                where.lineno,
                n,
                self._then,
            )
