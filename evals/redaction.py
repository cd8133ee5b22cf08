"""What of a text may be shown when it may hold a credential: an upstream's error, a log line.

An upstream's error text goes to the client that asked (`router.attempt_errors.UpstreamError`), and
a gateway in front of a provider may repeat in it what it was sent: the router's key, a
configured header, the URL with Gemini's `?key=` (BerriAI/litellm#24902). Any client with a
router key then read the operator's cloud key. So every such text is cleaned once, where an
error takes it in: first the exact values the router holds for that backend, compiled once
per backend (`Secrets`, from `config_backend.Backend.secret_values`), then patterns for what
else looks like one (a URL's user info and query, `Bearer ...`, `sk-...`, `AIza...`,
`x-api-key: ...`). The rest of the text stays, so the error still says what went wrong.

The evals ask backends too, the canary's runs and `eval run` (`evals.endpoint.ask`), and
their error texts reach a CronJob's log and a results file: they are cleaned here the same
way. Evals may not import the router (the import-linter contract), so this lives here, as
`evals.urls` does.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any
from urllib.parse import quote

MASK = "***"
# A value shorter than this is no credential worth the damage: masking `1` or `true` (a
# header's value) everywhere would garble the message around it. Also the shortest head of
# a secret masked at the very end of a text (`Secrets._tail`), as short as a secret can be:
# at 8, and only past the cut's limit, a short text the upstream had cut in a key showed 20
# of its characters, and a long one cleaned down under the limit its last 7 (found in
# re-review).
MIN_SECRET_CHARS = 4
# A value shorter than this is masked only as a whole word: a header `X-Title: chat` masked
# the "chat" of "/v1/chat/completions" (found in review). A longer one is no word anyone
# writes by chance, and is masked wherever it stands (glued to a `_suffix` too).
WORD_BOUNDED_BELOW = 16
# Deeper than this, a passed-through error body is not read: replaced whole (a real error
# body nests three or four levels; orjson writes no more than 254 anyway).
MAX_DEPTH = 64
# What a passed-through error body may hold, keys and values: a real one has a handful of
# strings; 1M of them took the event loop for 10 s, a regex pass each (found in review).
MAX_BODY_STRINGS = 512
MAX_BODY_CHARS = 64 * 1024

# What of a URL may hold a credential: its user info (`//user:pass@`) and its query, from a
# `?` to the next white space if a `=` follows in it ("right?ok" is prose). requests leaves
# quotes and parentheses unquoted in the URL urllib3 then prints ("... with url:
# /v1/traces?token=a(b)c (Caused by ...)"). The name stops at the next `?`: `[^\s=]*` read
# from each `?` of "????..." to the end of the run, quadratic (64 KiB took seconds, found in
# review); a `?key=` after another `?` is still found, from its own `?`.
_USERINFO = re.compile(r"//[^\s/?#]*@")
_QUERY = re.compile(r"\?[^\s=?]*=\S*")
# What looks like a credential wherever it stands: a bearer token, a key header or parameter
# named so, OpenAI's and Anthropic's `sk-` keys, Google's `AIza` keys; each with a digit in
# it, as keys have, so that prose is left alone ("the bearer token field is required",
# "sk-learn-compatible", "api-key: header missing"). Not `Basic ...`: "a basic question" is
# prose (the router's own basic-auth token is an exact value). The digit is looked for in
# the match (`_token_masker`), not by a look-ahead: one read to the end of the run from each
# start, so "sk-sk-sk-..." of 64 KiB took 13 s and held the event loop (found in review);
# a whole run is matched once, and a run with no digit has none in any of its tails either.
_TOKEN = r"[^\s\"',;&]"
_TOKENS = (  # (pattern, what a match becomes, whether its value must hold a digit)
    (re.compile(rf"\b(Bearer)\s+({_TOKEN}{{16,}})", re.I), rf"\1 {MASK}", True),
    (
        re.compile(rf"\b((?:x-)?(?:goog-)?api[-_]?key)([\"']?\s*[:=]\s*[\"']?)({_TOKEN}+)", re.I),
        rf"\1\2{MASK}",
        True,
    ),
    (re.compile(r"\bsk-[\w-]{20,}"), MASK, True),
    (re.compile(r"\bAIza[\w-]{20,}"), MASK, False),
)
_DIGIT = re.compile(r"\d")


def _token_masker(shown: str, digit: bool) -> Callable[[re.Match[str]], str]:
    """What a `_TOKENS` match becomes: `shown`, unless a digit is asked for and its value
    (the last group, else the whole match) has none; then the match as it was."""

    def mask(match: re.Match[str]) -> str:
        value = match.group(match.lastindex or 0)
        if digit and not _DIGIT.search(value):
            return match.group()
        return match.expand(shown)

    return mask


_MASKERS = tuple((pattern, _token_masker(shown, digit)) for pattern, shown, digit in _TOKENS)
# How far back from the end of a match left as it was (no digit) the search goes on: a key
# name and its separator (`x-goog-api-key": `) ending the run may begin a credential in the
# next one ("Bearer missing-Bearer 9f86d0...": the whole run was one match, and the token
# after it was never looked at; found in re-review). A bounded step back keeps it linear.
_RESUME = 24


def _sub_tokens(pattern: re.Pattern[str], masker: Callable[[re.Match[str]], str], text: str) -> str:
    """`pattern.sub(masker, text)`, except that after a match `masker` leaves as it was, the
    search goes on from near its end (`_RESUME`), not after it."""
    out: list[str] = []
    kept = 0  # text before this is in `out`
    start = 0
    while (match := pattern.search(text, start)) is not None:
        shown = masker(match)
        if shown == match.group():
            start = max(match.start() + 1, match.end() - _RESUME)
            continue
        out += (text[kept : match.start()], shown)
        kept = start = match.end()
    out.append(text[kept:])
    return "".join(out)


class Secrets(Collection[str]):
    """A backend's secrets as exact values, and every form an error text may carry them in,
    compiled into one pattern once (per backend, when its adapter is made): sorting and
    quoting them again for each string of a passed-through body cost seconds (found in
    review). Iterates over the values it was given."""

    __slots__ = ("_heads", "_pattern", "_values")

    def __init__(self, values: Iterable[str | None] = ()) -> None:
        self._values = tuple(dict.fromkeys(v for v in values if v))
        found = {form for v in self._values if len(v) >= MIN_SECRET_CHARS for form in _forms(v)}
        forms = sorted(found, key=len, reverse=True)  # a key holding another first
        # Each form with its head, the shortest that `_tail` looks for.
        self._heads = tuple((form, form[:MIN_SECRET_CHARS]) for form in forms)
        alternatives = "|".join(re.escape(form) for form in forms)
        # Plain literals, no look-around: a look-behind in each branch made the pattern
        # sixteen times slower (it loses the scan for first characters); word edges are
        # checked on a match instead (`_masked`).
        self._pattern = re.compile(alternatives) if alternatives else None

    def __contains__(self, value: object) -> bool:
        return value in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def clean(self, text: str) -> str:
        """`text` without these secrets nor anything the patterns take for a credential, nor
        a head of a secret it ends in that may be key material the upstream cut its own text
        in (`_tail`, `whole`): that check was `cut`'s only, and an envelope's message, an
        in-band error's, a passed-through body's strings showed the 20 characters of a key
        an upstream had cut (found in re-review). Not a head that is a whole word of the
        key's front: with vLLM's `--api-key token-abc123`, "prompt ends with an unfinished
        token" reached the client as "... unfinished ***", "expected scheme Bearer" (of a
        header `Bearer gw-...`) as "expected scheme ***" (found in re-review)."""
        return self._end_masked(self._cleaned(text), whole=True)

    def cut(self, text: str, limit: int) -> str:
        """`text` cleaned, then at most `limit` characters of it: cleaned first, as a key the
        cut went through kept its head (found in review). Its end is checked for a head of
        a secret (`_tail`) before and after this cut, whatever the head: the text may be one
        an upstream or the router cut (a `masked_end` run is not one to spare), and a head of
        a key held mid-text, which no cleaning masks, may end just where this cut does."""
        return self._end_masked(self._end_masked(self._cleaned(text))[:limit])

    def _cleaned(self, text: str) -> str:
        """`text` without these secrets nor anything the patterns take for a credential."""
        if self._pattern is not None:
            text = self._pattern.sub(_masked, text)
        text = without_secrets(text)
        for pattern, masker in _MASKERS:
            text = _sub_tokens(pattern, masker, text)
        return text

    def _end_masked(self, text: str, whole: bool = False) -> str:
        """`text` with the head of a secret it ends in (`_tail`) as `***`."""
        start = self._tail(text, whole)
        return text if start is None else text[:start] + MASK

    def _tail(self, text: str, whole: bool = False) -> int | None:
        """Where the earliest head of a secret's form (`MIN_SECRET_CHARS` characters or more,
        not the whole of it) that `text` ends in begins; one of a short form only at a word's
        start, as `_masked` shows it inside a word. In a `whole` text (no cut of the
        router's), only a head that may be key material cut mid-run (`_cut_inside`)."""
        found: int | None = None
        for form, first in self._heads:
            start = text.find(first, max(0, len(text) - len(form) + 1))
            while start != -1 and (found is None or start < found):
                shown = text[start:]
                if (
                    form.startswith(shown)
                    and not _inside_word(form, text, start)
                    and (not whole or self._cut_inside(form, shown))
                ):
                    found = start
                    break
                start = text.find(first, start + 1)
        return found

    def _cut_inside(self, form: str, shown: str) -> bool:
        """Whether `shown`, a head of `form` a whole text ends in, may be key material cut
        mid-run: it ends glued to the form's next character (`sk-proj-ab|c...`), holds a
        digit as keys do (`gw-7f3a|-b9c2...`), or is no head of a secret as written (an
        encoded form's). Else it is a whole word of the key's front, as anyone may write
        (`token|-abc123`, `Bearer| gw-...`), and stays."""
        if _DIGIT.search(shown) or not any(value.startswith(shown) for value in self._values):
            return True
        return _glued(shown[-1], form[len(shown)])


NO_SECRETS = Secrets()


def as_secrets(secrets: Collection[str]) -> Secrets:
    """`secrets` compiled, unless they are already."""
    if isinstance(secrets, Secrets):
        return secrets
    return Secrets(secrets) if secrets else NO_SECRETS


def without_secrets(text: str) -> str:
    """`text` with every URL's user info and query replaced by `***`. By pattern, on the whole
    text, before any cut: the configured query removed by exact string missed a token that
    requests had re-quoted (`%7E` printed as `~`), and a cut at 300 characters made before
    the removal left the head of a long token in the log (both found in review)."""
    return _QUERY.sub(f"?{MASK}", _USERINFO.sub(f"//{MASK}@", text))


def head(text: str, limit: int) -> str:
    """At most `limit` characters of `text` to clean, never ending inside a run of non-space
    characters the cut went through: a credential cut there is no longer whole for the exact
    values nor the patterns to see, and its head went to the client once cleaning had
    shortened the text under its own cut (found in review). That run is `***`."""
    if len(text) <= limit:
        return text
    return text[:limit] if text[limit].isspace() else masked_end(text[:limit])


def masked_end(text: str) -> str:
    """`text`, the head of a longer one whose next character is not known to be a space,
    with the run of non-space characters it ends in (a credential the cut may have gone
    through) as `***`: `head`'s end, and that of an error message the upstream's reply was
    cut in (`router.cut_error_body`), which leaked 29 of a key's 30 characters when only
    cleaned (found in re-review)."""
    if not text or text[-1].isspace():
        return text
    space = max(text.rfind(" "), text.rfind("\n"), text.rfind("\t"), text.rfind("\r"))
    return text[: space + 1] + MASK


def redacted(text: str, secrets: Collection[str] = ()) -> str:
    """`text` without `secrets` (`Secrets.clean`)."""
    return as_secrets(secrets).clean(text)


def cut(text: str, limit: int, secrets: Collection[str] = ()) -> str:
    """At most `limit` characters of `text`, cleaned before the cut (`Secrets.cut`)."""
    return as_secrets(secrets).cut(text, limit)


_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def wire_name(name: Any, secrets: Collection[str] = ()) -> str | None:
    """An upstream's error `type` or `code` when it looks like a name and holds no secret,
    else None (the router's own name goes out): an in-band error whose type was the key went
    to the client as its `type` (found in review)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return None
    return name if as_secrets(secrets).clean(name) == name else None


def redacted_body(value: Any, secrets: Collection[str] = ()) -> Any | None:
    """A JSON value (an upstream's error body, passed to the client) with every string in
    it, keys included, `redacted`; None when it holds more than `MAX_BODY_STRINGS` strings
    or `MAX_BODY_CHARS` characters, which no error needs (the error's message is shown)."""
    walk = _Walk(as_secrets(secrets))
    try:
        return walk.value(value, 0)
    except _TooBig:
        return None


class _TooBig(Exception):
    pass


class _Walk:
    """One body's cleaning, counting what it read so far."""

    def __init__(self, secrets: Secrets) -> None:
        self.secrets = secrets
        self.strings = 0
        self.chars = 0

    def text(self, text: str) -> str:
        self.strings += 1
        self.chars += len(text)
        if self.strings > MAX_BODY_STRINGS or self.chars > MAX_BODY_CHARS:
            raise _TooBig
        return self.secrets.clean(text)

    def value(self, value: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            return MASK
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v, depth + 1) for v in value]
        return value


def _masked(match: re.Match[str]) -> str:
    """A secret's form found in a text: `***`, unless it is a short one inside a word."""
    form, text, start, end = match.group(), match.string, match.start(), match.end()
    return form if _inside_word(form, text, start, end) else MASK


def _inside_word(form: str, text: str, start: int, end: int | None = None) -> bool:
    """Whether a short form found at `start` of `text` is glued to the word before it or,
    `end` given (where it ends: a whole form), to the word after it."""
    if len(form) >= WORD_BOUNDED_BELOW:
        return False
    before = start > 0 and _glued(text[start - 1], form[0])
    after = end is not None and end < len(text) and _glued(form[-1], text[end])
    return before or after


def _glued(left: str, right: str) -> bool:
    """Whether two characters side by side are of one word."""
    return _wordy(left) and _wordy(right)


def _wordy(char: str) -> bool:
    return char.isalnum() or char == "_"


def _forms(value: str) -> set[str]:
    """Each way a text may carry `value`: as written, URL-encoded, JSON-escaped (every
    character as `\\uXXXX`, or its `/` as `\\/`, in a body that is not JSON and so was not
    decoded), base64 (standard and URL-safe, padded or not)."""
    forms = {value, quote(value, safe=""), value.replace("/", "\\/")}
    forms.add("".join(f"\\u{ord(c):04x}" for c in value))
    forms.add("".join(f"\\u{ord(c):04X}" for c in value))
    raw = value.encode()
    for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        forms.update((encoded.decode("ascii"), encoded.decode("ascii").rstrip("=")))
    return forms
