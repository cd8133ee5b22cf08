"""Haystack's retrieval side calls: the user's query inside its ranker's and its query
expander's prompts.

Haystack (3.4.1) asks a chat generator, in a request of its own, to rank a retriever's
documents for a query (`haystack/components/rankers/llm_ranker.py`, `LLMRanker`: its
template's text before the query, `RANKER_OPENING`, the query, then "Documents:" and each
document, `RANKER_DOCUMENTS`) and to expand a query into others
(`haystack/components/query/query_expander.py`, `QueryExpander`: `EXPANDER_OPENING` with the
count asked for, the query in quotes, `EXPANDER_END`); each prompt is the request's one user
message, sent as `ChatMessage.from_user` (over chat completions, or over the Responses API by
their default generator). Read whole, the ranker was coding 0.81-0.92 for any query, "Why is
the sky blue?" among them (its JSON and the documents), and the expander instruction
0.30-0.54 (found in a review of agent frameworks).

Each wraps one query of the user's, as crush's title call wraps an ask (`classifier.crush`):
the query inside is read (`query_ask`), and keys the request as Haystack's
(`router.conversation.conversation_key`): a pipeline's ranking and expansion of one query are
one conversation, and a chat asking the same words another. A summary of a conversation is
another matter: it holds many asks and none is the request's, and takes the default route
(`classifier.agno`, `classifier.semantic_kernel`). Only the default prompts are known, and
only as the last message after system messages alone: a prompt of one's own, or Haystack's
sent later in a chat, is read as written; Haystack's sent as a chat's first message is read
as Haystack's (nothing in the messages tells the two apart). Haystack is no coding agent
(`classifier.rules.agent_session`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice
from typing import Any

from classifier.message import one_text

# `LLMRanker`'s `DEFAULT_PROMPT_TEMPLATE` (stripped): before the query, and after it (the
# first document's opening: the ranker sends none without documents)
RANKER_OPENING = (
    "You are ranking retrieved documents for relevance to a query.\n\nReturn valid JSON only,"
    ' with this structure:\n{\n  "documents": [\n    {"index": 1}\n  ]\n}\n\nRules:\n- Rank'
    " documents from most relevant to least relevant for answering the query.\n- Only include"
    " documents that are relevant to the query.\n- Do not return or rank documents that are"
    ' not relevant.\n- If none are relevant, return {"documents": []}.\n- Use only document'
    " indices from the provided documents.\n- Do not repeat document indices.\n- Do not"
    " include explanations or any text outside the JSON object.\n\nQuery:\n"
)
RANKER_DOCUMENTS = "\n\nDocuments:\n\nDocument 1:\ncontent: "
# `QueryExpander`'s `DEFAULT_PROMPT_TEMPLATE`: before the query (`{{ n_expansions }}` in
# it), and after it to its end
EXPANDER_OPENING = re.compile(
    re.escape(
        "\nYou are part of an information system that processes user queries for retrieval.\n"
        "You have to expand a given query into "
    )
    + r"\d{1,9}"
    + re.escape(
        " queries that are\nsemantically similar to improve retrieval recall.\n\nStructure:\n"
        "Follow the structure shown below in examples to generate expanded queries.\nThese"
        " examples show the output when 3 queries are requested.\n\nExamples:\n1.  Query:"
        ' "climate change effects"\n    {"queries": ["impact of climate change",'
        ' "consequences of global warming", "effects of environmental changes"]}\n\n2.  Query:'
        ' "machine learning algorithms"\n    {"queries": ["neural networks", "clustering'
        ' techniques", "supervised learning methods"]}\n\n3.  Query: "open source NLP'
        ' frameworks"\n    {"queries": ["natural language processing tools", "free nlp'
        ' libraries", "open-source NLP platforms"]}\n\nGuidelines:\n- Generate queries that use'
        " different words and phrasings\n- Include synonyms and related terms\n- Maintain the"
        " same core meaning and intent\n- Make queries that are likely to retrieve relevant"
        " information the original might miss\n- Focus on variations that would work well with"
        " keyword-based search\n- Respond in the same language as the input query\n\nYour"
        ' Task:\nQuery: "'
    )
)
EXPANDER_END = re.compile(
    re.escape(
        '"\n\nYou *must* respond with a JSON object containing a "queries" array with exactly '
    )
    + r"\d{1,9} expanded queries\.\Z"
)
# The end is looked for in the prompt's last characters
_END_SPAN = 160
# How far past the query the documents are looked for: past it, the text is read as written
WITHIN = 65_536
_SYSTEMS = 4  # system messages a generator may put before the prompt, at most


def query_ask(message: object, messages: Sequence[Any]) -> object:
    """The content of `message`, the query inside it when it is Haystack's ranker's or query
    expander's prompt, the last of `messages` after system messages alone; any other content
    as it is."""
    content = message.get("content") if isinstance(message, dict) else None
    text = one_text(message)
    if text is None or not messages or messages[-1] is not message:
        return content
    query = _query(text)
    return content if query is None or not _alone(messages) else query


def framed(messages: Sequence[Any]) -> bool:
    """Whether `messages` are a Haystack ranker's or query expander's request, read and keyed
    by its query (`query_ask`)."""
    last = messages[-1] if messages else None
    if not isinstance(last, dict) or last.get("role") != "user":
        return False
    return query_ask(last, messages) is not last.get("content")


def _query(text: str) -> str | None:
    """The query in `text` when it is one of Haystack's prompts whole; None otherwise."""
    if text.startswith(RANKER_OPENING):
        start = len(RANKER_OPENING)
        end = text.find(RANKER_DOCUMENTS, start, start + WITHIN + len(RANKER_DOCUMENTS))
        return text[start:end] if end >= 0 else None
    return _expanded(text)


def _expanded(text: str) -> str | None:
    """The query in `text` when it is the query expander's prompt whole; None otherwise."""
    opening = EXPANDER_OPENING.match(text)
    if opening is None:
        return None
    end = EXPANDER_END.search(text, max(opening.end(), len(text) - _END_SPAN))
    return text[opening.end() : end.start()] if end else None


def _alone(messages: Sequence[Any]) -> bool:
    """Whether the last of `messages` follows system messages alone (a few at most)."""
    if len(messages) > _SYSTEMS + 1:
        return False
    roles = (
        m.get("role") if isinstance(m, dict) else None for m in islice(messages, len(messages) - 1)
    )
    return all(role in ("system", "developer") for role in roles)
