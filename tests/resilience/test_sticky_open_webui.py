"""Open WebUI's chats: one conversation each, by the chat id it forwards. Open WebUI sends no
`user`, no session id and no `prompt_cache_key`; keyed by their opening, twelve chats that
began with one question were one ledger conversation, and one chat's pin held the later
ones (found in a review of Open WebUI 0.12.4). With `ENABLE_FORWARD_USER_INFO_HEADERS=true`
it sends `X-OpenWebUI-Chat-Id` on every turn and on the chat's title request
(`open_webui.utils.headers.get_headers_and_cookies`). Through a live router, simulators,
the official `openai` SDK and the router's DuckDB ledger."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from router.ledger import Ledger
from tests.harness import Collect, RunningRouter, config_for, router, simulator
from tests.open_webui_tasks import task_body
from tests.resilience.conftest import FAST, until

MATH = "What is the integral of x^2 from 0 to 3? Show each step."  # the cloud first
CODE = "Write a Python function that reverses a linked list, with unit tests."  # local first
ONE, TWO = (
    "6f1c2a9e-0b7d-4c1e-9a51-1f2e3d4c5b6a",
    "0d9e8f7a-6b5c-4d3e-8f21-a0b1c2d3e4f5",
)  # chat ids
CHAT = "x-openwebui-chat-id"  # Open WebUI's FORWARD_SESSION_INFO_HEADER_CHAT_ID default
# Open WebUI's title task (DEFAULT_TITLE_GENERATION_PROMPT_TEMPLATE), the chat's history in it
TITLE = (
    "### Task:\nGenerate a concise title summarizing the chat history.\n### Guidelines:\n"
    "- Keep it short: 2-4 words is best.\n### Output:\n"
    'JSON format: { "title": "your concise title here" }\n### Chat History:\n'
    f"<chat_history>\nUSER: {MATH}\nASSISTANT: 9.\n</chat_history>"
)


class Proxy:
    """A router before a local and a cloud simulator, writing a ledger."""

    def __init__(self, running: RunningRouter, collect: Collect, ledger: Path) -> None:
        self.running, self.collect, self.ledger = running, collect, ledger
        self.client = openai.OpenAI(base_url=running.url, api_key="none", max_retries=0)

    def turn(self, chat: str, *asks: str, cache_key: str | None = None) -> tuple[str, str]:
        """One `model: auto` turn of Open WebUI chat `chat` whose user asked `asks` so far
        (with `prompt_cache_key` `cache_key`, set as a model's custom parameter): the backend
        that served it and its request id, once its record finished."""
        finished = len(self.collect.records)
        extra = {"prompt_cache_key": cache_key} if cache_key else None
        raw = self.client.chat.completions.with_raw_response.create(
            model="auto",
            max_tokens=20,
            messages=chat_of(*asks),
            extra_headers={CHAT: chat},
            extra_body=extra,
        )
        raw.parse()
        until(lambda: len(self.collect.records) > finished, what="the record finished")
        return raw.headers["x-smf-backend"], raw.headers["x-request-id"]

    def explained(self, chat: str, *asks: str) -> tuple[str, str]:
        """The backend `POST /v1/router/explain` puts first for chat `chat`'s turn, and why."""
        body = {"model": "auto", "messages": chat_of(*asks)}
        reply = httpx.post(
            f"{self.running.root}/v1/router/explain", json=body, headers={CHAT: chat}, timeout=30
        )
        first = reply.raise_for_status().json()["backends"][0]
        return first["backend"], first["reason"]

    def conversations(self, *request_ids: str) -> list[str]:
        """The ledger's conversation column of each request, in the order asked."""
        rows = dict(Ledger(self.ledger).sql("select request_id, conversation from records"))
        return [str(rows[request_id]) for request_id in request_ids]


def chat_of(*asks: str) -> list[dict[str, Any]]:
    """A chat's messages whose user asked `asks` so far, each answered but the last."""
    messages: list[dict[str, Any]] = []
    for ask in asks:
        messages += [{"role": "assistant", "content": "9."}] if messages else []
        messages.append({"role": "user", "content": ask})
    return messages


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[Proxy]:
    ledger = {"path": str(tmp_path / "ledger"), "flush_interval_s": 0.2}
    with (
        simulator(profile="vllm", model="local-model") as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        servers = {"local": local, "cloud": cloud}
        config = config_for(servers, tmp_path, resilience=FAST, ledger=ledger)
        with router(config) as running:
            collect = Collect()  # after the resilience sink: a record it holds, the table has seen
            running.components.gateway.sinks.append(collect)
            yield Proxy(running, collect, tmp_path / "ledger")


def test_two_chats_with_one_first_question_are_two_conversations(proxy: Proxy) -> None:
    first, first_id = proxy.turn(ONE, MATH)
    assert first == "cloud"
    # another chat opening alike is not pinned by the first (it was, as one conversation)
    assert proxy.explained(TWO, MATH, CODE) == ("local", "route")
    _, other_id = proxy.turn(TWO, MATH)
    later, later_id = proxy.turn(ONE, MATH, CODE)
    assert later == "cloud"  # a coding turn of the math chat: it sticks
    title = proxy.client.chat.completions.with_raw_response.create(
        model="auto",
        messages=[{"role": "user", "content": TITLE}],
        extra_headers={CHAT: ONE},
    )
    title.parse()
    title_id = title.headers["x-request-id"]
    until(lambda: len(proxy.collect.records) >= 4, what="the title's record finished")
    until(lambda: len(rows(proxy)) >= 4, what="the ledger holds every request")
    one, other, turn, titled = proxy.conversations(first_id, other_id, later_id, title_id)
    assert one == turn == titled  # the chat's turns and its title
    assert other != one
    assert ONE not in str(Ledger(proxy.ledger).sql("select * from records"))  # hashed, never raw


def test_a_later_follow_ups_task_is_its_chats_without_the_chat_id(proxy: Proxy) -> None:
    """Without the chat id, a conversation is keyed by its first ask: a follow-ups task read
    by its history's first "USER:" turn, which is the chat's opening on its second turn
    (`classifier.open_webui`), is the chat's conversation, and its pin holds; keyed by the
    latest turn, it was one of its own (found in review)."""
    client = proxy.client
    first = client.chat.completions.with_raw_response.create(
        model="auto", max_tokens=20, messages=chat_of(MATH)
    )
    assert first.headers["x-smf-backend"] == "cloud"
    later = client.chat.completions.with_raw_response.create(
        model="auto", max_tokens=20, messages=chat_of(MATH, CODE)
    )
    assert later.headers["x-smf-backend"] == "cloud"  # the math chat's pin
    body = task_body(
        "follow_ups", [("user", MATH), ("assistant", "9."), ("user", CODE), ("assistant", "9.")]
    )
    task = client.chat.completions.with_raw_response.create(**body)
    task.parse()
    assert task.headers["x-smf-backend"] == "cloud"
    until(lambda: len(rows(proxy)) >= 3, what="the ledger holds every request")
    ids = (
        first.headers["x-request-id"],
        later.headers["x-request-id"],
        task.headers["x-request-id"],
    )
    assert len(set(proxy.conversations(*ids))) == 1


def test_temporary_chats_key_by_their_opening_and_their_tab(proxy: Proxy) -> None:
    """A temporary chat's id is `temporary:` and the browser tab's socket id, the same for
    each temporary chat the tab opens: as a session id, a tab's math chat would pin its
    later chats of any intent. Keyed by the opening and the tab, two tabs (two users)
    opening alike are two conversations, and a tab's chats with other openings too."""
    _, math_id = proxy.turn("temporary:tab-one", MATH)
    _, code_id = proxy.turn("temporary:tab-one", CODE)
    _, other_tab_id = proxy.turn("temporary:tab-two", MATH)
    _, again_id = proxy.turn("temporary:tab-one", MATH, CODE)
    until(lambda: len(rows(proxy)) >= 4, what="the ledger holds every request")
    math, code, other_tab, again = proxy.conversations(math_id, code_id, other_tab_id, again_id)
    assert math == again  # one chat's turns
    assert len({math, code, other_tab}) == 3


def test_temporary_chats_of_a_model_with_a_fixed_cache_key_stay_apart(proxy: Proxy) -> None:
    """A `prompt_cache_key` set as a model's custom parameter in Open WebUI is one value for
    every chat of the model: taken as a temporary chat's session id, every tab's temporary
    chats were one conversation, and one user's pin steered the others' (found in review)."""
    _, math_id = proxy.turn("temporary:tab-one", MATH, cache_key="fixed")
    _, code_id = proxy.turn("temporary:tab-two", CODE, cache_key="fixed")
    _, again_id = proxy.turn("temporary:tab-one", MATH, CODE, cache_key="fixed")
    until(lambda: len(rows(proxy)) >= 3, what="the ledger holds every request")
    math, code, again = proxy.conversations(math_id, code_id, again_id)
    assert math == again != code


def rows(proxy: Proxy) -> list[Any]:
    """The ledger's records so far."""
    return Ledger(proxy.ledger).sql("select request_id from records")
