"""Intent classification: what kind of work a chat request asks for. Pure, no I/O per call."""

from classifier.decision import classify, explain
from classifier.intent import INTENTS, Intent, Label

__all__ = ["INTENTS", "Intent", "Label", "classify", "explain"]
