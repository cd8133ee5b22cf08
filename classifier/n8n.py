"""n8n's structured-output nodes and its output parser's fix-up: a reply of a given form
over a text the request gives, whatever the text is about.

n8n (2.41.1, `@n8n/n8n-nodes-langchain`: `nodes/chains/InformationExtractor/constants.js`,
`TextClassifier/constants.js`, `SentimentAnalysis/SentimentAnalysis.node.js`) puts each
node's task in its system prompt, its output parser's format instructions after it (a JSON
Schema the reply must fill), and the item's text alone in the user message. Read by that
text, each request went where the data's topic went: the Sentiment Analysis of "The new
release is fantastic, setup took two minutes and everything just worked." was reasoning
0.42, on the cloud; the Information Extractor on an invoice math 0.30 (below
`classifier.min_confidence`: the default route); the Text Classifier on a billing complaint
tool_calling 0.47, with no tool offered (found running n8n against the router).

Yet each asks the same work of any text: a label out of given categories, or given fields
copied out of the text, in a fixed JSON form. That is instruction as the labelling policy
defines it (`classifier/data/audit/POLICY.md`: constraints on the output, "formats such as
JSON with given keys, transformations such as sort, extract, reformat, classify into given
labels"). Not reasoning: the answer is in the text given, nothing beyond it to know or work
out. Not the data's topic: an invoice's amounts are to be copied, not computed; a review's
tone is to be labelled, not argued. So each is instruction by rule (`RequestView.fixed`,
`classifier.rules.rule_intent`), on the local model, as other constrained replies over a
given text are. The Text Classifier's label only sends its item down a branch, whose nodes
do the work: a side request (`classifies`, `classifier.side_request`), it pins nothing. The
Information Extractor's fields and the Sentiment Analysis' label are the workflow's data,
the work itself, and pin as any request does.

Told by the system prompt's opening, exactly (`OPENINGS`), as n8n's default templates write
it; what follows varies (the categories, the schema, the multi-class and fallback lines). A
user may replace a node's system prompt (its "System Prompt Template" option): another
opening is read as written. So is a user's own "classify this text ..." without n8n's
system prompt, in n8n's Basic LLM Chain or any chat: it may come with a question beside it
(the model reads "Classify the sentiment of this text as positive, neutral or negative: ..."
as instruction itself, 0.74).

The fix-up: when a reply fails its parser, the Information Extractor (always), the Text
Classifier and the Sentiment Analysis (their "Enable Auto-Fixing" option) and the Auto-fixing
Output Parser node ask again with LangChain's `OutputFixingParser` prompt, `NAIVE_FIX_PROMPT`
(`nodes/output_parser/OutputParserAutofixing/prompt.js`; LangChain's own, JS and Python, is
the same text): one user message of the format instructions, the failed completion and the
parser's error, then "Please try again. Please only respond with an answer that satisfies
the constraints laid out in the Instructions:". A reply reshaped to a given form is
instruction too, whatever the completion held (read by its words, the extractor's retry was
instruction 0.51 in the review and is coding 0.56 by today's model). Told by the template
filled exactly (`FIX_PARTS`, `classifier.templates.fills`) as a request's one message:
pasted into a conversation, or edited in the parser node's options, it is read as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from classifier.message import System
from classifier.templates import fills, fixed_parts, text_of

# How each node's default system prompt opens, as 2.41.1 sends it: the Information
# Extractor's first two lines, the Text Classifier's up to its categories, the Sentiment
# Analysis' first two sentences (its categories come after them)
EXTRACTOR = (
    "You are an expert extraction algorithm.\nOnly extract relevant information from the text."
)
CLASSIFIER = "Please classify the text provided by the user into one of the following categories: "
SENTIMENT = (
    "You are highly intelligent and accurate sentiment analyzer. Analyze the sentiment of the"
    " provided text."
)
OPENINGS = (EXTRACTOR, CLASSIFIER, SENTIMENT)

# LangChain's `NAIVE_FIX_PROMPT`, as n8n's Auto-fixing Output Parser sends it
NAIVE_FIX = (
    "Instructions:\n"
    "--------------\n"
    "{instructions}\n"
    "--------------\n"
    "Completion:\n"
    "--------------\n"
    "{completion}\n"
    "--------------\n"
    "\n"
    "Above, the Completion did not satisfy the constraints given in the Instructions.\n"
    "Error:\n"
    "--------------\n"
    "{error}\n"
    "--------------\n"
    "\n"
    "Please try again. Please only respond with an answer that satisfies the constraints"
    " laid out in the Instructions:"
)
FIX_PARTS = fixed_parts(NAIVE_FIX, re.compile(r"\{\w+\}"))


def fixed_form(messages: Sequence[Any], system: System) -> bool:
    """Whether `messages` are a request of n8n's Information Extractor, Text Classifier or
    Sentiment Analysis (their system prompt opens with one of `OPENINGS`), or its output
    parser's fix-up (`fixes_reply`): the reply is a given form over a given text. `system`:
    the system prompt of `messages`."""
    opening = system.opening
    if opening is not None and opening.startswith(OPENINGS):
        return True
    return fixes_reply(messages)


def classifies(system: System) -> bool:
    """Whether `system`, a request's system prompt, is the Text Classifier's (it opens with
    `CLASSIFIER`): its label only sends the item down a branch of the workflow, whose nodes
    do the work; a side request (`classifier.side_request`)."""
    opening = system.opening
    return opening is not None and opening.startswith(CLASSIFIER)


def fixes_reply(messages: Sequence[Any]) -> bool:
    """Whether `messages` are one user message, `NAIVE_FIX` filled (`FIX_PARTS`)."""
    if len(messages) != 1 or not isinstance(messages[0], dict):
        return False
    if messages[0].get("role") != "user":
        return False
    text = text_of(messages[0].get("content"))
    return text is not None and fills(text, FIX_PARTS)
