"""A NeMo Guardrails prompt asking for the user's intent gets one of the intents it shows.

NeMo Guardrails (Colang 1.0) matches a dialog flow by the user's canonical form, which it
asks the model for (`generate_user_intent`): its text prompt (`general.yml`, what a model
name like the router's `auto` gets) shows example messages each followed by its intent
(`User message: "hello"` then `User intent: express greeting`; in `openai.yml`'s Colang
form `user "hello"` then `  express greeting`), lists the config's intents ("# Choose intent
from this list: ask about politics, express greeting") and ends with the user's message for
the model to continue the pattern. The simulator answered prose, which NeMo took for the
intent, so no flow ever matched ("hello" never got the greeting flow; a live review).

The answer is the intent of the example whose message shares the most words with the
user's (`_words`; the first such in the prompt on a tie), in the examples' form. Where none
shares a word, an example's intent the list does not offer (a sample conversation's, which
starts none of the config's flows: NeMo then answers in general), else the first listed:
a coding question is no ask about politics.

Only a text that ends with the user's message in one of the two forms and shows at least
one example is read; the scan is one pass over its lines, within `shown_forms.LONGEST`.
"""

from __future__ import annotations

import re
from itertools import pairwise

from router.simulator.shown_forms import LONGEST

_LIST = "# Choose intent from this list"  # "...: a, b" or "... if applicable: a, b"
# (the message line's prefix, the intent line's prefix) of NeMo's two text forms
_FORMS = (('User message: "', "User intent: "), ('user "', "  "))
_WORD = re.compile(r"[a-z0-9']+")
_STOP = frozenset(
    {"the", "and", "you", "your", "for", "are", "can", "how", "what", "who", "why", "was"}
    | {"with", "that", "this", "about", "have", "does", "did", "not", "but", "its", "from"}
    | {"any", "all", "tell", "me", "is", "it", "of", "to", "in", "on", "do", "an"}
)


def user_intent(text: str) -> str | None:
    """The intent line answering NeMo's `generate_user_intent` prompt `text` (`User
    intent: express greeting`, or `  express greeting` in the Colang form); None where
    `text` is no such prompt."""
    text = text.rstrip()
    last = text[text.rfind("\n") + 1 :].strip()  # looked at before the text is split
    if len(text) > LONGEST:
        return None
    for message, intent in _FORMS:
        if not last.startswith(message):
            continue
        lines = text.splitlines()
        shown = _examples(lines[:-1], message, intent)
        if shown:
            chosen = _chosen(_message(last, message), shown, _listed(lines))
            return f"{intent}{chosen}"
    return None


def _examples(lines: list[str], message: str, intent: str) -> list[tuple[str, str]]:
    """The (message, intent) pairs `lines` show: a message line followed by an intent line."""
    pairs = []
    for line, following in pairwise(lines):
        said, meant = line.strip(), following.rstrip()
        if said.startswith(message) and meant.startswith(intent) and meant[len(intent) :].strip():
            pairs.append((_message(said, message), meant[len(intent) :].strip()))
    return pairs


def _listed(lines: list[str]) -> list[str]:
    """The intents the prompt's "# Choose intent from this list: a, b" line offers."""
    line = next((line for line in lines if line.startswith(_LIST)), "")
    _, _, names = line.partition(":")
    return [name.strip() for name in names.split(",") if name.strip()]


def _chosen(said: str, shown: list[tuple[str, str]], listed: list[str]) -> str:
    """The intent of the example sharing the most words with `said`; with none shared, an
    example's intent `listed` does not offer, else the first listed, else the first shown."""
    asked = _words(said)
    best, most = None, 0
    for example, meant in shown:
        shared = len(asked & _words(example))
        if shared > most:
            best, most = meant, shared
    if best is not None:
        return best
    unlisted = next((meant for _, meant in shown if meant not in listed), None)
    return unlisted or (listed[0] if listed else shown[0][1])


def _message(line: str, prefix: str) -> str:
    """The quoted message of a message line."""
    return line[len(prefix) :].rstrip().removesuffix('"')


def _words(text: str) -> set[str]:
    return {word for word in _WORD.findall(text.lower()) if len(word) > 1 and word not in _STOP}
