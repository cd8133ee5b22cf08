"""Settings for the whole suite.

Hypothesis draws new examples on every run, which is how a developer's `make test` finds
inputs nobody wrote down (a content block whose `type` is a list, found so). CI runs
`.ci/run` once on a clean clone and its verdict decides whether the work lands, so there
the draws are derandomized (`HYPOTHESIS_PROFILE=ci`): the same examples every run, and an
input found locally is kept as an `@example` of its test.

Every test talks to 127.0.0.1 alone, so a proxy set in the environment (`HTTP_PROXY`,
`ALL_PROXY`) is bypassed there for the whole suite: a test's bare `httpx.get` and the
servers it starts read `NO_PROXY` as `trust_env` clients, and sent through a developer's
proxy, 17 tests of three files failed (found in review). The loopback names are added to
the names already set, never in their place.
"""

from __future__ import annotations

import os

from hypothesis import settings

LOOPBACK = ("127.0.0.1", "localhost")


def bypass_proxies_for_loopback() -> None:
    """Add `LOOPBACK` to `NO_PROXY` and `no_proxy`, each set to the names either held (the
    lowercase one wins where both are set: urllib's `getproxies_environment`, which httpx
    reads)."""
    names: list[str] = []
    for variable in ("NO_PROXY", "no_proxy"):
        for name in os.environ.get(variable, "").split(","):
            if name.strip() and name.strip() not in names:
                names.append(name.strip())
    names += [name for name in LOOPBACK if name not in names]
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = ",".join(names)


bypass_proxies_for_loopback()
settings.register_profile("ci", derandomize=True, database=None)
if profile := os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(profile)
