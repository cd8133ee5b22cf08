"""An exhausted plan's advice and words come from all of its attempts, whatever their order
(`router.plan_error.most_meaningful`, `router.api.errors.error_headers`).

Found in re-review: `x-should-retry` was decided on the one error told, so local's 500 and
the cloud refusing the router's key said nothing (the SDK retried) in one order and `false`
in the other, and the refusal told hid local's 500. The pure core, as the dispatcher calls
it: the errors of each attempt, in the plan's order, then the headers they answer with.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from router.api.errors import error_headers
from router.attempt_errors import (
    Cut,
    Overloaded,
    RouterFault,
    ServerError,
    Timeout,
    Uncarried,
    Unreachable,
    UpstreamError,
)
from router.backend_refused import BackendRefused
from router.blame import before_commit
from router.dispatch import _status_said
from router.errors import InvalidValue
from router.plan_error import BRIEF_CHARS, most_meaningful
from router.record import Attempt, Record

Make = Callable[[], UpstreamError]
FAST: dict[str, Make] = {
    "500@local": lambda: ServerError("Internal Server Error", backend="local"),
    "reset@local": lambda: Unreachable("local: connection reset", backend="local"),
    "cut@local": lambda: Cut("local: stream ended before its first token", backend="local"),
    # vLLM's queue-full 503 names no wait: retried against vLLM itself (found live)
    "overloaded@local": lambda: Overloaded("The engine is currently busy", backend="local"),
}
SLOW: dict[str, Make] = {
    "refused@cloud": lambda: BackendRefused("cloud", 401),
    "timeout@cloud": lambda: Timeout("cloud: no first token in time", backend="cloud"),
    "bug@cloud": lambda: RouterFault("cloud"),
}


def advice(*made: Make) -> str | None:
    """The `x-should-retry` the plan whose attempts failed so, in this order, answers with."""
    return error_headers(most_meaningful([make() for make in made])).get("x-should-retry")


@pytest.mark.parametrize("fast", list(FAST))
@pytest.mark.parametrize("slow", list(SLOW))
def test_one_attempt_that_did_not_fail_fast_says_false_in_either_order(
    fast: str, slow: str
) -> None:
    assert (advice(FAST[fast], SLOW[slow]), advice(SLOW[slow], FAST[fast])) == ("false", "false")


def test_every_attempt_failing_fast_leaves_the_retry_to_the_sdk_in_either_order() -> None:
    cloud: Make = lambda: ServerError("Bad Gateway", backend="cloud")  # noqa: E731
    for fast in FAST.values():
        assert advice(fast) is None
        assert advice(fast, cloud) is None and advice(cloud, fast) is None


def test_a_refusal_told_names_the_other_backends_failure() -> None:
    """The cloud refusing the router, local's 500 after it: the refusal in its own words,
    then local's; so for a bug of ours, which keeps its own words."""
    refused = most_meaningful([BackendRefused("cloud", 401), FAST["500@local"]()])
    assert refused.message.startswith("backend 'cloud' refused the router (401")
    assert refused.message.endswith("; local: Internal Server Error")
    bug = most_meaningful([RouterFault("cloud"), FAST["500@local"]()])
    assert bug.message == "internal router error; the request was not completed; local: " + (
        "Internal Server Error"
    )


def test_another_backends_failure_is_cut_to_brief_chars() -> None:
    """A long error page of the cloud's is told in `BRIEF_CHARS` (160, as docs/dispatch.md
    says), ending in "..."; one that fits is told whole."""
    page = "x" * 400
    told = most_meaningful([FAST["500@local"](), ServerError(page, backend="cloud")]).message.split(
        "; ", 1
    )[1]
    assert BRIEF_CHARS == 160
    assert told == "cloud: " + "x" * (BRIEF_CHARS - len("cloud: ") - 3) + "..."
    assert len(told) == BRIEF_CHARS
    fits = "y" * (BRIEF_CHARS - len("cloud: "))
    whole = most_meaningful([FAST["500@local"](), ServerError(fits, backend="cloud")])
    assert whole.message == f"local: Internal Server Error; cloud: {fits}"


def test_an_overloads_long_wait_not_told_leaves_the_retry_to_the_sdk() -> None:
    """Local busy with no wait named, the cloud for 90 s: no wait is told (local may take
    the request any moment, `_soonest`) and the SDK retries on its own rule, in either
    order; a wait told keeps its own advice (`false` from a minute, `true` under it)."""
    busy: Make = lambda: Overloaded("busy", backend="local")  # noqa: E731
    long: Make = lambda: Overloaded("busy", backend="cloud", retry_after=90.0)  # noqa: E731
    short: Make = lambda: Overloaded("busy", backend="cloud", retry_after=5.0)  # noqa: E731
    assert (advice(busy, long), advice(long, busy)) == (None, None)
    assert (advice(long), advice(short), advice(busy, short)) == ("false", "true", "true")


def uncarried(backend: str) -> Uncarried:
    refusal = InvalidValue("Invalid value for 'input[0].type'", param="input[0].type")
    return Uncarried(refusal, backend)


def test_an_uncarried_type_records_no_status_of_the_backend_never_sent_it() -> None:
    """The router refused the body before sending it: a 400 recorded as the attempt's status
    named that backend on the request span as if it had answered (found in review)."""
    assert _status_said(uncarried("local"), None) is None


def test_a_chat_backends_uncarried_type_is_told_only_when_no_other_backend_failed() -> None:
    """A chat backend cannot be sent a type (`Uncarried`); a native backend after it failed
    otherwise: the client is told the native backend's failure, which its SDK may retry,
    in either order, not a 400 it would not. Every backend refusing it: the 400."""
    for first in (True, False):
        errors = [uncarried("cloud"), FAST["500@local"]()]
        told = most_meaningful(errors if first else errors[::-1])
        assert (told.status, told.backend, error_headers(told).get("x-should-retry")) == (
            502,
            "local",
            None,
        )
    both = most_meaningful([uncarried("cloud"), uncarried("other")])
    assert (both.status, both.body()["error"]["param"]) == (400, "input[0].type")


def test_a_request_no_chat_backend_could_carry_is_the_clients_error() -> None:
    """Two chat backends each refusing the type: the plan moved on past the first, but no
    backend failed; the request is the client's to fix, as when one backend refused it."""
    record = Record(request_id="r", started_at=0.0, api="responses")
    record.attempts = [
        Attempt("cloud", "cloud", "error", "rejected", status=400),
        Attempt("other", "cloud", "error", "rejected", status=400),
    ]
    assert before_commit(uncarried("other"), record) == ("client_error", "rejected")
