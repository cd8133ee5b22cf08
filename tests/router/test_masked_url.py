"""`evals.urls.masked_url`, the form a URL is shown or stored in (the OTLP endpoint in the
startup log, a judge's endpoint, a results file): no part of a password or a query's
secret may show, whatever the URL holds, checked or not (`check_url` refuses an `@` after
the host part; the OTLP endpoint is never checked)."""

from __future__ import annotations

import pytest

from evals.urls import masked_url

# (url, what must never show, its masked form)
CASES = [
    ("https://gw.example/v1?user=a@b.com", ["a@b", "b.com"], "https://gw.example/v1?user=***"),
    (  # taking the last @ for user info's end showed `https://***@RETTAIL`
        "https://gw.example/v1?api-key=SEC@RETTAIL",
        ["SEC", "RET"],
        "https://gw.example/v1?api-key=***",
    ),
    (
        "https://gw.example/v1?api-key=SECRET&email=me@corp.com",
        ["SECRET", "me@", "corp"],
        "https://gw.example/v1?api-key=***&email=***",
    ),
    (
        "http://collector:4318/v1/traces?token=abc@def123",
        ["abc", "def123"],
        "http://collector:4318/v1/traces?token=***",
    ),
    (
        "https://res.openai.azure.com/openai/deployments/gpt4o?api-version=2024-10-21",
        [],
        "https://res.openai.azure.com/openai/deployments/gpt4o?api-version=***",
    ),
    ("https://user%40corp.com:pw@host/v1", ["user", "corp", "pw"], "https://***@host/v1"),
    ("https://user:p%40ss@host/v1", ["user", "ss"], "https://***@host/v1"),
    ("http://a@b@host/v1", ["a@", "b@"], "http://***@host/v1"),
    ("http://u:p@[::1]:8000/v1?x=a@b", ["u:p", "a@b"], "http://***@[::1]:8000/v1?x=***"),
    ("http://[::1]:8000/v1?x=SECRET@b", ["SECRET"], "http://[::1]:8000/v1?x=***"),
    ("host/v1?x=a@b", ["a@b"], "host/v1?x=***"),
    ("//u:p@host/v1", ["u:p"], "//***@host/v1"),
    ("http://h/v1#frag@x", ["frag"], "http://h/v1#***"),
    ("http://h/v1#TopSecret", ["TopSecret"], "http://h/v1#***"),
    ("https://h/v1?Top@Secret", ["Top", "Secret"], "https://h/v1?***=***"),  # a key with an @
    ("https://h/v1?k=v@h:99999", ["v@h", "99999"], "https://h/v1?k=***"),
    ("https://h/v1?k=v@[zz", ["v@", "zz"], "https://h/v1?k=***"),
    # user info cut short by an unencoded / # ? in the password: only the scheme shows
    ("http://user:1234#TopSecret@127.0.0.1/v1", ["1234", "TopSecret"], "http://***"),
    ("http://user:1234?TopSecret@127.0.0.1/v1", ["1234", "TopSecret"], "http://***"),
    ("http://user:1234/TopSecret@127.0.0.1/v1", ["1234", "TopSecret"], "http://***"),
    ("http://user:pw@host/v1/@models", ["pw"], "http://***"),
    ("http://user:1234/abc@host/v1?k=SEC@RET", ["1234", "abc", "SEC", "RET"], "http://***"),
    ("http://user:1234#pa@ss@host/v1", ["1234", "pa", "ss"], "http://***"),
    ("user:1234/abc@host/v1", ["1234", "abc"], "***"),
]


@pytest.mark.parametrize(("url", "secrets", "shown"), CASES)
def test_a_masked_url_shows_no_secret(url: str, secrets: list[str], shown: str) -> None:
    """Found in re-review: a query's `@` was taken for the end of user info, so all after
    it showed; a query key holding an `@` and a fragment showed whole."""
    masked = masked_url(url)
    assert [s for s in secrets if s in masked] == [], masked
    assert masked == shown
