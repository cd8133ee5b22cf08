"""DSPy 2.x's requests (STORM's), on the classifier's view and the conversation key alone
(`classifier.dsp_template.legacy_ask`): a call is read by its task and its inputs, not by dsp's
template around them. The bodies are dspy_ai 2.4.9's own renderings of STORM 1.1.1's
signatures (`tests/fixtures/storm-1.1.1.md`).
"""

from __future__ import annotations

import pytest

from classifier import classify
from classifier.dsp_template import GUIDELINES, LEGACY_PARTS, RATIONALE, legacy_ask
from classifier.request import view
from router.conversation import KEY_CHARS, conversation_key
from tests.recorded import FIXTURES, loader

captured = loader(FIXTURES / "storm-1.1.1")
SECTION_TASK = "Write a Wikipedia section based on the collected information."
OUTLINE_TASK = "Write an outline for a Wikipedia page."
PERSONA = (
    "Aerospace engineer: focuses on the physics and engineering of sail deployment and"
    " attitude control."
)
# The template's own words, none of which an ask read of a call holds
TEMPLATE = (
    "Follow the following format.",
    "${",
    "The section you need to write:",
    "Write the section with proper inline citations",
    "Here is the format of your writing:",
    "Topic you want to write:",
    "Let's think step by step",
)


def prompt(name: str) -> str:
    return str(captured(name)["messages"][0]["content"])


def test_dsps_texts_are_the_ones_it_sends() -> None:
    """The texts `legacy_ask` matches, in the prompts dspy_ai 2.4.9 rendered
    (`dsp/templates/template_v2.py`: parts joined by "---", "Follow the following format.",
    ChainOfThought's rationale)."""
    for name in ("section-history.json", "outline.json", "question.json"):
        assert GUIDELINES in prompt(name)
    assert RATIONALE in prompt("question.json")
    lead = prompt("lead.json")  # called with `show_guidelines=False`
    assert LEGACY_PARTS in lead and GUIDELINES not in lead


@pytest.mark.parametrize("section", ["history", "missions"])
def test_section_writing_is_writing(section: str) -> None:
    """Read as sent, a section was instruction (0.89) by the template's output prefix and
    STORM's format rules; read by its task and its inputs, it is writing."""
    body = captured(f"section-{section}.json")
    seen = view(body)
    assert seen.latest.startswith(SECTION_TASK + "\n[1]\nA solar sail is a method")
    assert seen.latest.endswith(f"\nSolar sail\n{section.title()}")
    assert not any(words in seen.latest for words in TEMPLATE)
    assert classify(body).label == "writing"


def test_an_outline_is_writing() -> None:
    body = captured("outline.json")
    assert view(body).latest == f"{OUTLINE_TASK}\nSolar sail"
    assert classify(body).label == "writing"


def test_two_sections_of_one_article_are_two_conversations() -> None:
    """Their prompts are alike up to the section's name, past the key's first 2,048
    characters: as sent they keyed as one conversation, the first section's pin holding the
    others'. Read so, each is its own."""
    history, missions = prompt("section-history.json"), prompt("section-missions.json")
    assert history[:KEY_CHARS] == missions[:KEY_CHARS] and history != missions
    keys = {
        conversation_key(captured(f"section-{s}.json"), {}, "c") for s in ("history", "missions")
    }
    assert len(keys) == 2


def test_a_call_and_its_retry_are_one_ask_and_one_conversation() -> None:
    """dsp's retry after a reply without the last field (greedy, the rationale filled in)
    is read and keyed as the call was: the rationale is the model's words, no input."""
    call, retry = captured("question.json"), captured("question-retry.json")
    assert retry["temperature"] == 0.0 and "Reasoning: Let's think" in prompt("question-retry.json")
    asked = view(call).latest
    assert asked == view(retry).latest
    assert asked.split("\n")[1:3] == ["Solar sail", PERSONA]
    assert "membrane materials" not in asked  # the rationale's words
    assert conversation_key(call, {}, "c") == conversation_key(retry, {}, "c")


def test_demos_and_dspys_default_instructions_are_passed_over() -> None:
    """A `Predict("question -> answer")` with two demos: its ask is the call's question, as
    DSPy 3's is; DSPy's own "Given the fields ..." is no task."""
    body = captured("dspy-demos-python.json")
    assert "What is the capital of France?" in prompt("dspy-demos-python.json")
    assert view(body).latest == "Write a Python function that reverses a list"
    assert classify(body).label == "coding"


def test_a_call_without_guidelines_is_read_as_sent() -> None:
    """STORM's lead section (`show_guidelines=False`): nothing tells its prefixes from its
    values."""
    assert legacy_ask(prompt("lead.json")) is None
    assert view(captured("lead.json")).latest == prompt("lead.json").rstrip()


@pytest.mark.parametrize(
    "text",
    [
        "Summarise this.\n\n---\n\nFollow the following format.\n\njust prose, no fields",
        "Summarise this.\n\n---\n\nFollow the following format.\n\nAnswer: ${answer}",
        "Summarise this.\n\n---\n\nFollow the following format.\n\nAnswer: ${answer}\n\n---\n\nhi",
        "Follow the following format.\n\nAnswer: ${answer}\n\n---\n\nAnswer: 4",
    ],
)
def test_the_templates_words_alone_are_read_as_written(text: str) -> None:
    """Guidelines without a field, without a query after them, or a query that does not open
    with their first field: a user's words."""
    assert legacy_ask(text) is None
    body = {"model": "auto", "messages": [{"role": "user", "content": text}]}
    assert view(body).latest == text


def test_guidelines_of_one_prefix_twice_are_read_as_written() -> None:
    """Two fields of one prefix are no template's (dsp tells a reply's fields by their
    prefixes): the text is read as sent, its query not looked through for each of them."""
    text = f"Task{GUIDELINES}A: ${{x}}\nA: ${{y}}{LEGACY_PARTS}A: v\nA: w\nA:"
    assert legacy_ask(text) is None
    body = {"model": "auto", "messages": [{"role": "user", "content": text}]}
    assert view(body).latest == text
