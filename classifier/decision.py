"""`classify()` and `explain()`: rules first, then the trained model over bounded features.

Pure: the model is read once from package data (the router does it at start,
`load_model()`) and kept for the process, a failure to read it too; after that no call
does I/O.
"""

from __future__ import annotations

import logging
import math
from dataclasses import replace
from functools import lru_cache, partial
from typing import Any

from classifier import artifact, fast
from classifier.constraint import Verdict
from classifier.failure_log import FailureLog
from classifier.features import features
from classifier.intent import INTENTS, UNREAD, Intent
from classifier.model import IntentModel, softmax
from classifier.request import RequestView, view, view_cut
from classifier.rules import TOOLS_PRIOR, rule_intent, session_intent

_TOOL = INTENTS.index("tool_calling")
# A body with nothing the model can read: no text, no word it knows, or a shape it could
# not parse. Confidence 0 and source `default` send it to the default route; the label says
# so in the ledger and the metrics rather than count it as one of the seven intents.
UNKNOWN = Intent(UNREAD, 0.0, "default")
# `explain`'s reason for it when the user only greeted (`_nothing_asked`)
GREETED = "no ask yet: only a greeting or a bare request for help (classifier.greeting)"


log = logging.getLogger("smf_router.classifier")
_failures = FailureLog(log, "the classifier could not read a request", "it takes the default route")


class ModelUnavailable(RuntimeError):
    """The model artifact cannot be read: every request would take the default route."""


def model() -> IntentModel:
    """The shipped model, loaded on first use and kept for the life of the process."""
    loaded = _loaded()
    if isinstance(loaded, str):
        raise ModelUnavailable(loaded)
    return loaded


def load_model() -> None:
    """Read the model now, so that a missing or damaged artifact stops a start with a
    message naming the file, instead of every request silently taking the default route."""
    model()


@lru_cache(maxsize=1)
def _loaded() -> IntentModel | str:
    """The model, or why it cannot be read: kept either way, so that a broken artifact is
    not read again from disk on every request."""
    try:
        return artifact.load(artifact.MODEL_PATH)  # the file the message below names
    except Exception as exc:  # missing, truncated, not ours: all mean "no model"
        why = f"{type(exc).__name__}: {exc}"
        return f"the intent model {artifact.MODEL_PATH} cannot be read ({why})"


def request_features(m: IntentModel, v: RequestView, verdict: Verdict | None) -> dict[str, float]:
    """`features(v)` plus the constraint features of the latest user message's `verdict`
    (`m.detector.read(v.latest)`), added last, in the same order `fast.known` adds them."""
    feats = features(v)
    if verdict:
        feats.update(verdict.features())
    return feats


def probabilities(
    m: IntentModel, v: RequestView, feats: dict[str, float]
) -> tuple[list[float], list[int], list[float], list[str]]:
    idx, vals, names = m.known(feats)
    p = _tools_prior(v, softmax(m.scores(idx, vals, m.embedding.vector(feats))))
    return p, idx, vals, names


def _tools_prior(v: RequestView, p: list[float]) -> list[float]:
    if v.has_tools or v.after_tool_result:
        # Offered tools are a weak prior, not a verdict: agents send schemas every turn.
        p[_TOOL] *= TOOLS_PRIOR
        total = sum(p)
        p = [x / total for x in p]
    return p


def decide(m: IntentModel, body: dict[str, Any]) -> Intent:
    """Rules first, then model `m`; the core of `classify` with the model passed in."""
    return _decided(m, view(body))[0]


def _decided(
    m: IntentModel, v: RequestView, named: tuple[list[float], list[int]] | None = None
) -> tuple[Intent, str | None]:
    """`_read_intent`, marked as a side request when `v` is one (`classifier.side_request`):
    read by its ask like any request, it tells the router it pins nothing."""
    intent, rule = _read_intent(m, v, named)
    return (replace(intent, side_request=True) if v.side_request else intent), rule


def _read_intent(
    m: IntentModel, v: RequestView, named: tuple[list[float], list[int]] | None
) -> tuple[Intent, str | None]:
    """The intent of view `v` and the rule that decided it (None when none did); `named`,
    when given, are the model's probabilities and the known features' indices already
    computed on the named path (by `explain`), which are identical to the fast path's. The
    rule is handed back so `explain` names it without asking `session_intent` again: that
    reads the latest ask alone, at most once a request."""
    ruled = rule_intent(v)
    if ruled:
        return ruled
    if _blank(v.latest) and _blank(v.first):  # no user words: no task to read
        return UNKNOWN, None  # a lone system prompt, weighted 0.15 and then normalised, would
        # decide alone by its length bucket ("You are helpful" read as tool_calling 0.73)
    p, idx = _read(m, v) if named is None else named
    if m.lexical.isdisjoint(idx):  # only shape cues: "?" or "asdf" is no evidence of any
        return UNKNOWN, None  # intent, however sure the normalised lone cue made the model
    session = session_intent(v, p, partial(_reading, m))  # an agent's: coding, unless clearly not
    if session:
        return session
    best = max(range(len(p)), key=p.__getitem__)
    return Intent(INTENTS[best], round(p[best], 4), "model"), None


def _read(m: IntentModel, v: RequestView) -> tuple[list[float], list[int]]:
    """Model `m`'s probabilities for view `v` and the indices of its known features: by the
    named path when the embedding reads names, else by the fast one (`classifier.fast`)."""
    if m.embedding.words:
        p, idx, _, _ = probabilities(m, v, request_features(m, v, m.detector.read(v.latest)))
        return p, idx
    idx, vals = fast.known(m, v)
    return _tools_prior(v, softmax(m.scores(idx, vals))), idx


def _reading(m: IntentModel, v: RequestView) -> list[float]:
    """Model `m`'s probabilities for view `v` (`_read`): `session_intent`'s reader of the
    latest ask alone (`classifier.rules.Reading`)."""
    return _read(m, v)[0]


def _blank(text: str) -> bool:
    """No text to read: empty or whitespace only (`"   "` was read by the model, where `""`
    took the default route). `isspace` stops at the first other character: no copy."""
    return not text or text.isspace()


def classify(body: dict[str, Any]) -> Intent:
    """The intent of one chat-completions request body; never raises, whatever it holds.

    A Messages or Responses body must be translated first, as the router does
    (`router.translate.view.chat_view`): read raw, its system blocks, `instructions`,
    tool results and Anthropic `tool_choice` shapes are missed or misread."""
    try:
        return decide(model(), body)
    except Exception as exc:  # a malformed body must cost the caller a default route, not a 500
        _failures.failed(exc)
        return UNKNOWN


def explain(body: dict[str, Any], top_features: int = 8) -> dict[str, Any]:
    """Why `classify` decides what it does: probabilities, the rule, the strongest features.
    Takes the same chat-completions body. Never raises, like `classify`: a body it cannot
    read is explained as unread.

    `top_intents`, `model_intent` and `features` are the model's reading: when `source` is
    `rule`, the rule named in `rule` decided and they show what the model alone would have
    said; when `source` is `default` the model read no evidence and they are empty (and
    `model_intent` is `unknown`), as for a body that could not be read, and `rule` says why
    when the user's only messages greet or ask for help alone (`GREETED`), else is None.
    Each feature's `weight` is its share of the logit margin between the model's first and
    second intent, value × (weight toward the first − weight toward the second), largest
    first: positive pushed toward `model_intent`. `bias` is the intents' base rates and
    `prior:tools` the doubled odds of tool_calling when tools are offered or a tool result
    ends the conversation (listed when tool_calling is first or second); the shares of all
    of them sum to log(p first / p second). `side_request`: the request is its app's side
    request (a title call, a routing call: `classifier.side_request`), which pins nothing of
    its conversation."""
    try:
        return _explain(body, top_features)
    except Exception as exc:  # the same guard as classify's: the caller gets the default route
        _failures.failed(exc)
        return _unread()


def _unread() -> dict[str, Any]:
    """The explanation of a body `classify` could not read: `UNKNOWN`, nothing read."""
    return {
        "intent": UNKNOWN.label,
        "confidence": UNKNOWN.confidence,
        "source": UNKNOWN.source,
        "rule": None,
        "side_request": UNKNOWN.side_request,
        **_no_model_view(),
        "constraint": {"probability": 0.0, "sentence": "", "answer_directive": False},
        "read": {
            "latest_chars": 0,
            "latest_cut": False,
            "first_chars": 0,
            "first_cut": False,
            "system_chars": 0,
            "has_tools": False,
            "tool_forced": False,
            "after_tool_result": False,
        },
    }


def _no_model_view() -> dict[str, Any]:
    """What `explain` shows of the model when it read no evidence (source `default`): a body
    read but empty of known words was shown the model's normalised guess ("asdf":
    instruction 0.997) where an unreadable one showed nothing (found in review). New lists
    each time: a caller may change the ones it is given."""
    return {"top_intents": [], "model_intent": UNKNOWN.label, "features": []}


def _explain(body: dict[str, Any], top_features: int) -> dict[str, Any]:
    v, latest_cut, first_cut = view_cut(body)
    m = model()
    verdict = m.detector.read(v.latest)  # read once: features, intent and the sentence shown
    feats = request_features(m, v, verdict)
    p, idx, vals, names = probabilities(m, v, feats)
    intent, rule = _decided(m, v, (p, idx))
    order = sorted(range(len(p)), key=lambda i: -p[i])
    shown = {
        "top_intents": [{"intent": INTENTS[i], "probability": round(p[i], 4)} for i in order[:3]],
        "model_intent": INTENTS[order[0]],
        "features": [
            {"feature": f, "weight": round(w, 4)}
            for f, w in _margin_shares(m, v, feats, (idx, vals, names), order)[:top_features]
            if not math.isclose(w, 0.0)
        ],
    }
    return {
        "intent": intent.label,
        "confidence": intent.confidence,
        "source": intent.source,
        "rule": rule if rule is not None else _nothing_asked(v, intent),
        "side_request": intent.side_request,
        **(_no_model_view() if intent.source == UNKNOWN.source else shown),
        "constraint": {
            "probability": round(verdict.probability, 4) if verdict else 0.0,
            "sentence": verdict.sentence[:160] if verdict else "",
            "answer_directive": bool(verdict and verdict.answer_directive),
        },
        "read": {
            "latest_chars": len(v.latest),
            "latest_cut": latest_cut,
            "first_chars": len(v.first),
            "first_cut": first_cut,
            "system_chars": len(v.system),
            "has_tools": v.has_tools,
            "tool_forced": v.tool_forced,
            "after_tool_result": v.after_tool_result,
        },
    }


def _nothing_asked(v: RequestView, intent: Intent) -> str | None:
    """Why nothing was read, when the user's only messages greet or ask for help alone
    (`RequestView.greeted`, `classifier.greeting`): the no-evidence reading, named, so that a
    caller asking why "Hi! Can you help me?" took the default route is told."""
    if v.greeted and intent.source == UNKNOWN.source:
        return GREETED
    return None


def _margin_shares(
    m: IntentModel,
    v: RequestView,
    feats: dict[str, float],
    known: tuple[list[int], list[float], list[str]],
    order: list[int],
) -> list[tuple[str, float]]:
    """Each term's share of the logit margin between the model's first and second intent,
    largest first. A feature's weight toward the first alone ranked words every intent
    weighs alike (`w:the`) above the ones that told the two apart, and the tools prior,
    which can decide the label, was left out (found in review)."""
    best, second = order[0], order[1]
    idx, vals, names = known
    gap = m.weights[:, best] - m.weights[:, second]
    shares = [(names[i], vals[i] * float(gap[idx[i]])) for i in range(len(idx))]
    dense = m.embedding.vector(feats)
    if dense is not None and m.dense_weights.size:
        dense_gap = m.dense_weights[:, best] - m.dense_weights[:, second]
        shares.append(("embedding: meaning of the words", float(dense @ dense_gap)))
    shares.append(("bias", float(m.bias[best] - m.bias[second])))
    if v.has_tools or v.after_tool_result:  # `_tools_prior`: odds × TOOLS_PRIOR
        toward = (best == _TOOL) - (second == _TOOL)
        shares.append(("prior:tools", toward * math.log(TOOLS_PRIOR)))
    shares.sort(key=lambda x: -abs(x[1]))
    return shares
