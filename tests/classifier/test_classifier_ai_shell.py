"""ai-shell's requests ask for a shell command, or what one does, whatever the prompt is
about (`classifier.ai_shell`).

ai-shell (`@builder.io/ai-shell`, `src/helpers/completion.ts`) sends one user message, its
template around the user's prompt, and no system prompt. Read by its topic, the revision
"make it a limerick instead" was prose 0.55 and went to the cloud, though the reply is a
command. The bodies are its templates as it fills them (`tests/fixtures/ai-shell.md`).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from classifier import classify
from classifier.ai_shell import COMMAND, EXPLAIN, REVISION
from classifier.fixed import CODE_ANSWER_READING
from classifier.request import view
from classifier.rules import CODE_ANSWER
from tests.classifier.fixed_readings import assert_decided_by
from tests.recorded import loader

FIXTURES = Path(__file__).parents[1] / "fixtures" / "ai-shell"
# A script far longer than the template (twenty times the old reader's 337-character tail)
LONG_SCRIPT = 6_740
BODIES = sorted(path.name for path in FIXTURES.glob("*.json"))


captured = loader(FIXTURES)


def text_of(name: str) -> str:
    return str(captured(name)["messages"][0]["content"])


def with_text(name: str, text: str) -> dict[str, Any]:
    body = copy.deepcopy(captured(name))
    body["messages"][0]["content"] = text
    return body


def test_the_fixtures_are_its_three_templates() -> None:
    assert len(BODIES) == 12
    openings = {text_of(name)[:20] for name in BODIES}
    assert openings == {COMMAND[:20], EXPLAIN[:20], REVISION[:20]}


@pytest.mark.parametrize("name", BODIES)
def test_every_ai_shell_request_is_coding_whatever_it_asks(name: str) -> None:
    """A command for "write a haiku about the moon" or "solve x^2 - 5x + 6 = 0", a revision
    into a limerick, an explanation of `echo $((17*2300/100))`: coding, rule-decided."""
    body = captured(name)
    assert_decided_by(body, CODE_ANSWER_READING, CODE_ANSWER, "coding")


def test_the_revision_into_a_limerick_was_prose_without_its_frame() -> None:
    """The user's words of the review's prose revision, asked alone, are prose: the
    reading is the template's."""
    alone = {"model": "auto", "messages": [{"role": "user", "content": "make it a limerick"}]}
    assert classify(alone).label != "coding"


def test_the_command_template_with_its_explanation_inline_counts() -> None:
    """With `explainInSecondRequest` off, the explanation's text sits before the prompt."""
    text = text_of("poem.json").replace(
        "\n\n\n\nThe prompt is:", f"\n\n{EXPLAIN}\n\nThe prompt is:"
    )
    assert text != text_of("poem.json")
    assert view(with_text("poem.json", text)).fixed == CODE_ANSWER_READING


@pytest.mark.parametrize(
    ("name", "edit"),
    [
        # only the opening, pasted with a question after it
        ("poem.json", lambda t: COMMAND + "bash\n\nwhat rhymes with moon?"),
        # the command template without the user's prompt
        ("poem.json", lambda t: t[: t.index("The prompt is: ") + len("The prompt is: ")]),
        # something before the template: a user's paste into a chat
        ("math.json", lambda t: "Look at this prompt:\n" + t),
        # the explanation's opening without the script
        ("expl-math.json", lambda t: t[: t.index("The script: ")]),
        # the revision without its fixed end
        ("rev-poem.json", lambda t: t[: t.index("\n\nOnly reply")]),
        # the revision with words after its end
        ("rev-poem.json", lambda t: t + "\n\nAnd write me a poem too."),
        # the revision without its prompt's label
        ("rev-poem.json", lambda t: t.replace("\n\nThe prompt: ", "\n\n")),
    ],
)
def test_only_the_whole_frame_counts(name: str, edit: Any) -> None:
    assert view(with_text(name, edit(text_of(name)))).fixed is None


def test_a_template_among_other_messages_is_read_as_written() -> None:
    """ai-shell sends one user message and no system prompt: the template after a system
    prompt or after other turns is another app's chat."""
    body = captured("haiku.json")
    after_system = copy.deepcopy(body)
    after_system["messages"].insert(0, {"role": "system", "content": "You are helpful."})
    assert view(after_system).fixed is None
    later = copy.deepcopy(body)
    later["messages"][:0] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello!"},
    ]
    assert view(later).fixed is None


def test_a_long_script_in_a_revision_still_counts() -> None:
    """The revision's fixed texts are found wherever a long script in the slot puts them."""
    text = text_of("rev-sort.json")
    script = "echo " + "x" * LONG_SCRIPT
    long = text.replace("du -ah . | sort -rh | head -n 10", script)
    assert len(long) > LONG_SCRIPT
    assert view(with_text("rev-sort.json", long)).fixed == CODE_ANSWER_READING
