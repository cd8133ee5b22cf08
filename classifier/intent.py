"""The intent vocabulary: the seven kinds of work a request can be, shared with smf-bench."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Label = Literal["coding", "tool_calling", "math", "reasoning", "instruction", "prose", "writing"]
Source = Literal["rule", "model", "default", "forced"]

INTENTS: tuple[Label, ...] = get_args(Label)


@dataclass(frozen=True, slots=True)
class Intent:
    """What a request asks for, how sure we are, and what decided it."""

    label: Label
    confidence: float
    source: Source
