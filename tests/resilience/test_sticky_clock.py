"""A system prompt that carries the time keys one conversation: LangChain's react-agent
template writes `System time: {datetime.now(tz=UTC).isoformat()}` into it on every model
call, and each request of one tool loop was a conversation of its own (the ledger's
`conversation` column), which no pin held (found running LangChain against the router).
Through a live router and simulators, with the official `openai` SDK and the real ledger.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import openai
import pytest

from router.clock_text import CLOCK_SPAN, CLOCK_TEXT
from router.config import DEFAULT_ROUTES
from router.conversation import conversation_key
from router.ledger import Ledger
from tests.harness import Collect, Running, RunningRouter, config_for, router, simulator
from tests.resilience.conftest import FAST, until

SYSTEM = "You are a helpful AI assistant.\n\nSystem time: {}"
ASK = "What's the weather in Paris?"  # with a tool to call: tool_calling, the cloud first
CODE = "Write a Python function that reverses a linked list, with unit tests."  # local first
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[tuple[RunningRouter, Collect]]:
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        servers: dict[str, Running] = {"local": local, "cloud": cloud}
        routes = {**DEFAULT_ROUTES, "tool_calling": ["cloud", "local"]}
        config = config_for(servers, tmp_path, resilience=FAST, routes=routes)
        with router(config) as running:
            collect = Collect()  # after the resilience sink: a record it holds, the table has seen
            running.components.gateway.sinks.append(collect)
            yield running, collect


def turn(
    proxy: tuple[RunningRouter, Collect], at: datetime | str, history: list[dict[str, Any]]
) -> tuple[str, Any]:
    """One model call of the loop, its system prompt stamped with `at` as the template
    stamps it (or with a stamp as written): the backend that served it and its message, once
    its record is finished."""
    running, collect = proxy
    client = openai.OpenAI(base_url=running.url, api_key="x", max_retries=0)
    finished = len(collect.records)
    stamp = at.isoformat() if isinstance(at, datetime) else at
    system = {"role": "system", "content": SYSTEM.format(stamp)}
    raw = client.chat.completions.with_raw_response.create(
        model="auto", max_tokens=40, messages=[system, *history], tools=[WEATHER]
    )
    message = raw.parse().choices[0].message
    until(lambda: len(collect.records) > finished, what="the record finished")
    return raw.headers["x-smf-backend"], message


def called_the_tool(proxy: tuple[RunningRouter, Collect], at: datetime | str) -> list[Any]:
    """The loop's first call, `ASK` stamped with `at`: served by the cloud, which pins it,
    and calling the weather tool; the history after it, its call and the tool's result."""
    history: list[dict[str, Any]] = [{"role": "user", "content": ASK}]
    backend, called = turn(proxy, at, history)
    assert backend == "cloud" and called.tool_calls
    return [
        *history,
        called.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": called.tool_calls[0].id, "content": "Sunny, 22C"},
    ]


def test_a_tool_loop_stamped_with_the_time_is_one_pinned_conversation(
    proxy: tuple[RunningRouter, Collect], tmp_path: Path
) -> None:
    """The loop's first call is pinned to the cloud; its tool result and then a coding ask
    of the same thread (local first on its own) stay there, and the ledger has one
    conversation."""
    at = datetime(2026, 12, 5, 22, 31, 7, 123456, tzinfo=UTC)
    history = called_the_tool(proxy, at)
    backend, answered = turn(proxy, at + timedelta(seconds=1, microseconds=7), history)
    assert backend == "cloud" and answered.content
    history += [
        {"role": "assistant", "content": answered.content},
        {"role": "user", "content": CODE},
    ]
    # the next day, past midnight: a fraction of no microseconds, as `isoformat` writes it
    assert turn(proxy, at + timedelta(hours=2, microseconds=-123456), history)[0] == "cloud"
    assert conversations(proxy, tmp_path) == [(3, 1)]


# Locales whose `toLocaleString` stamps (`LOCALE_STAMPS`, a day apart) a chat is sent with
# (JavaScript agents write `new Date().toLocaleString()`): Chinese, Korean, German, Finnish.
LOCALE_DAYS = ("zh-CN", "ko-KR", "de-DE", "fi-FI")


@pytest.mark.parametrize("locale", LOCALE_DAYS)
def test_a_chat_stamped_with_a_locale_date_stays_one_pinned_conversation(
    proxy: tuple[RunningRouter, Collect], tmp_path: Path, locale: str
) -> None:
    """A chat pinned to the cloud on its first turn stays there on its second, the next day,
    for a coding ask (local first on its own): one conversation in the ledger. Read as it
    was, the date keyed the second turn apart and it went local."""
    one, other = LOCALE_STAMPS[locale]
    history = [*called_the_tool(proxy, one), {"role": "user", "content": CODE}]
    assert turn(proxy, other, history)[0] == "cloud"
    assert conversations(proxy, tmp_path) == [(2, 1)]


def conversations(proxy: tuple[RunningRouter, Collect], tmp_path: Path) -> list[Any]:
    """The ledger's records and conversations, once flushed."""
    running = proxy[0]
    assert running.components.ledger is not None
    running.components.ledger.flush()
    with Ledger(tmp_path / "ledger") as ledger:
        return ledger.sql("SELECT count(*), count(DISTINCT conversation) FROM records")


# Keys of these prompts made by the router before clock text was masked (`secret` b"k" * 32,
# caller "alice"): a ledger's conversations group across the upgrade.
LONG = "Rules follow. " * 200  # 2,800 characters
BEFORE = {
    "You are a helpful AI assistant.": "f923e3bb7c822157",
    "Serve on 127.0.0.1:8080 (ratio 16:9, John 3:16, MAC 00:1a:2b:3c:4d:5e, IPv6 fe80::1:22, "
    "v1.2.3, build 2026.12, run 20261205, id 2026-13-45, in 2026; 1/2 cup).": "c341aba4bb5256cd",
    LONG: "3f3ee2e11f0aa6cb",
    # clock text past the 2,048 characters the key reads, within the span masked with them
    LONG[:2060] + "System time: 2026-12-05T22:31:07.123456+00:00" + LONG[2060:]: "3f3ee2e11f0aa6cb",
    LONG + "Today's date is 2026-12-05.": "3f3ee2e11f0aa6cb",
    # near other locales' dates (`LOCALE_STAMPS`), and none
    "Pinned: v7.12.2026.1, 1.12.2026.5, 3.45.2026, 32.12.2026, 0.12.2026, 10.11.12, Python "
    "3.11.7, 192.168.1.2026 (2026/13/45, 2026/12/7/8, 7.12.2026/5); serials 12-05-26-44, "
    "13-13-2026, 13/13/13, 00-00-00, ISBN 978-3-16-148410-0, +49 30 1234-56-78; 2026年 plan, "
    "PM2, AM/PM, 1/2/26, 1:05:07:09, 12:30:45:00.": "c8e3b59b8ab1cc63",
    # calendar versions: a year-first dotted date without the spaces Korean and Hungarian
    # write (found in review: masked, so two prompts apart only by their version merged)
    "You run mytool 2024.1.5. Use its flags.": "67002c8d65186944",
    "Releases: Home Assistant 2024.12.1, JetBrains 2024.3.1, yt-dlp 2024.12.13, Ubuntu image "
    "2026.12.1 (2026.1.2.).": "14c9c7d7f424e153",
}


@pytest.mark.parametrize(
    "system",
    BEFORE,
    ids=["plain", "near-clock", "long", "late", "far", "near-locale", "calver", "calvers"],
)
def test_a_prompt_without_clock_text_keeps_its_key(system: str) -> None:
    assert conversation_key(opening(system), {}, "alice", b"k" * 32) == BEFORE[system]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("2026-12-05T22:31:07.123456+00:00", "2026-12-06T00:00:00+00:00"),
        ("2026-12-05T22:31:07.123Z", "2026-12-05T22:31:08.9Z"),
        ("Today's date is 2026-12-05.", "Today's date is 2026-12-06."),
        ("Today's date: Sat Dec 05 2026", "Today's date: Sun Dec 06 2026"),
        ("Saturday, December 5, 2026 at 11:59 PM", "Sunday, December 6, 2026 at 12:01 AM"),
        ("Current Time: 12/5/2026, 9:12:03 PM", "Current Time: 12/6/2026, 10:01:00 AM"),
        ("It is 22:31 now.", "It is 22:32:01.5 now."),
    ],
)
def test_clock_text_is_no_part_of_the_key(one: str, other: str) -> None:
    """Times and dates as agents write them; a cut that falls inside one masks it whole."""
    for lead in ("Be brief. ", "x" * 2040):
        keys = {conversation_key(opening(lead + stamp), {}, "c") for stamp in (one, other)}
        assert len(keys) == 1
    assert conversation_key(opening(one), {}, "c") != conversation_key(opening(one, CODE), {}, "c")


# Stamps as agents in other locales write them, each pair apart by a day, noon or an hour:
# `toLocaleString` and `toLocaleDateString` (its "full" style for the weekday), strftime's
# `%x` in the C and British locales and `%c` (`ctime`).
LOCALE_STAMPS = {
    "zh-CN": ("2026/12/7 23:59:58", "2026/12/8 00:00:03"),
    "zh-TW": ("2026/12/7 上午11:59:58", "2026/12/7 下午12:00:03"),
    "ja-JP": ("2026/12/7 9:05:03", "2026/12/07 10:05:03"),
    "ja-JP-12h": ("2026/12/7 午前11:59:58", "2026/12/7 午後0:00:03"),
    "ko-KR": ("2026. 12. 7. PM 11:59:58", "2026. 12. 8. AM 12:00:03"),
    "ko-KR-hangul": ("2026. 12. 7. 오후 11:59:58", "2026. 12. 8. 오전 12:00:03"),
    "hu-HU": ("2026. 12. 07. 9:05:03", "2026. 12. 08. 10:05:03"),
    "de-DE": ("7.12.2026, 23:59:58", "8.12.2026, 00:00:03"),
    "ru-RU": ("07.12.2026, 23:59:58", "08.12.2026, 00:00:03"),
    "cs-CZ": ("7. 12. 2026 9:05:03", "8. 12. 2026 10:05:03"),
    "nl-NL": ("7-12-2026, 23:59:58", "8-12-2026, 00:00:03"),
    "fi-FI": ("7.12.2026 klo 23.59.58", "8.12.2026 klo 0.00.03"),
    "da-DK": ("7.12.2026, 23.59.58", "8.12.2026, 00.00.03"),
    "id-ID": ("7/12/2026, 23.59.58", "8/12/2026, 00.00.03"),
    "zh-CN-full": ("2026年12月7日星期一", "2026年12月8日星期二"),
    "ja-JP-full": ("2026年12月7日月曜日", "2026年12月8日火曜日"),
    "ko-KR-full": ("2026년 12월 7일 월요일", "2026년 12월 8일 화요일"),
    "C-%x": ("Today is 12/07/26.", "Today is 12/08/26."),
    "en_GB-%x": ("Today is 07/12/26.", "Today is 08/12/26."),
    "ctime": ("Mon Dec  7 23:59:58 2026", "Tue Dec  8 00:00:03 2026"),
}


@pytest.mark.parametrize(("one", "other"), LOCALE_STAMPS.values(), ids=LOCALE_STAMPS)
def test_other_locales_clock_text_is_no_part_of_the_key(one: str, other: str) -> None:
    """Read as they were, their dates were kept (a time was masked only with an hour of two
    digits), and each day, or in some each noon, keyed a conversation anew."""
    test_clock_text_is_no_part_of_the_key(one, other)


@pytest.mark.parametrize("at", [2048 - 40, 2048 - 5, 2048 + 20, 2048 + 57])
def test_clocks_before_the_cut_do_not_move_it(at: int) -> None:
    """Seven log stamps early in the prompt, a time near the cut: masked first and cut
    after, the stamps pulled the cut forward, and a time they then split ("Now: 10") keyed
    every hour apart (found in review)."""
    stamps = "".join(f"2026-12-0{day}T08:00:00.000000 ok\n" for day in range(1, 8))
    lead = stamps + "x" * (at - len(stamps))
    times = ("10:20:30", "10:29:59", "11:05:00", "23:59:59")
    keys = {conversation_key(opening(f"{lead}Now: {time} end"), {}, "c") for time in times}
    assert len(keys) == 1


def test_no_clock_text_is_longer_than_its_span() -> None:
    """`clockless` reads `CLOCK_SPAN` characters past its cut to mask a clock across it whole:
    the pattern's widest match (every part bounded) must fit."""
    assert re._parser.parse(CLOCK_TEXT.pattern).getwidth()[1] <= CLOCK_SPAN


def opening(system: str, ask: str = ASK) -> dict[str, Any]:
    return {"messages": [{"role": "system", "content": system}, {"role": "user", "content": ask}]}
