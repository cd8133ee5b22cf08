"""Intent classification: what kind of work a chat request asks for. Pure, no I/O per call.

`classify(body)` and `explain(body)` take a chat-completions body; the router translates
Messages and Responses bodies to one first (`router.translate.view.chat_view`).
"""

from classifier.decision import classify, explain
from classifier.intent import INTENTS, Intent, Label

__all__ = ["INTENTS", "Intent", "Label", "classify", "explain"]
