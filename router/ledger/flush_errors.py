"""What the steps of a ledger flush raised (a bug, not a failed write): each logged once while
flush after flush raises the same, never with a value of a row, and a `SystemExit` or
`KeyboardInterrupt` kept for the writer to raise again once the flush's rows are written,
held or counted (`router.ledger.appender`).
"""

from __future__ import annotations

_QUOTES = "Could not convert"  # PyArrow's conversion error, which quotes the value


class Raised:
    """What each step of the flush (`convert <table>`, `write`, `settle`) raised at the last
    flush that reached it, and the `SystemExit` or `KeyboardInterrupt` the flush met."""

    def __init__(self) -> None:
        self._at: dict[str, str] = {}  # by step, while it raises
        # handled as a bug's exception: the writer raises it again once it counted the flush
        self.interrupted: BaseException | None = None

    def keep(self, exc: BaseException) -> None:
        """Keep `exc` for the writer to raise again if it is no `Exception` (a `SystemExit`,
        a `KeyboardInterrupt`): the first one, if steps of one flush meet several."""
        if not isinstance(exc, Exception) and self.interrupted is None:
            self.interrupted = exc

    def first_time(self, step: str, exc: BaseException) -> bool:
        """Whether `exc` is not what `step` raised at the last flush that reached it (which
        `passed` clears): a bug that raises every flush is one error line, not one a flush;
        its rows are counted all the same. Keeps `exc` too (`keep`)."""
        self.keep(exc)
        said = f"{type(exc).__name__}: {exc}"
        first = self._at.get(step) != said
        self._at[step] = said
        return first

    def passed(self, step: str) -> None:
        """`step` raised nothing this flush."""
        self._at.pop(step, None)


def said(exc: BaseException) -> str:
    """`exc` as the log says it: its type and message, less the value a conversion error
    quotes. PyArrow's names the value it could not convert in full ("Could not convert
    'sk-…' with type str: tried to convert to int64"), and a value of a row may be a
    caller's prompt or key: logged, it said the value (found in review). The log says
    "Could not convert a value with type str: tried to convert to int64"."""
    message = str(exc)
    head, quotes, tail = message.partition(_QUOTES)
    if quotes:
        _, typed, reason = tail.rpartition(" with type ")  # the last: the value may hold one
        message = f"{head}{_QUOTES} a value" + (f" with type {reason}" if typed else "")
    return f"{type(exc).__name__}: {message}"


def traced(exc: BaseException) -> BaseException | None:
    """`exc` for a log line's traceback, or None if it, or one it was raised in the
    handling of, quotes a value (`said`): a traceback ends with each one's message."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if _QUOTES in str(link):
            return None
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return exc
