"""A shadow reply that did not finish is a failed replay, not a disagreement.

Found in review: a vLLM shadow target that drops its requests (sleep, scale-down, restart)
ends them with `finish_reason: "abort"`, a 200 and `[DONE]`; the replay compared that
half answer as if finished, and every restart wrote false "disagree" rows (`code_parse`:
"live parses, shadow does not parse"), lowering the report's agreement and its advice. An
answer cut by the output limit is not the model's answer either, unless the live answer
was cut too (a client's small limit: both are what that client gets). Through a real router
and simulators, the rows read from the DuckDB ledger.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from classifier.intent import INTENTS
from router.ledger import Ledger
from router.shadow_reply import parse_reply
from tests.harness import config_for, router, sdk, send_json, simulator, upstream
from tests.shadow.shadow_status import shadow_counts, until

MATH = "What is 1234 + 4321?"  # live on the cloud, shadowed on local
CODE = "Write a Python function that reverses a list"  # live on local, shadowed on the cloud
SHORT = "The answer is \\boxed{5555}."  # 9 tokens (the simulator's words and marks)
LONG = (
    "Adding column by column: ones 1 + 4 is 5, tens 2 + 3 is 5, hundreds 3 + 2 is 5, "
    "thousands 4 + 1 is 5, so the sum is \\boxed{5555}."
)


def _replayed(r: Any) -> int:
    """How many replays ended: compared, or failed (`error`)."""
    counts = shadow_counts(r)
    return counts.get("compared", 0) + counts.get("dropped_error", 0)


def _rows(ledger_dir: Path) -> list[tuple[Any, ...]]:
    with Ledger(ledger_dir) as ledger:
        return ledger.sql(
            "SELECT shadow_error, agreed, method, shadow_tokens > 0 FROM shadow_comparisons"
        )


@pytest.mark.parametrize("intent", ["math", "coding"])
def test_a_shadow_the_engine_stopped_is_an_error_row(intent: str, tmp_path: Path) -> None:
    """Math live on the cloud, its shadow on a local vLLM that aborts; coding live on local,
    its shadow on a cloud that aborts (the review's `code_parse` case). Each row is a shadow
    error, left out of the agreement, counted as a failed replay (`error`); the tokens the
    aborted call took are still the shadow's spend."""
    local_fault = "abort" if intent == "math" else None
    cloud_fault = "abort" if intent == "coding" else None
    with (
        simulator(profile="cloud", model="cloud-model", fault=cloud_fault) as cloud,
        simulator(profile="vllm", model="local-model", fault=local_fault) as local,
    ):
        shadow = {"rates": {intent: 1.0}, "allow_cloud_targets": True}
        config = config_for({"local": local, "cloud": cloud}, tmp_path, shadow=shadow)
        with router(config) as r:
            prompt = MATH if intent == "math" else CODE
            reply = sdk(r, timeout=10).chat.completions.with_raw_response.create(
                model="auto", messages=[{"role": "user", "content": prompt}]
            )
            assert reply.headers["x-smf-intent"] == intent
            assert reply.parse().choices[0].finish_reason == "stop"  # the live answer
            until(lambda: _replayed(r) == 1)
            counts = shadow_counts(r)
            metrics = httpx.get(f"{r.root}/metrics", timeout=5).text
    assert _rows(tmp_path / "ledger") == [("unfinished: abort", None, "none", True)]
    assert counts.get("compared", 0) == 0
    assert 'smf_router_shadow_dropped_total{reason="error"} 1' in metrics


def _cut_config(cloud: Any, local: Any, tmp: Path) -> Any:
    """Every intent live on the cloud, math shadowed on local."""
    routes = {intent: ["cloud", "local"] for intent in INTENTS}
    return config_for(
        {"local": local, "cloud": cloud}, tmp, shadow={"rates": {"math": 1.0}}, routes=routes
    )


@pytest.mark.parametrize("stream", [False, True])
def test_a_shadow_cut_by_the_limit_the_live_answer_kept_is_an_error_row(
    stream: bool, tmp_path: Path
) -> None:
    """The live answer finished within the client's `max_tokens`; the shadow's, longer, was
    cut by it (`length`): no answer to compare, not a disagreement."""
    with (
        simulator(profile="cloud", model="cloud-model", replies={MATH: SHORT}) as cloud,
        simulator(profile="vllm", model="local-model", replies={MATH: LONG}) as local,
        router(_cut_config(cloud, local, tmp_path)) as r,
    ):
        body = {"model": "auto", "messages": [{"role": "user", "content": MATH}]}
        reply = httpx.post(
            f"{r.url}/chat/completions",
            json={**body, "max_tokens": 12, "stream": stream},
            timeout=10,
        )
        assert reply.status_code == 200 and reply.headers["x-smf-backend"] == "cloud"
        until(lambda: _replayed(r) == 1)
        counts = shadow_counts(r)
    assert _rows(tmp_path / "ledger") == [("unfinished: length", None, "none", True)]
    assert counts.get("compared", 0) == 0 and counts["dropped_error"] == 1


# Each API's request cut by its own limit, live (its client got `length`, `max_tokens`, or
# an `incomplete` response for `max_output_tokens`) and shadow (asked in chat) alike.
CUT_BOTH = {
    "chat/completions": {"messages": [{"role": "user", "content": MATH}], "max_tokens": 12},
    "messages": {"messages": [{"role": "user", "content": MATH}], "max_tokens": 12},
    "responses": {"input": MATH, "max_output_tokens": 12},
}


def test_both_answers_cut_by_the_clients_limit_are_compared(tmp_path: Path) -> None:
    """Where the live answer was cut by the limit too, the two cut answers are what the
    client gets from each backend: compared as before, in every API the shadow mirrors."""
    with (
        simulator(profile="cloud", model="cloud-model", replies={MATH: LONG}) as cloud,
        simulator(profile="vllm", model="local-model", replies={MATH: LONG}) as local,
        router(_cut_config(cloud, local, tmp_path)) as r,
    ):
        for path, body in CUT_BOTH.items():
            reply = httpx.post(f"{r.url}/{path}", json={"model": "auto", **body}, timeout=10)
            assert reply.status_code == 200 and reply.headers["x-smf-backend"] == "cloud"
        until(lambda: _replayed(r) == len(CUT_BOTH))
        counts = shadow_counts(r)
    rows = _rows(tmp_path / "ledger")
    assert [row[0] for row in rows] == [None] * len(CUT_BOTH)
    assert counts["compared"] == len(CUT_BOTH) and counts.get("dropped_error", 0) == 0


class _Choices(BaseHTTPRequestHandler):
    """A chat backend answering `n` choices, each ending as `reasons` say (a "length" one cut
    short, a "stop" one whole); it keeps the `n` each request asked for."""

    reasons: ClassVar[list[str]] = []
    asked: ClassVar[list[int]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        self.asked.append(body.get("n", 1))
        choices = [
            {
                "index": i,
                "message": {"role": "assistant", "content": SHORT if said == "stop" else "The"},
                "finish_reason": said,
            }
            for i, said in enumerate(self.reasons[: body.get("n", 1)])
        ]
        usage = {"prompt_tokens": 9, "completion_tokens": 9, "total_tokens": 18}
        reply = {"id": "c", "object": "chat.completion", "created": 0, "model": body["model"]}
        send_json(self, 200, json.dumps({**reply, "choices": choices, "usage": usage}).encode())

    def log_message(self, *args: object) -> None:
        pass


class _Live(_Choices):
    pass


class _Shadow(_Choices):
    pass


@pytest.mark.parametrize(
    ("live", "shadow", "row"),
    [
        # another shadow choice cut by the limit made a failed replay of a whole first one
        (["stop", "stop"], ["stop", "length"], (None, True, "final_answer")),
        # another live choice cut by the limit said the compared one was cut, and a cut
        # shadow answer was compared with a whole live one
        (["stop", "length"], ["length", "stop"], ("unfinished: length", None, "none")),
    ],
)
def test_only_the_first_choice_is_replayed_and_its_reason_decides(
    live: list[str], shadow: list[str], row: tuple[Any, ...], tmp_path: Path
) -> None:
    """A client's `n: 2`: the first choice alone is compared, so the replay asks for one
    (it asked for two, paid for one never read) and the first choice's finish reason
    decides on each side (every choice's did)."""
    _Live.reasons, _Shadow.reasons = live, shadow
    _Live.asked, _Shadow.asked = [], []
    with (
        upstream(_Live) as cloud,
        upstream(_Shadow) as local,
        router(_cut_config(cloud, local, tmp_path)) as r,
    ):
        reply = sdk(r, timeout=10).chat.completions.create(
            model="auto", n=2, messages=[{"role": "user", "content": MATH}]
        )
        assert [c.finish_reason for c in reply.choices] == live
        until(lambda: _replayed(r) == 1)
    assert _rows(tmp_path / "ledger") == [(*row, True)]
    assert (_Live.asked, _Shadow.asked) == ([2], [1])


@pytest.mark.parametrize(
    ("reasons", "unfinished"),
    [(["stop", "length"], None), (["stop", "abort"], None), (["length", "stop"], "length")],
)
def test_a_reply_with_more_choices_than_asked_is_read_by_its_first(
    reasons: list[str], unfinished: str | None
) -> None:
    """A backend that ignores `n: 1`: the first choice, the one compared, says whether the
    answer finished; the span still gets every choice's reason."""
    choices = [
        {"index": i, "message": {"content": SHORT}, "finish_reason": said}
        for i, said in enumerate(reasons)
    ]
    read = parse_reply(json.dumps({"choices": choices}).encode())
    assert read.unfinished(live_cut=False) == (unfinished and f"unfinished: {unfinished}")
    assert read.finish_reasons == tuple(reasons)


@pytest.mark.parametrize(
    ("live", "shadow", "compared"),
    [(["stop"], ["model_length"], False), (["model_length"], ["length"], True)],
)
def test_mistrals_model_length_is_a_cut_as_length_is(
    live: list[str], shadow: list[str], compared: bool, tmp_path: Path
) -> None:
    """Mistral's `model_length` (the context window cut the answer) read as an end: a cut
    shadow answer was compared with a whole live one, and a live answer so cut was not
    known to be cut, so a shadow cut by the limit was a failed replay."""
    _Live.reasons, _Shadow.reasons = live, shadow
    with (
        upstream(_Live) as cloud,
        upstream(_Shadow) as local,
        router(_cut_config(cloud, local, tmp_path)) as r,
    ):
        reply = sdk(r, timeout=10).chat.completions.create(
            model="auto", messages=[{"role": "user", "content": MATH}]
        )
        assert [c.finish_reason for c in reply.choices] == live
        until(lambda: _replayed(r) == 1)
    [row] = _rows(tmp_path / "ledger")
    if compared:  # both cut: what the client gets from each ("The": no answer to agree on)
        assert row == (None, None, "final_answer", True)
    else:
        assert row == ("unfinished: model_length", None, "none", True)
