"""The sentence leading into a shape a prompt shows, read for whether it asks the answer be
in that shape.

A schema or example object counts as the answer's form only where the sentence leading into
it asks for the answer in JSON (a verb of answering and "json", `introduced`), and not where
it is a tool's: a schema introduced by a tool listing (LlamaIndex's `Tool Args:`, crewAI's
`Tool Arguments:`, "parameters") is a tool's input. Taking any object schema with "json"
somewhere around it, the simulator answered LlamaIndex's ReActAgent and crewAI's ReAct
prompts with the tool's arguments as JSON (`{"a": 1, "b": 1}`), which LlamaIndex took for
the agent's final answer (found in review).

JSON the user shows is no example of the answer: with "response" and "output" taken for
verbs of answering, "Explain what this JSON response means: {"error": "not_found", "code":
404}" got `{"error": "Its request", "code": 404}`, and "Format this JSON nicely: {...}" its
values replaced by words (found in review). So the sentence must ask for the answer
(`_ANSWER`), and one asking something be done to the JSON shown never does (`_ABOUT`).

A sentence that asks the answer be what follows it, ending in "with:" ("Respond ONLY with:",
`_WITH`), introduces the shape after it though it names no JSON: cipher 0.3.0's memory
decision leads so into its template, and names JSON nowhere else (found in a live review).
Texts that hold neither "json" nor such a sentence are passed over by `may_introduce`.

A Markdown heading naming a shape ("## Structure", "## Output format", `_SHAPE_HEADING`) just
before the shape asks nothing by itself: the paragraph before it in the same section does.
mem0 2.2.1's extraction prompt says "# OUTPUT FORMAT\n\nReturn ONLY valid JSON parsable by
json.loads(). No text, ...\n\n## Structure\n\n{"memory": [...]}"; read as the heading alone,
the simulator answered the `json_object` filler, mem0 found no "memory" in it, and in demo
mode every `add()` stored nothing (found in a live review). So that paragraph is read with the
heading (`_asking`), within the same `_LEAD` characters: one paragraph back, never past
another heading.

This is wording alone, apart from which shape `prompted` takes for the answer: the same
reading serves a schema, an example object, a list of strings (`list_asked`) and a shape
described in pseudo-JSON under a wrapper's noun (`names`), whatever order they are tried in.
"""

from __future__ import annotations

import re

from router.simulator.shown_forms import PARAGRAPH_SENTENCE_END

_LEAD = 400  # characters before a shape read for the sentence that introduces it
_JSON = re.compile(r"\bjson", re.I)
# what asks for the answer itself in JSON, beside "json" in the sentence: a verb of answering
# ("respond with", "provide the parsed objects", "return valid JSON only"), "output" as one
# ("output as JSON"), the answer named as the model's ("your response must be"), or a
# template's heading (Open WebUI's "### Output:\nJSON format:"). Not "response" or "output"
# as nouns alone: "Explain what this JSON response means: {...}" names the user's content
# (found in review)
_ANSWER = re.compile(
    r"\b(?:respond|reply|answer|return|provide|produce|give|write)\b"
    r"|\boutput\s+(?:as|in|only|a|an|the|valid|strict|raw|json)\b"
    r"|\byour\s+(?:final\s+)?(?:response|answer|output|reply)\b"
    r"|\b(?:response|answer|output|reply)\s+(?:must|should|shall|will|needs?\s+to|has\s+to)\b"
    r"|(?:\A|\n)[ \t#*>-]*json\s+format\s*:\s*\Z",
    re.I,
)
# a sentence asking something be done to the JSON it shows ("Explain what this JSON response
# means:", "Format this JSON nicely:"): the verb, up to three words not leading to a target
# ("convert the text to JSON" asks for JSON) or away ("in the format of this JSON"), "json"
_ABOUT = re.compile(
    r"\b(?:explain|format|reformat|fix|parse|validate|convert|correct|repair|debug|describe"
    r"|summari[sz]e|analy[sz]e|interpret|review|check|prettify|pretty-print|minify|translate"
    r"|transform|rewrite|clean|edit|modify|read|what)\b"
    r"(?:\s+(?!(?:to|into|as|in|with|and|then|using|from|of|like)\b)[\w'-]+){0,3}\s+json\b",
    re.I,
)
# a sentence ending asking the answer be what follows it and nothing else ("Respond ONLY
# with:", "Reply with:"): the shape shown is the answer's, named JSON or not
_WITH = re.compile(r"\b(?:respond|reply|answer)\s+(?:only\s+)?with(?:\s+only)?\s*:\Z", re.I)
# its end, searched for in a lower-cased text: a literal first, found as fast as "json" is
_WITH_TAIL = re.compile(r"with(?:\s+only)?\s*:")
# a list of strings asked for in a form shown: "a list of strings in the following format:",
# "a JSON array like", "an array of queries, e.g." (with `_ANSWER`, `list_asked`)
_LIST_ASK = re.compile(
    r"\b(?:list|array)\b.*(?:\b(?:format|json|like|such\s+as|example|shown|follows)\b|\be\.g\.)"
    r"|\bjson\b.*\b(?:list|array)\b",
    re.I | re.S,
)
# a list written as a value inside other JSON (a schema's `"required": [...]`), not shown alone
_INSIDE = re.compile(r'(?:"\s*:|[\[,])\s*\Z')
# words of a tool listing: a schema they introduce is a tool's input, not the answer
_TOOLISH = re.compile(r"\b(?:tools?|action|arguments?|args|param(?:eter)?s?|functions?)\b", re.I)
_SHAPE_WORD = re.compile(r"\b(?:json|structure|format|schema|shape|fields)\b", re.I)
_FENCE_OPENING = re.compile(r"```(?:json)?\s*\Z", re.I)
# a Markdown heading naming a shape, as the last line of a lead ("## Structure",
# "### Output format:", "## Example"): what asks for it is the paragraph before
_SHAPE_HEADING = re.compile(
    r"(?:\A|\n)[ \t]{0,3}#{1,6}[ \t]+[^\n]*"
    r"\b(?:structure|format|schema|shape|output|example|template|json)\b[^\n]*\Z",
    re.I,
)
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]", re.M)  # a Markdown heading's line
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def may_introduce(text: str) -> bool:
    """Whether `text` may hold a sentence `introduced` accepts: it names JSON, or may ask
    the answer be what follows (`_WITH_TAIL`, "with:"), searched for as plainly as "json":
    `_WITH` over a whole long prompt took 10 ms."""
    lowered = text.lower()
    return "json" in lowered or _WITH_TAIL.search(lowered) is not None


def introduced(text: str, start: int) -> bool:
    """Whether the sentence leading into what `text` writes at `start` (less a fence
    opening) asks for the answer in JSON (`_ANSWER`) or ends asking it be what follows
    (`_WITH`), and neither asks something be done to the JSON shown (`_ABOUT`)
    nor names a tool, action or arguments."""
    sentence = _asking(text, start)
    asks = _JSON.search(sentence) and _ANSWER.search(sentence)
    return bool(
        (asks or _WITH.search(sentence))
        and not _ABOUT.search(sentence)
        and not _TOOLISH.search(sentence)
    )


def list_asked(text: str, start: int) -> bool:
    """Whether the sentence leading into the list `text` writes at `start` asks for the
    answer as a list in a form shown (`_LIST_ASK`; gpt-researcher's "You must respond with a
    list of strings in the following format: [...]"), as `introduced` reads a sentence but
    for a list or array, not JSON, named; not where the list is inside other JSON
    (`_INSIDE`: ragas's schema's `"required": ["statements"]`)."""
    sentence = _asking(text, start)
    return bool(
        not _INSIDE.search(sentence)
        and _LIST_ASK.search(sentence)
        and _ANSWER.search(sentence)
        and not _ABOUT.search(sentence)
        and not _TOOLISH.search(sentence)
    )


def names(text: str, start: int, noun: str) -> bool:
    """Whether the sentence leading into what `text` writes at `start` names `noun` and a
    shape ("Each task should follow this JSON structure:")."""
    sentence = _last_sentence(_lead(text, start))
    named = re.search(r"\b" + re.escape(noun) + r"s?\b", sentence, re.I)
    return bool(named and _SHAPE_WORD.search(sentence))


def _asking(text: str, start: int) -> str:
    """The sentence leading into what `text` writes at `start`, read past a fence opening
    (```` ```json ````) just before it; where that is a heading naming a shape
    (`_SHAPE_HEADING`), the paragraph before the heading with it (`_under_heading`)."""
    lead = _FENCE_OPENING.sub("", _lead(text, start).rstrip()).rstrip()
    heading = _SHAPE_HEADING.search(lead)
    if heading is None:
        return _last_sentence(lead)
    return _under_heading(lead[: heading.start()]) + "\n" + heading.group().strip()


def _under_heading(before: str) -> str:
    """The paragraph `before` ends with, only its lines after a heading's (that heading's
    section is another's): the words leading into a heading that names a shape."""
    paragraph = _PARAGRAPH_BREAK.split(before.rstrip())[-1]
    headings = list(_HEADING.finditer(paragraph))
    if headings:
        paragraph = paragraph[headings[-1].start() :].partition("\n")[2]
    return paragraph.strip()


def _lead(text: str, start: int) -> str:
    """The `_LEAD` characters of `text` before `start`: where the sentence introducing what
    is written there is read."""
    return text[max(0, start - _LEAD) : start]


def _last_sentence(lead: str) -> str:
    """The sentence the text `lead` ends with (the one leading into what follows it)."""
    return PARAGRAPH_SENTENCE_END.split(lead.rstrip())[-1]
