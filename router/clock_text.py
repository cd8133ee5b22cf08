"""Clock text: the dates and times an agent writes into its system prompt, which the
conversation key reads as one mark (`router.system_key.clockless`).

An ISO 8601 date, with a time and zone or without; a date with a month's name (JavaScript's
`toDateString`, "Saturday, December 5, 2026", "5 Dec 2026"; C's `ctime`, "Mon Dec  7
07:53:05 2026", Python's `%c`); M/D/YYYY or D/M/YYYY; a time of day. And the numeric dates
other locales write (`_LOCALE_DATE`). Never after a digit, a colon or a dot, nor before a digit
or a colon: "3:16", a port, a MAC or IPv6 address, a version ("v1.2.3", "Python 3.11.7", a
calendar version: "2024.1.5", "2024.12.13") is none. What is written as a date or a time in
some locale is read as one, though, whatever it stands for: a version "7.12.2026" (German) or
"2026. 1. 2." (Korean), a serial number "01-02-03" (Dutch `%x`), a duration or a verse
"1:30:00" (H:MM:SS, Japanese), a path's "/2024/1/15/" (Chinese). Such a text keys one
conversation with another that differs from it only there, of the same caller and first ask.
Every part is bounded, so a match is never longer than `CLOCK_SPAN` and no text makes the
search backtrack without end.
"""

from __future__ import annotations

import re

_TIME = (
    r"(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d{1,9})?)?(?:\s?[AaPp]\.?[Mm]\b\.?)?"
    r"|\d:[0-5]\d(?::[0-5]\d)?\s?[AaPp]\.?[Mm]\b\.?"  # H:MM only with AM or PM
    r"|\d:[0-5]\d:[0-5]\d"  # H:MM:SS (Japanese, Czech, Hungarian `toLocaleString`)
)
_DATE = r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
_WEEKDAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]{0,6}"
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]{0,6}\.?"
_NAMED = (
    rf"(?:{_WEEKDAY},? )?"
    rf"(?:{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}|\d{{1,2}} {_MONTH},? \d{{4}})"
    rf"|{_WEEKDAY} {_MONTH} [ \d]\d (?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d \d{{4}}"  # ctime
)
# A numeric date's parts: a year of this century or the last, a month, a day; two digits
# each where the year has two (`%x`).
_YEAR = r"(?:19|20)\d\d"
_M = r"(?:0?[1-9]|1[0-2])"
_D = r"(?:0?[1-9]|[12]\d|3[01])"
_MM = r"(?:0[1-9]|1[0-2])"
_DD = r"(?:0[1-9]|[12]\d|3[01])"
_YY = r"\d\d"


def _either(month: str, day: str, sep: str, year: str) -> str:
    """A numeric date whose day or month may lead (British, Dutch or American)."""
    return rf"(?:{month}{sep}{day}|{day}{sep}{month}){sep}{year}"


# A time of day with dots, as Danish, Finnish ("klo") and Indonesian write one: read only
# after a date, since alone it is a version ("7.53.05").
_DOTTED = r",? (?:klo )?(?:[01]?\d|2[0-3])\.[0-5]\d(?:\.[0-5]\d)?(?!\.?\d)"
# Numeric dates in other locales, as `toLocaleDateString`, `toLocaleString` and strftime's
# `%x` write them: "2026/12/7" (Chinese, Japanese), "2026. 12. 7." (Korean, Hungarian),
# "7.12.2026" and "7. 12. 2026" (German, Russian, Polish, Czech...), "7-12-2026" (Dutch,
# Turkish, Danish), "12/07/26" and "07-12-26" (`%x` in the C, British, Spanish or Dutch
# locale: glibc's nl_NL, nl_BE and fy_NL write `%d-%m-%y`), "2026年12月7日" and "2026년 12월
# 7일" (with their weekday, if one follows). Never after or before a separator and a digit,
# where a longer version or serial number goes on ("v7.12.2026.1", "12-05-26-44"). The
# year-first dotted form only with its spaces, as Korean and Hungarian write it: without them
# it is a calendar version ("2024.12.1"), and Mongolian's "2026.12.07" is not read.
_LOCALE_DATE = (
    rf"(?<!\d[-/])(?:{_YEAR}/{_M}/{_D}|{_YEAR}\. {_M}\. {_D}\.?"
    rf"|{_D}\. ?{_M}\. ?{_YEAR}(?:{_DOTTED})?|\d{{1,2}}/\d{{1,2}}/\d{{4}}{_DOTTED}"
    rf"|{_either(_M, _D, '-', _YEAR)}|{_either(_MM, _DD, '/', _YY)}"
    rf"|{_either(_MM, _DD, '-', _YY)})(?![-/.]\d)"
    rf"|{_YEAR} ?年 ?{_M} ?月 ?{_D} ?[日号]"
    r"(?: ?(?:星期|周|礼拜)[一二三四五六日天]| ?[(（][月火水木金土日][)）]| ?[月火水木金土日]曜日)?"
    rf"|{_YEAR}년 ?{_M}월 ?{_D}일(?: ?[월화수목금토일]요일)?"
)
# A time after "AM", "PM" or their Chinese, Japanese or Korean words (`toLocaleString`'s
# "上午7:53:05", "午前7:53:05", "AM 7:53:05"): the word is masked with it, or noon moved the key.
_MARKED_TIME = (
    r"(?:(?<![A-Za-z])[AP]M ?|上午|下午|午前|午後|오전 ?|오후 ?)"
    r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?"
)
# The characters a clock text can start with: a digit, a weekday's or a month's initial,
# "AM" or "PM" or their words. Read first, they fail the search at once at any other (most
# of a prompt), where each of the alternatives above was tried in turn: a 2 KB prompt of
# prose took 0.8 ms, 0.06 ms with it (0.25 ms before other locales were read).
_START = r"(?=[\dADFJMNOPSTW上下午오])"
CLOCK_TEXT = re.compile(
    rf"{_START}(?<![\d:.])(?:{_DATE}(?:[T ](?:{_TIME})(?:Z|[+-]\d\d(?::?\d\d)?)?)?"
    rf"|{_NAMED}|{_LOCALE_DATE}|\d{{1,2}}/\d{{1,2}}/\d{{4}}|{_MARKED_TIME}|{_TIME})(?![\d:])"
)
CLOCK_SPAN = 64  # at least the longest match, 40 characters (`re._parser`'s `getwidth`)
