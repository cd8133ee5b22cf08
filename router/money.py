"""How the reports write an amount of dollars: one rule for the terminal table and the HTML.

At two decimals a demo's 34 requests read `$0.00` in every cell while JSON said 0.004542
offloaded, and the total (`$0.01`) was no sum of the rows shown (found by a new user's
review). Two significant digits make that rarer, not impossible (`$0.0045` twice totals
`$0.0091`): rounded figures never quite add up. CSV and JSON keep ten decimals (`data`),
of sums the ledger's SQL adds up exactly (`exact_sum`), of the values it can
(`summable`).
"""

from __future__ import annotations

import math

DATA_DECIMALS = 10  # a report's data keeps dollars to $1e-10: `data`


def data(value: float) -> float:
    """A dollar sum as a report's data (JSON, CSV) holds it: to ten decimals. At six, a few
    short local requests ($3e-7 each) were 0.0 (found in review); unrounded, the float
    error of adding in another order (DuckDB sums in parallel, a rolled-up day in other
    steps) showed as 249.50000000000009 beside 249.5, and the same ledger's report differed
    between runs and between a day compacted and not."""
    return round(value, DATA_DECIMALS)


# Each value rounded to a picodollar, then added exactly: a DOUBLE sum depends on the order
# DuckDB adds in (its threads; a rolled-up day adds a day's sum, not its rows), and 7 M
# rows read 4299.75 in one run and 4299.7499999998 in another; 200,000 requests of $0.10
# read $20,000.0000000377 raw and $19,999.9999999895 once compacted (found in review).
EXACT = "DECIMAL(38, 12)"


def exact_sum(expression: str) -> str:
    """SQL for the sum of a DOUBLE `expression` of dollars (or seconds) that is the same in
    whatever order its rows are added: each to `EXACT` (twelve decimals, two finer than
    `data` keeps), summed as decimals, the sum a DOUBLE again (the type rollups store).
    NULL when every value is, as `sum`."""
    return f"CAST(sum(CAST({expression} AS {EXACT})) AS DOUBLE)"


# The most dollars (or seconds) one ledger row may add to a sum. Ledgers written before the
# config bounded prices and local costs (`MAX_PER_MTOK`, `LocalCost`) may hold $1e291 for a
# request, which no DECIMAL(38, 12) holds: the report failed, "Could not cast value", and
# compaction rolled up no day, pass after pass (found in review). A request under today's
# bounds costs at most ~$1e11 (2^40 tokens at $100,000 a million); 1e11 rows of 1e15 still
# fit the decimal's 1e26, so no sum of the rows let in can overflow.
MAX_SUMMED = 10**15


def summable(expression: str) -> str:
    """SQL for a row's value as the sums take it: NULL, left out as an unknown price is, when
    it is past `MAX_SUMMED` either way or no number (NaN, infinite); `oversized` counts
    those rows, for the report to say its sums left them out."""
    return f"(CASE WHEN abs({expression}) <= {MAX_SUMMED} THEN {expression} END)"


def oversized(*expressions: str) -> str:
    """SQL true for a row one of whose `expressions` `summable` leaves out (NaN compares
    above every number in DuckDB, so `NOT abs(x) <= MAX` holds for it too)."""
    return " OR ".join(
        f"({expression} IS NOT NULL AND NOT abs({expression}) <= {MAX_SUMMED})"
        for expression in expressions
    )


def usd(value: float) -> str:
    """`$0` for zero; under a dollar, two significant digits (`$0.0045`, `$0.77`); from a
    dollar on, cents (`$1,234.50`). A negative amount is written `-$0.0045`, as people
    write a loss."""
    shown = figure(value)
    return f"-${shown[1:]}" if shown.startswith("-") else f"${shown}"


def figure(value: float) -> str:
    """`value` as `usd` writes it, without the `$` (a chart's axis ticks)."""
    if value == 0:
        return "0"
    if not math.isfinite(value):  # no report sums to one today; it raised, where it said nan
        return str(value)
    rounded = float(f"{value:.2g}")  # two significant digits: 0.0999 is read 0.10
    if abs(rounded) >= 1:
        return f"{value:,.2f}"
    decimals = 1 - math.floor(math.log10(abs(rounded)))  # 0.0045: 4, 0.77: 2
    return f"{rounded:.{max(2, decimals)}f}"
