"""The intent vocabulary: the seven kinds of work a request can be, shared with smf-bench."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Label = Literal["coding", "tool_calling", "math", "reasoning", "instruction", "prose", "writing"]
# What a request the classifier read nothing in is reported as (source `default`): it takes
# the default route, and naming one of the seven would count it as work it was not. Not a
# `Label`: routes, floors and shadow rates stay keyed by the seven.
Unread = Literal["unknown"]
Source = Literal["rule", "model", "default", "forced"]

INTENTS: tuple[Label, ...] = get_args(Label)
UNREAD: Unread = "unknown"


@dataclass(frozen=True, slots=True)
class Intent:
    """What a request asks for, how sure we are, and what decided it; and whether it is a
    side request of its app's (`classifier.side_request`: a title call, a background task, a
    framework's call that picks who does the work), which the router lets pin nothing of its
    conversation (`router.sticky_pins`)."""

    label: Label | Unread
    confidence: float
    source: Source
    side_request: bool = False
