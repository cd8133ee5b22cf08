"""A pathological answer costs a comparison bounded work and never stalls the router.

Found in review: 35 KB of unclosed `\\boxed{` made the box search quadratic, and the math
comparison ran on the event loop: the router answered nothing, /healthz included, for 27 s.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx

from router import comparison
from router.comparison import Reply, compare, final_answer
from tests.harness import config_for, router, simulator
from tests.shadow.shadow_status import comparison_rows

STALL = "\\boxed{" * 5000  # 35 KB: the reviewer's input


class CountedText(str):
    """A text that counts the characters read out of it by indexing or slicing."""

    read = 0

    def __getitem__(self, key: Any) -> str:
        got = str.__getitem__(self, key)
        CountedText.read += len(got)
        return got


def test_unclosed_boxes_are_read_in_one_pass() -> None:
    """The old search scanned from every `\\boxed{` to the end: 300 of them read ~315,000
    characters of a 2,100-character text."""
    for text in ("\\boxed{" * 300, "\\boxed{" * 300 + "7}", "{" * 300 + "\\boxed{7}"):
        CountedText.read = 0
        final_answer(CountedText(text))
        assert CountedText.read <= len(text), text[-20:]
    assert final_answer("\\boxed{" * 300 + "7}") == "7"


def test_an_answer_too_long_to_compare_is_undecided() -> None:
    long = Reply("\\boxed{5}" + "x" * comparison.MAX_COMPARED_CHARS)
    result = compare("math", {}, long, Reply("\\boxed{5}"))
    assert (result.agreed, result.method) == (None, "too_long")


def test_deep_code_costs_a_verdict_not_the_comparison() -> None:
    """`x+x+...` is too deep for Python's parser (RecursionError escaped the comparison)."""
    deep = Reply("```python\nx = 1" + "+x" * 60_000 + "\n```")
    ok = Reply("```python\nx = 1\n```")
    result = compare("coding", {}, deep, ok)
    assert (result.agreed, result.method) == (False, "code_parse")


def test_the_router_answers_while_it_compares_a_pathological_answer(tmp_path: Path) -> None:
    """Live in the cloud answers 35 KB of `\\boxed{`; the local shadow answers plainly. Every
    probe sent while the shadow is replayed and compared is answered (the old router held
    each for the whole stall, past the client's bound), and the comparison is written."""
    prompt = "What is 1234 + 4321?"
    question = {"model": "auto", "messages": [{"role": "user", "content": prompt}]}
    with (
        simulator(profile="cloud", model="cloud-model", replies={prompt: STALL}) as cloud,
        simulator(model="local-model", replies={prompt: "It is \\boxed{5555}."}) as local,
    ):
        config = config_for(
            {"local": local, "cloud": cloud}, tmp_path, shadow={"rates": {"math": 1.0}}
        )
        with router(config) as r, httpx.Client(timeout=10, trust_env=False) as client:
            live = client.post(f"{r.url}/chat/completions", json=question)
            assert live.headers["x-smf-backend"] == "cloud"
            assert json.loads(live.content)["choices"][0]["message"]["content"] == STALL
            compared = 0
            for _ in range(400):  # every probe answered; until the comparison is done
                assert client.get(f"{r.root}/healthz").status_code == 200
                status = client.get(f"{r.root}/v1/router/status").json()["extra"]["shadow"]
                compared = status["counts"].get("compared", 0)
                if compared:
                    break
                time.sleep(0.05)
            assert compared == 1
    assert comparison_rows(tmp_path / "ledger") == [
        (False, "final_answer", "only one side has a final answer")
    ]
