"""Does any one sentence of a request put a checkable constraint on the response's form?

The training data's rule is that one such sentence ("Every 5th word must be in French")
makes a request `instruction`, however long the story, essay or problem around it. A bag of
words cannot say "one sentence is enough": the task's many words outvote the constraint's
few. So a small logistic model scores each sentence on its own, trained on sentences written
for the purpose (`classifier/data/sentences/`), and the request's score is the *maximum* over
its sentences; the intent model sees it as two features, `c:constraint` (the probability) and
`c:constraint_hi` (above one half).

A poem in a named literary form (an acrostic, a haiku, a lipogram) states its form's rules
in sentences that read exactly like arbitrary constraints ("each line starts with a letter
of SNOW"), and the labelling policy keeps it prose. So when a sentence names such a form,
the same two numbers go out as `c:form_constraint` and `c:form_constraint_hi`: the model
learns what a constraint means inside a named form apart from what it means elsewhere,
instead of one weight that must serve both (held-out IFBench 0.833 -> 0.860 with the
second round of sentences; `docs/classifier.md`). An answer directive ("Reply with the
letter only", "Put the final answer in \\boxed{}") is the policy's other exception: it leaves
a question or a puzzle reasoning or math. It too reads like a constraint, so a second model
of the same shape (`answer_head`), asked only of the strongest sentence, sends the numbers
out as `c:answer_constraint(_hi)` when that sentence is one.

Scoring reads at most `MAX_SENTENCES` sentences of the (already clipped) latest message,
tokenised in one pass, and each token's weight is looked up once per process, so the cost
stays within microseconds.
Pure: no I/O; scikit-learn is needed only to train it (`classifier/train.py`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from classifier.features import remember, token_entry, tokens
from classifier.lexicon import CJK, WORDS

F64 = npt.NDArray[np.float64]
# A sentence ends at . ! ? followed by a space, right after a CJK full stop, or at a line
# break. Marked with `str.replace` and cut with `splitlines`: four times faster than a regex.
BREAKS = (
    (". ", ".\n"),
    ("! ", "!\n"),
    ("? ", "?\n"),
    ("。", "。\n"),
    ("！", "！\n"),
    ("？", "？\n"),
)
MAX_SENTENCES = 40
MARK = "\x00"  # its own token: the mark between sentences tokenised together
JOIN = f"\n{MARK}\n"
MIN_CHARS = 4  # CJK sentences are short: 每行五个字。 is six
SCORE = "c:constraint"
HIGH = "c:constraint_hi"
FORM_SCORE = "c:form_constraint"
FORM_HIGH = "c:form_constraint_hi"
ANSWER_SCORE = "c:answer_constraint"
ANSWER_HIGH = "c:answer_constraint_hi"
FORM_WORDS = frozenset(WORDS["literary_form"])
FORM_CJK = CJK["literary_form"]


def lines(text: str) -> list[str]:
    """`text` cut at every sentence end: the sentences, and the short lines between them."""
    for mark, cut in BREAKS:
        if mark in text:
            text = text.replace(mark, cut)
    return text.splitlines()


def sentences(text: str) -> list[str]:
    """The sentences the detector reads: at most `MAX_SENTENCES`, none shorter than
    `MIN_CHARS` (list markers, stray punctuation)."""
    out: list[str] = []
    # `filter` skips empty lines in C and the length test is inline: a Python call per
    # line made a message of a few thousand blank lines half again as slow to classify.
    for part in filter(None, lines(text)):
        if len(part.strip()) >= MIN_CHARS:
            out.append(part)
            if len(out) == MAX_SENTENCES:
                break
    return out


def sentence_tokens(sentence: str) -> list[str]:
    """A sentence's distinct tokens in text order: the unit both training and scoring count
    in. (Not a set: its order changes with the hash seed, and so would float sums.)"""
    return list(dict.fromkeys(tokens(sentence)))


def each_sentence_tokens(parts: list[str]) -> list[list[str]]:
    """`sentence_tokens` of each of `parts`, from one `tokens` call over them all.

    Up to 40 calls, each lower-casing, encoding and splitting its own sentence, cost a long
    message most of its classification time. Joined by a line break, a NUL token and a line
    break, no token spans two sentences (a line break always ends one, and stops the
    final-sigma context of `lower` as the end of a string does), so each sentence gets
    exactly its own tokens; a text holding a NUL itself is tokenised sentence by sentence.
    """
    if len(parts) < 2 or any(MARK in part for part in parts):
        return [sentence_tokens(part) for part in parts]
    each = split_at_marks(tokens(JOIN.join(parts)), len(parts))
    return [list(dict.fromkeys(toks)) for toks in each]


def split_at_marks(toks: list[str], texts: int) -> list[list[str]]:
    """The tokens of `texts` texts joined by `JOIN`, one list per text (a NUL in the texts
    themselves would cut one in two: the caller checks there is none)."""
    out: list[list[str]] = []
    start = 0
    for _ in range(texts - 1):
        end = toks.index(MARK, start)
        out.append(toks[start:end])
        start = end + 1
    out.append(toks[start:])
    return out


@dataclass(frozen=True)
class ConstraintDetector:
    """Weights over word and 5-character-prefix features of one sentence. A sentence's
    vector has 1 per fired feature of each distinct token, divided by the square root of
    the number of such firings; its logit is the bias plus the dot product."""

    vocab: tuple[str, ...] = ()
    weights: F64 = field(default_factory=lambda: np.zeros(0), compare=False)
    bias: float = 0.0
    # a second model of the same shape, asked only of the strongest sentence: does it just
    # say how to present a final answer ("Reply with the letter only")?
    answer_head: ConstraintDetector | None = field(default=None, compare=False)
    # token -> (sum of its features' weights, how many features it fires); filled lazily
    token_cache: dict[str, tuple[float, int]] = field(init=False, repr=False, compare=False)
    # feature -> weight as plain floats: a token met for the first time costs a dict lookup
    # per feature, not a numpy call (which made long prompts' p99 cross 1 ms)
    weight_of: dict[str, float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "weight_of", dict(zip(self.vocab, self.weights.tolist(), strict=True))
        )
        object.__setattr__(self, "token_cache", {})

    def _token(self, tok: str) -> tuple[float, int]:
        hit = self.token_cache.get(tok)
        if hit is None:
            fired = token_entry(tok)[0]
            weight_of = self.weight_of
            hit = (sum(weight_of.get(f, 0.0) for f in fired), len(fired))
            remember(self.token_cache, tok, hit)
        return hit

    def probability(self, sentence: str) -> float:
        """How likely this one sentence constrains the response's form."""
        return self._probability(sentence_tokens(sentence))

    def _probability(self, toks: list[str]) -> float:
        total = 0.0
        fired = 0
        cache = self.token_cache
        try:  # inline, and a subscript: `get` per token cost a fifth more on long messages
            for tok in toks:
                weight, n = cache[tok]
                total += weight
                fired += n
        except KeyError:  # a token met for the first time, or one too long to keep
            total, fired = self._sums(toks)
        z = self.bias + (total / math.sqrt(fired) if fired else 0.0)
        return 1.0 / (1.0 + math.exp(-z))

    def _sums(self, toks: list[str]) -> tuple[float, int]:
        """The summed weight and the firings of `toks`, added in the same order as
        `_probability` adds them, each token's looked up or learnt."""
        total = 0.0
        fired = 0
        for tok in toks:
            weight, n = self._token(tok)
            total += weight
            fired += n
        return total, fired

    def strongest(self, text: str) -> Verdict:
        """The highest sentence probability in `text`, that sentence, whether a sentence
        names a literary form (read from the same tokens: no second pass over the text), and
        whether the answer head calls that sentence an answer directive."""
        parts = sentences(text)
        return self.judge(text, parts, each_sentence_tokens(parts))

    def judge(self, text: str, parts: list[str], each_toks: list[list[str]]) -> Verdict:
        """`strongest(text)` from its sentences `parts` and their `sentence_tokens`, when
        the caller has them already (`classifier.reading`)."""
        best, where, form, best_toks = 0.0, "", False, []
        for sentence, toks in zip(parts, each_toks, strict=True):
            form = form or not FORM_WORDS.isdisjoint(toks)
            p = self._probability(toks)
            if p > best:
                best, where, best_toks = p, sentence, toks
        if not form and not text.isascii():
            form = any(word in text for word in FORM_CJK)
        head = self.answer_head
        answer = best > 0.5 and head is not None and head._probability(best_toks) > 0.5
        return Verdict(best, where, form, answer)

    def read(self, text: str) -> Verdict | None:
        """`strongest(text)`, or None when there is no detector or no text to read."""
        return self.strongest(text) if self.vocab and text else None

    def features(self, text: str) -> dict[str, float]:
        """The intent model's constraint features of `text` (none without a detector)."""
        verdict = self.read(text)
        return verdict.features() if verdict else {}


class Verdict(NamedTuple):
    """What the detector found in one text: its strongest sentence and that sentence's
    probability, and whether some sentence names a literary form. (A named tuple: made on
    every request, and a frozen dataclass costs microseconds to build.)"""

    probability: float = 0.0
    sentence: str = ""
    named_form: bool = False
    answer_directive: bool = False

    def features(self) -> dict[str, float]:
        """The intent model's features: the probability under the plain, the named-form or
        the answer-directive name, and the `_hi` flag above one half."""
        if self.named_form:
            score, high = FORM_SCORE, FORM_HIGH
        elif self.answer_directive:
            score, high = ANSWER_SCORE, ANSWER_HIGH
        else:
            score, high = SCORE, HIGH
        p = self.probability
        return {score: p, high: 1.0} if p > 0.5 else {score: p}
