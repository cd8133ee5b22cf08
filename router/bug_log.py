"""Bugs in background work, logged once per subject and kind of error.

A background job that runs every few seconds per backend (a capacity poll, a canary round)
must not stop on one backend's bug, nor hide it, nor write the same traceback on every run:
the first of each kind is the news.
"""

from __future__ import annotations

import logging


def kind_of(exc: BaseException) -> type[BaseException]:
    """The error's class; for a group (a TaskGroup's, say), its first member's, so that two
    different bugs raised from the same group are two kinds."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return type(exc)


class BugLog:
    """Logs a failure at error level with its traceback, once per subject and kind."""

    def __init__(self, logger: logging.Logger, message: str) -> None:
        self._log = logger
        self._message = message  # one `%s`, the subject (a backend's name)
        self._seen: set[tuple[str, type[BaseException]]] = set()

    def failed(self, subject: str, exc: Exception) -> None:
        seen = (subject, kind_of(exc))
        if seen not in self._seen:
            self._seen.add(seen)
            self._log.error(self._message, subject, exc_info=exc)
