"""What a long-lived feature reads afresh on each use, so that it follows a hot reload.

In a router, the canary and the shadow are given sources such as `lambda: components.config`
and read them per run or per job; a one-shot command or a test gives plain values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def source(value: T | Callable[[], T]) -> Callable[[], T]:
    """The source itself, or a source that always gives the plain value."""
    if callable(value):
        return value
    return lambda: value
