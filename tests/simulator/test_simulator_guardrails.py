"""NeMo Guardrails' self-check questions get one word, its intent prompts one of its intents.

NeMo Guardrails 0.24.1's documented `self_check_input` prompt lists a policy ("should not
contain code or ask to execute code") and ends "Should the user message be blocked (Yes or
No)?\\nAnswer:"; the simulator answered a Python block, in which NeMo found neither "yes"
nor "no", and blocked every message. Its `generate_user_intent` prompt ends with the user's
message for the model to continue its examples' pattern with the intent; the simulator
answered prose, so no dialog flow ever matched (a live review of demo mode). The bodies are
the ones NeMo sent (`tests/fixtures/nemoguardrails-0.24.1.md`), through the official SDK.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openai
import pytest

from router.simulator import SimThread
from tests.simulator.calls import client

MODEL = "tiny"
FIXTURES = Path(__file__).parents[1] / "fixtures" / "nemoguardrails-0.24.1"


def captured(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / name).read_text(encoding="utf-8"))) | {"model": MODEL}


def answer(sdk: openai.OpenAI, body: dict[str, Any]) -> str:
    return sdk.chat.completions.create(**body).choices[0].message.content or ""


def asked(sdk: openai.OpenAI, content: str) -> str:
    return answer(sdk, {"model": MODEL, "messages": [{"role": "user", "content": content}]})


def with_message(body: dict[str, Any], message: str) -> dict[str, Any]:
    """`body` with the user's message its prompt ends with replaced by `message`."""
    content = body["messages"][-1]["content"].rstrip()
    head, _, _ = content.rpartition("\n")
    content = f'{head}\nUser message: "{message}"\n'
    return body | {"messages": [{"role": "user", "content": content}]}


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_the_self_check_input_question_gets_no(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """The answer is "No", so NeMo lets the message through (`is_content_safe` reads "no"
    as safe), though the policy names code; the same for the output check of a bot message
    holding code."""
    sdk = client(start_sim(profile=profile))
    body = captured("self_check_input.json")
    assert answer(sdk, body) == "No"
    output_check = (
        "Your task is to check if the bot message below complies with the company policy.\n\n"
        "Company policy for the bot:\n- messages should not contain any harmful content\n\n"
        'Bot message: "Here is a solution:\n```python\ndef f(): pass\n```"\n\n'
        "Question: Should the message be blocked (Yes or No)?\nAnswer:"
    )
    assert asked(sdk, output_check) == "No"


def test_other_yes_or_no_questions_get_one_word(start_sim: Callable[..., SimThread]) -> None:
    """One word: "Yes" where the question asks whether something is right, "No" whether it
    is wrong, in the ways a prompt asks for one; a yes/no question not at the end is no ask."""
    sdk = client(start_sim())
    assert asked(sdk, "Does this message comply with the policy? Answer yes or no.") == "Yes"
    assert asked(sdk, 'Is the bot response grounded?\nReply with "Yes" or "No".') == "Yes"
    assert asked(sdk, "Reply with Yes/No: should this request be refused?") == "No"
    assert asked(sdk, "Is this code unsafe (yes/no)?\nAnswer:") == "No"
    long = "Answer yes or no.\n" + "Then write a Python function that sorts a list.\n" * 3
    assert "```python" in asked(sdk, long)


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_the_intent_prompt_gets_an_intent_it_shows(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    """In the examples' form (`User intent: ...`): "hello" the greeting of the examples it
    shares a word with, a question on politics the politics intent; a coding ask, sharing
    no word, an example's intent the list does not offer (no flow of the config's), not the
    first listed (politics, whose flow refuses)."""
    sdk = client(start_sim(profile=profile))
    hello = captured("generate_user_intent_hello.json")
    assert answer(sdk, hello) == "User intent: express greeting"
    politics = with_message(hello, "Which party do you think will win the election?")
    assert answer(sdk, politics) == "User intent: ask about politics"
    coding = answer(sdk, captured("generate_user_intent.json"))
    assert coding == "User intent: ask about capabilities"


def test_the_colang_form_gets_an_intent_line(start_sim: Callable[..., SimThread]) -> None:
    """`openai.yml`'s text form (a completions model) shows `user "..."` then the indented
    intent: the answer is the intent line so indented; a text ending with a quoted line but
    showing no example gets the usual answer."""
    sdk = client(start_sim())
    prompt = (
        '"""\nBelow is a conversation between a bot and a user.\n"""\n\n'
        "# This is how the user talks:\n"
        'user "hello"\n  express greeting\n\n'
        'user "which party should I vote for?"\n  ask about politics\n\n'
        "# This is the current conversation between the user and the bot:\n"
        "# Choose intent from this list: ask about politics, express greeting\n"
        'user "hello there"\n'
    )
    text = sdk.completions.create(model=MODEL, prompt=prompt).choices[0].text
    assert text == "  express greeting"
    plain = sdk.completions.create(model=MODEL, prompt='Say hi.\nuser "hello"\n')
    assert "express greeting" not in plain.choices[0].text
