"""Intent classification: what kind of work a chat request asks for. Pure, no I/O."""

from classifier.intent import INTENTS, Intent, Label
from classifier.standin import classify

__all__ = ["INTENTS", "Intent", "Label", "classify"]
