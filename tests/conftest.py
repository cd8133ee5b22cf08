"""Settings for the whole suite.

Hypothesis draws new examples on every run, which is how a developer's `make test` finds
inputs nobody wrote down (a content block whose `type` is a list, found so). CI runs
`.ci/run` once on a clean clone and its verdict decides whether the work lands, so there
the draws are derandomized (`HYPOTHESIS_PROFILE=ci`): the same examples every run, and an
input found locally is kept as an `@example` of its test.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
if profile := os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(profile)
