"""`evals.redaction` reads a text in time linear in its length: its patterns had a
look-ahead (or a `[^\\s=]*`) read to the end of the run from each start, and an upstream's
400 quoting a client's 60 KB prompt held the event loop for 24 s (found in review).

Each text is cleaned in a subprocess with a timeout: a hang guard, not a timing (the old
patterns take minutes on these 256 KiB; the linear ones a few milliseconds).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import router
from router.upstream_errors import MAX_ERROR_BYTES, in_band

N = 256 * 1024
ROOT = Path(router.__file__).resolve().parent.parent
HANG_GUARD_S = 20
CLEAN = "import sys, json; from evals.redaction import redacted; " + (
    "print(json.dumps(redacted(sys.stdin.read(), ['gw-7f3a9c2e1b5d-router-key'])))"
)


def _cleaned(text: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", CLEAN],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=HANG_GUARD_S,
        check=True,
    )
    return str(json.loads(done.stdout))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("?" * N, "?" * N),  # no `=`: no query
        ("a?" * (N // 2), "a?" * (N // 2)),
        ("?" * N + "key=S3cr3t", "?" * N + "***"),  # the query still masked, from its `?`
        ("api_key=" * (N // 8), "api_key=" * (N // 8)),  # no digit: prose
        ("api_key=" * (N // 8) + "1", "api_key=***"),
        ("sk-" * (N // 3), "sk-" * (N // 3)),
        ("sk-" * (N // 3) + "1", "***"),
        ("Bearer " + "a" * N, "Bearer " + "a" * N),
        ("Bearer " + "a" * N + "1", "Bearer ***"),
        ("x-api-key: " * (N // 11) + "k1", "x-api-key: " * (N // 11 - 1) + "x-api-key: ***"),
    ],
    ids=["?", "a?", "?key=", "api_key=", "api_key=1", "sk-", "sk-1", "Bearer", "Bearer1", "x-key"],
)
def test_an_adversarial_text_is_cleaned_in_one_pass(text: str, shown: str) -> None:
    assert _cleaned(text) == shown


def test_an_in_band_message_is_cut_before_it_is_cleaned() -> None:
    key = "sk-proj-abcdefgh12345678"
    prompt = "x " * (MAX_ERROR_BYTES // 2 - 4) + key + " tail" * 50_000
    error = in_band("chat", {"type": "BadRequestError", "message": prompt, "code": 400}, "b")
    message = error.body()["error"]["message"]
    assert len(message) <= MAX_ERROR_BYTES
    assert "abcdefgh" not in message  # the key the cut went through is masked, not its head


def test_a_key_across_the_slice_an_in_band_message_is_cleaned_from_is_masked() -> None:
    """Twice `MAX_ERROR_BYTES` of the message are cleaned: a key across that slice was cut
    before cleaning, and cleaning the key-like text before it shortened the text under its
    own cut, so the key's head (24 of 26 characters) reached the client."""
    secret = "gw-7f3a9c2e1b5d-router-key"
    filler = "sk-" + "a1" * 30 + " "
    before = filler * ((2 * MAX_ERROR_BYTES - 24) // len(filler))
    before += "." * (2 * MAX_ERROR_BYTES - 24 - len(before))
    error = in_band("chat", {"message": before + secret + " more"}, "b", [secret])
    message = error.body()["error"]["message"]
    assert "gw-7f3a9c2e" not in message and message.endswith("***")
