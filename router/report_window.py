"""The report's window: `--since` and `--until` as read, the one refused as empty, the
days its rates ("per day", the break-even) are counted over, and the days its per-day
series list (`report_days`).

One "now" serves a whole report: the CLI and the endpoint take it once and pass it to the
parsing of a relative `--since`, to the check of the window and to `report.build`, whose
reading ends there and whose `generated_at` says it. An open `until` read to year 9999
while the header said "now", and an open window starting in the future reported $0.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from router.report_break_even import DAY_S

if TYPE_CHECKING:  # DuckDB: not in a router that only parses a window (the endpoint)
    from router.ledger.query import Ledger

DEFAULT_DAYS = 30  # the window when no `since` is given: this many days before its end


def now() -> datetime:
    """Now, exactly (the end of a report without `until`: a record of this second counts)."""
    return datetime.now(UTC)


def _to_second(moment: datetime) -> datetime:
    """`moment` to the second: a window counted from it prints as the report's
    `generated_at` does, not with six digits of a second no one asked for."""
    return moment.replace(microsecond=0)


def parse_since(text: str, at: datetime | None = None) -> datetime:
    """`30d`, `12h`, `2w`, `90m` before `at` (default now), or an ISO date/time (UTC when
    naive), in UTC.

    Raises ValueError for anything else, a time outside years 1-9999 in UTC included."""
    at = _to_second(at or now())
    units = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
    text = text.strip()
    try:
        if text[:-1].isdigit() and text[-1:] in units:
            return at - timedelta(seconds=int(text[:-1]) * units[text[-1]])
        value = datetime.fromisoformat(text)
        # converted here, where a bad value is the caller's error, not later in the report
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    except OverflowError:
        raise ValueError(f"{text!r} lies outside the years 1-9999 (UTC)") from None
    except ValueError:
        raise ValueError(
            f"{text!r} is neither a time before now (30d, 12h, 2w, 90m) nor an ISO date/time"
        ) from None


def default_since(until: datetime | None, at: datetime | None = None) -> datetime:
    """`since` when none is given: `DEFAULT_DAYS` before `until`, else before now. Counted
    from now whatever `until` said, `--until 2026-01-31` alone, run in December, read from
    November to the end of January, and one before last month was refused as inverted."""
    end = until or _to_second(at or now())
    try:
        return end - timedelta(days=DEFAULT_DAYS)
    except OverflowError:  # an `until` in the first month of year 1: from its start
        return datetime.min.replace(tzinfo=UTC)


class EmptyWindow(ValueError):
    """A window with nothing to read; `name` is the bound to change, as the caller spells it."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


def check_window(
    since: datetime,
    until: datetime | None,
    names: tuple[str, str] = ("since", "until"),
    at: datetime | None = None,
    defaulted: bool = False,
) -> None:
    """Raise EmptyWindow for a window that ends where it starts or before: it reported 0
    requests and $0 without a word, as a billing script with its arguments swapped read.
    A `since` from `at` (now) on is as empty, whatever `until` says: nothing is recorded
    after now (it reported $0 with status 0, without `until` and then with one ahead of it:
    found in review). `names` are how the caller spells the two (`--since`, `--until` on the
    command line); the message, and the error's `name`, say the one to change: the `until`
    given when `since` was `defaulted` from it (the error named a since nobody sent), and
    only the `until` when nothing comes before it (`--until 0001-01-01` alone was told to be
    after a `--since` nobody gave: found in review)."""
    first, last = names
    if until is not None and until <= since and defaulted:  # `default_since` hit year 1
        raise EmptyWindow(
            f"{last} ({until.isoformat()}) is the first moment there is: with no {first},"
            f" the window is the {DEFAULT_DAYS} days before it, and would be empty",
            last,
        )
    if until is not None and until <= since:
        raise EmptyWindow(
            f"{last} ({until.isoformat()}) must be after {first} ({since.isoformat()}):"
            " the window would be empty",
            last,
        )
    end = at or now()
    if since >= end and defaulted and until is not None:
        raise EmptyWindow(
            f"with no {first}, the window is the {DEFAULT_DAYS} days before {last}"
            f" ({until.isoformat()}), all after now ({_to_second(end).isoformat()}):"
            f" give {first}, or a {last} less than {DEFAULT_DAYS} days ahead",
            last,
        )
    if since >= end:  # nothing is recorded after now
        whatever = f"when there is no {last}" if until is None else f"whatever {last} says"
        raise EmptyWindow(
            f"{first} ({since.isoformat()}) must be before now"
            f" ({_to_second(end).isoformat()}) {whatever}: the window would be empty",
            first,
        )


def window_days(ledger: Ledger, since: datetime, until: datetime) -> float:
    """Days from `since`, or the UTC midnight of the ledger's first record if later, to
    `until` (the report's end: its `until`, else now); 0 when the window has no record.

    Rates ("per day", break-even) are the window's: a day without traffic counts, as it
    earns nothing, except the days before the ledger had any traffic, so a ledger that
    started a week ago is not diluted over a 30-day window. Divided by the span from
    the first to the last record, traffic at 09:00 and 17:00 each weekday made a week's
    savings the rate of 4⅓ days (found in review). Counted from the window's own first
    record, a quiet first day of the window was left out as if the ledger had not begun
    (found in review): the ledger's earlier days are looked at too (`_traffic_before`)."""
    (first,) = ledger.sql("SELECT min(first_at) FROM agg")[0]
    if first is None:
        return 0.0
    start = since
    if not _traffic_before(ledger.directory, first.date()):
        start = max(since, datetime.combine(first.date(), datetime.min.time()))
    return max(0.0, (until - start).total_seconds() / DAY_S)


def _traffic_before(directory: Path, day: date) -> bool:
    """Whether the ledger holds a record of a day before `day` (the window's first record's).

    Such a record is before `since` (else the window would hold it), so the ledger's
    traffic began before the window did. Told from the `records/day=…` partitions, oldest
    first, by their files' footers: no row is read, and the first day holding a file
    answers (a partition may be empty: a writer makes today's and tomorrow's ahead). A file
    damaged or unreadable still had rows written; a day this process may not list is
    passed over, as the report passes over its files."""
    # PyArrow and numpy (~59 MB, for good): imported here, in the report, not where the
    # endpoint parses a window in a router that may have written nothing yet
    from router.ledger import segments

    for path in segments.day_dirs(directory, "records"):
        found = segments.partition_day(path)
        if found is None or found >= day:  # oldest first: none of the rest is earlier
            return False
        try:
            listing = segments.list_day(path)
        except OSError:  # gone (retention), or not ours to list
            continue
        if listing.marked or listing.unread or any(seg.rows for seg in listing.segments):
            return True
    return False


def report_days(seen: Iterable[str], generated_at: str, until: str | None) -> list[str]:
    """Every day a report's per-day series covers, quiet ones too: from the first of `seen`
    (ISO days with records) to the window's last day (`until` is exclusive: the day before
    it when it is a midnight; an open window ends at `generated_at`, the report's now).
    Both ends as the report's JSON gives them. `report.build` counts them once, and every
    per-day series lists each of them (`break_even.daily`, `router.report_daily`'s
    `local_share` and `daily_by_*`), as the HTML charts drawn from those series draw them.

    Only the days with rows were drawn, side by side: a quiet day went missing between its
    neighbours, and the savings line rose faster than it did (found in review); the JSON's
    `daily` skipped it as well, and a line plotted from it (a Grafana JSON source) jumped
    over it. Days before the first with records are not listed: a `--since 0001-01-01`
    would make the series hundreds of thousands of days long."""
    seen = set(seen)
    if not seen:
        return []
    first = date.fromisoformat(min(seen))
    ends = [datetime.fromisoformat(generated_at)]
    if until:
        ends.append(datetime.fromisoformat(until))
    last = (min(ends) - timedelta(microseconds=1)).date()
    last = max(last, date.fromisoformat(max(seen)))  # never cut a day that has rows
    return [(first + timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
