"""Constraint-insertion augmentation: training rows made by putting one written constraint
sentence into a chat-style writing, prose or reasoning request (`TrainConfig.augment_rows`).

The largest distance left between the model and a reader of the labelling policy is one
shape: a task that reads as a story, essay, question or problem, with one sentence that adds
a checkable constraint on the response's form (`docs/classifier.md`). Hand-written rows of
that shape are few (team round 3), and the task's many words outvote the constraint's few.
Here the shape is made from parts the repository already has: the team's and the authors'
own requests (not a dataset's template) and the constraint sentences written for the
detector (`data/sentences/`), labelled instruction. Optional look-alikes put a content wish
("Give it a fairy-tale feel") into the same kind of row and keep its label, so the model
learns the constraint and not the insertion.

The policy's two exceptions are kept out, not taught: no row that names a literary form or
already carries a constraint-like sentence (a poem whose form rules are spelled out stays
prose with a requirement added), and no sentence that only says how to present a final
answer (which leaves a question reasoning). Rows are drawn only from the rows given, so a
leave-one-source-out fold augments its own sources; the draw is seeded, so training
reproduces it from the repository alone. Each made row says which half of the sentences
its sentence came from (`Made.half`): training scores it with a detector fit without that
half, so the detector's feature is as strong on a made row as on an unseen request.
Alone it gained in leave-one-source-out but moved drafting requests off writing, so the
shipped configuration also makes drafts of messages with one sentence of what the message
says (`MESSAGE_CONTENT`), labelled writing: content that reads like a constraint
(docs/classifier.md, "Variants tried"). Pure: no I/O.
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from classifier.constraint import FORM_WORDS
from classifier.corpus import ANSWER_KINDS, Example, Sentence
from classifier.features import tokens
from classifier.intent import Label

SOURCE = "augmented"
# chat-style requests written for this project, not a dataset's template
BASE_SOURCES = frozenset({"team", "authored"})
BASE_LABELS: frozenset[Label] = frozenset({"writing", "prose", "reasoning"})
# a task's own sentence with a constraint in it ("Write a poem in which each line ..."): not
# something to add to another task
EMBEDDED = "embedded"
# the plain sentences that wish something of the content without constraining the form
CONTENT_WISH = "content_wish"
# sentences that only say how to present an answer (the policy's reasoning/math exception),
# or that pick the answer from a fixed set: never added as a constraint
ANSWERISH = re.compile(
    r"answer (in|with) (a single|one|only)|just answer|only answer|\byes\b|true or false"
    r"|nothing else|no other text|final answer|only the letter|single emoji|\\boxed|answer:",
    re.IGNORECASE,
)
# a sentence that asks for a text of its own ("Write a poem about fog where ..."), not one
# that constrains the text asked for ("Write it in lowercase", "Write each sentence ...")
TASK = re.compile(
    r"(write|compose|draft|describe|explain|summari[sz]e|give|tell|create|list)\s+(?!(it|the"
    r"|each|every|everything|all|at|exactly|in|without|with|no|your (whole|entire|response"
    r"|answer|reply))\b)",
    re.IGNORECASE,
)
# a request for the words of a message the user sends themselves (team round 7: writing)
DRAFT = re.compile(
    r"\b(draft|compose|write|reply|respond)\b[^.?!\n]{0,60}?\b(e-?mails?|messages?|texts?"
    r"|notes?|repl(y|ies)|letters?|dms?|memos?|announcements?|invitations?|responses?)\b",
    re.IGNORECASE,
)
# what a drafted message is to say, written for this module (no dataset's, no test's): they
# read like a constraint ("Mention that ...", "Make sure it says ...") but are the content
MESSAGE_CONTENT = (
    "Mention that the car park will be closed for resurfacing all week.",
    "Say that the spare key is under the blue flowerpot.",
    "Let them know I'll bring the folding chairs and a cool box.",
    "Add that the slides from the workshop are in the shared folder.",
    "Remind him that the library books are due back on the 14th.",
    "Ask whether the venue has step-free access.",
    "Tell her the parcel arrived but the lid was cracked.",
    "Include that we're happy to pay a deposit up front.",
    "Also thank them for the flowers they sent last month.",
    "Make sure it says the kitchen will be repainted over the bank holiday.",
    "It should say that the rent will be paid by the 5th as usual.",
    "Point out that the warranty is still valid until March.",
    "Explain that my train was cancelled, so I'll join from home.",
    "The main point: the quarterly review is pushed back by a week.",
    "Say I can cover the first half of the shift but not the second.",
    "Mention the new door code, 4471, and that the old one stops working on the 1st.",
    "Let everyone know the fire drill is at 2pm and takes about fifteen minutes.",
    "Ask if they could send the signed contract back by the end of the month.",
    "Tell them the printer on the third floor is fixed.",
    "Say sorry for the late reply and that I was travelling.",
    "Make it clear we still want the blue tiles, not the grey ones.",
    "Add that parking is free after 6pm on the street behind the hall.",
    "Let her know the puppy had his vaccinations and is doing fine.",
    "Mention that I've attached the photos of the damage.",
    "Say we'd like to book the table for eight people, not six.",
    "It needs to say that the water will be off from 9 to 12 on Tuesday.",
    "Tell them we loved the hotel but the air conditioning was noisy.",
    "Ask for the tracking number and the courier's name.",
    "Include the new address: 12 Mill Lane, and that we move on the 20th.",
    "Say that the lunch order needs to be in by 11.",
    "Make sure to mention the allergy: no peanuts at all.",
    "Remind everyone to bring their badges, the new gates won't open without them.",
    "Let him know I returned the drill and left it by the shed.",
    "Mention that the trial ends on Sunday and the plan renews at £9 a month.",
    "Say the quote is fine but we need the work done before the 30th.",
    "Explain that the rota changes: Sam takes the early shifts and I take the late ones.",
    "Tell the group the hike starts at the north car park, not the visitor centre.",
    "Ask whether the refund went to my card or to store credit.",
    "Thank her for covering the class and say the kids loved it.",
    "Add that I'll be out of signal on the ferry until about 4.",
)
MAX_WHOLE = 1500  # a text this short is read whole, so a sentence inside it is read too
JOINTS = (" ", "\n", "\n\n")
SENTENCE_END = re.compile(r"[.!?] (?=[A-Z])")


@dataclass(frozen=True, slots=True)
class Made:
    """One made row, the index of the row it was made from, and the half (0 or 1,
    `half_of`) its sentence was drawn from."""

    row: Example
    base: int
    half: int


def usable(sentence: Sentence) -> bool:
    """A written constraint on the whole text, in English, that can stand beside a task and
    names no literary form."""
    return (
        sentence.constraint
        and sentence.kind not in ANSWER_KINDS
        and sentence.kind != EMBEDDED
        and sentence.text.isascii()
        and not ANSWERISH.search(sentence.text)
        and not TASK.match(sentence.text)
        and FORM_WORDS.isdisjoint(tokens(sentence.text))
    )


def halves(labelled: Sequence[Sentence]) -> tuple[list[int], list[int]]:
    """Indices into `labelled` of the usable constraints and of the content wishes."""
    constraints = [i for i, s in enumerate(labelled) if usable(s)]
    wishes = [i for i, s in enumerate(labelled) if s.kind == CONTENT_WISH and s.text.isascii()]
    return constraints, wishes


def base_rows(rows: Sequence[Example], constrained: Callable[[str], bool]) -> list[int]:
    """The indices of the rows a sentence may be added to: chat-style writing, prose or
    reasoning requests in English that name no literary form and that `constrained` finds
    no constraint in."""
    return [
        i
        for i, r in enumerate(rows)
        if r.source in BASE_SOURCES
        and r.label in BASE_LABELS
        and r.text.isascii()
        and FORM_WORDS.isdisjoint(tokens(r.text))
        and not constrained(r.text)
    ]


def draft_rows(rows: Sequence[Example], pool: Sequence[int]) -> list[int]:
    """The base rows in `pool` that ask for the words of a message: writing requests with a
    message named near a verb of writing in their opening."""
    return [i for i in pool if rows[i].label == "writing" and DRAFT.search(rows[i].text[:300])]


def insert(text: str, sentence: str, rng: random.Random) -> str:
    """`text` with `sentence` at its end (most often), its start, or after one of its
    sentences when the text is short enough to be read whole."""
    text = text.strip()
    where = rng.random()
    if where < 0.2:
        return f"{sentence}{rng.choice(JOINTS)}{text}"
    ends = [m.end() for m in SENTENCE_END.finditer(text)]
    if where < 0.4 and len(text) <= MAX_WHOLE and ends:
        cut = rng.choice(ends)
        return f"{text[:cut]}{sentence} {text[cut:]}"
    joint = rng.choice(JOINTS) if text.endswith((".", "?", "!")) else "\n\n"
    return f"{text}{joint}{sentence}"


def augment(
    rows: Sequence[Example],
    labelled: Sequence[Sentence],
    n: int,
    negatives: float,
    seed: int,
    constrained: Callable[[str], bool],
    drafts: float = 0.0,
) -> list[Made]:
    """`n` rows labelled instruction, each a base row with one usable constraint sentence,
    `round(n * negatives)` base rows with one content wish, keeping their label, and
    `round(n * drafts)` message drafts with one sentence of what the message says, writing."""
    pool = base_rows(rows, constrained)
    constraints, wishes = halves(labelled)
    if not pool or not constraints:
        return []
    rng = random.Random(seed)
    order = rng.sample(pool, len(pool))
    made: list[Made] = []
    for i in range(n):
        base = order[i % len(order)]
        k = rng.choice(constraints)
        text = insert(rows[base].text, labelled[k].text, rng)
        made.append(Made(Example(text, "instruction", SOURCE), base, half_of(labelled[k])))
    if wishes:
        for i in range(round(n * negatives)):
            base = order[(n + i) % len(order)]
            k = rng.choice(wishes)
            text = insert(rows[base].text, labelled[k].text, rng)
            made.append(Made(Example(text, rows[base].label, SOURCE), base, half_of(labelled[k])))
    messages = draft_rows(rows, order)
    for i in range(round(n * drafts) if messages else 0):
        base = messages[i % len(messages)]
        content = rng.choice(MESSAGE_CONTENT)
        text = insert(rows[base].text, content, rng)
        made.append(Made(Example(text, "writing", SOURCE), base, half_of(Sentence(content, False))))
    return made


def half_of(sentence: Sentence) -> int:
    """Which half a sentence is in: by its text, so a sentence written twice is in one."""
    return zlib.crc32(sentence.text.encode()) % 2


def without_half(labelled: Sequence[Sentence], half: int) -> list[Sentence]:
    """The sentences a made row of `half` is scored without: every sentence the augmentation
    could draw that is in that half is left out (the others all stay)."""
    constraints, wishes = halves(labelled)
    drop = {labelled[i].text for i in (*constraints, *wishes) if half_of(labelled[i]) == half}
    return [s for s in labelled if s.text not in drop]
