"""The agent frameworks' readers read a request's first message once, not once for each
message scanned, and bound what they read of a crafted one (`classifier.message.per_text`).

Classification runs on the router's event loop: a request of a few hundred short user
messages behind one long first message took 1.1 s to classify read by Semantic Kernel's
reader (an `html.unescape` of 64 KB for each "Transferred to" message), 150 ms by DSPy's (its
3,000 fields parsed again for each demo), found in review. Counted here, not timed: how
often the costly step runs, and how much of a crafted text it reads.
"""

from __future__ import annotations

from typing import Any

import pytest

from classifier import classify, crewai, dspy, marvin, semantic_kernel
from classifier.ask_text import ask_content
from classifier.clip import HEAD_BYTES, TAIL_BYTES
from classifier.message import read_system
from classifier.request import view
from router.conversation import conversation_key, prompt_text
from tests import recorded

STRUCT = dspy.STRUCTURE


def _counted(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """Replace `module.name` with a wrapper that records the length of each call's first
    argument (a text, when it is one), and return the record."""
    calls: list[int] = []
    inner = getattr(module, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        first = args[0] if args else None
        calls.append(len(first) if isinstance(first, str) else 0)
        return inner(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def _read(body: dict[str, Any]) -> None:
    """What the router does with a request's body: classify it, key it, keep its prompt."""
    classify(body)
    conversation_key(body, {}, "caller", b"secret")
    prompt_text(body)


def _magentic(facts_task: str) -> dict[str, Any]:
    """A Magentic manager's request: its facts' prompt of `facts_task`, then 200 rounds of an
    agent's reply after "Transferred to" it."""
    facts = semantic_kernel.FACTS_OPENING + facts_task + semantic_kernel.FACTS_END
    rounds = [
        message
        for _ in range(200)
        for message in (
            {"role": "assistant", "content": "a"},
            {"role": "user", "content": "Transferred to a"},
        )
    ]
    return {"model": "auto", "messages": [{"role": "user", "content": facts}, *rounds]}


def test_magentic_task_unescaped_once_per_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each "Transferred to" message asked whether the request is the manager's, and the task
    was unescaped for each: 130 times a request. A text once, now."""
    calls = _counted(monkeypatch, semantic_kernel, "unescape")
    body = _magentic("Compute 17 * 23 &amp; say why " + "x" * 60_000)
    _read(body)
    assert 1 <= len(calls) <= 2, len(calls)  # the facts' prompt, read once (its memo aside)
    assert ask_content(body["messages"][0], body["messages"]).startswith("Compute 17 * 23 & say")


def test_magentic_task_of_many_references_unescaped_as_read() -> None:
    """A task of 13,000 "&amp;" took 9 ms to unescape whole; unescaped as the classifier
    reads it (a head and a tail), it stays a task, read by its head."""
    body = _magentic("Write a haiku about autumn " + "&amp;" * 13_000 + " please")
    messages = body["messages"]
    seen = _lengths_unescaped(body)
    assert max(seen) <= HEAD_BYTES + TAIL_BYTES + 3, seen
    task = semantic_kernel.run_task(messages)
    assert task is not None and task.startswith("Write a haiku about autumn &&&")
    assert task.endswith("&& please")
    few = _magentic("Write a haiku about autumn &amp; winter " + "x" * 10_000)
    assert semantic_kernel.run_task(few["messages"]) == "Write a haiku about autumn & winter " + (
        "x" * 10_000
    )  # a task of a few references unescaped whole, as before


def _lengths_unescaped(body: dict[str, Any]) -> list[int]:
    """The length of each text `html.unescape` was given while the router read `body`."""
    with pytest.MonkeyPatch.context() as patch:
        calls = _counted(patch, semantic_kernel, "unescape")
        _read(body)
    return calls


def _dspy_system(inputs: int) -> dict[str, str]:
    """DSPy's system prompt of a signature of `inputs` input fields, `f1`...."""
    fields = "".join(f"{number}. `f{number}` (str):\n" for number in range(1, inputs + 1))
    text = dspy.FIELDS + fields + dspy.OUTPUTS[1:] + "1. `answer` (str):" + STRUCT
    return {"role": "system", "content": text}


def test_dspy_signature_parsed_once_per_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """A compiled program's demos: each asked whether it is one, and the signature's 3,000
    fields parsed again for each, 150 ms a request. Once, now (and once for ReAct's outputs)."""
    calls = _counted(monkeypatch, dspy, "_names")
    pairs = [
        {"role": role, "content": "q" if role == "user" else "a"}
        for _ in range(200)
        for role in ("user", "assistant")
    ]
    _read({"model": "auto", "messages": [_dspy_system(3000), *pairs]})
    assert 1 <= len(calls) <= 3, len(calls)


def test_dspy_fields_read_capped() -> None:
    """DSPy's signatures have a handful of inputs; of one declaring 3,000 the first
    `FIELDS_READ` are read as fields, the sections of the others part of the last's value."""
    system = _dspy_system(3000)
    sections = "\n\n".join(f"[[ ## f{number} ## ]]\nv{number}" for number in range(1, 41))
    ask = {"role": "user", "content": sections}
    messages = [system, ask]
    assert len(dspy._input_names(read_system(messages))) == dspy.FIELDS_READ == 32
    read = ask_content(ask, messages)
    assert isinstance(read, str)
    lines = read.split("\n")
    assert lines[:31] == [f"v{number}" for number in range(1, 32)]
    assert lines[31] == "v32" and "[[ ## f33 ## ]]" in read  # past the cap: a value's text


def _reference_sections(text: str, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """DSPy's sections found as the reader found them before: a look for each name in turn."""
    for opening, closing in dspy.LAYOUTS:
        found: list[tuple[str, int, int]] = []
        at = 0
        for name in names:
            head = opening.format(name)
            if not found:
                where = 0 if text.startswith(head) else -1
            else:
                where = text.find("\n\n" + head, at, at + dspy.WITHIN)
                where = where + 2 if where >= 0 else -1
            if where >= 0:
                found.append((name, where, where + len(head)))
                at = where + len(head)
        if found:
            ends = [start - 2 for _, start, _ in found[1:]] + [len(text)]
            return [
                (name, dspy._unclosed(text[value:end], closing.format(name)))
                for (name, _, value), end in zip(found, ends, strict=True)
            ]
    return []


@pytest.mark.parametrize(
    "text",
    [
        "[[ ## a ## ]]\nx\n\n[[ ## b ## ]]\ny\n\n[[ ## c ## ]]\nz",
        "[[ ## b ## ]]\ny\n\n[[ ## a ## ]]\nx\n\n[[ ## c ## ]]\nz",  # out of order
        "[[ ## a ## ]]\n\n\n[[ ## b ## ]]\n\n[[ ## c ## ]]\nz",  # empty values, shared breaks
        "[[ ## a ## ]]\nx\n\n[[ ## c ## ]]\nz\n\n[[ ## b ## ]]\ny",  # b after c: not read
        "[[ ## a ## ]]\n" + "y" * 70_000 + "\n\n[[ ## b ## ]]\nfar\n\n[[ ## c ## ]]\nz",
        "[[ ## a ## ]]\n" + "y" * 65_500 + "\n\n[[ ## b ## ]]\nedge",  # at the window's end
        "[[ ## a ## ]]\nx" + "\n\n[[ ## " * 8_200 + "\n\n[[ ## c ## ]]\nz",
        "[[ ## a ## ]]\nx" + "\n\n[[ ## b ## ]]\n" * 200 + "\n\n[[ ## c ## ]]\nz",
        "<a>\nx\n</a>\n\n<b>\ny\n</b>\n\n<c>\nz\n</c>",
        "<b>\ny\n</b>\n\n<ab>\nno\n</ab>\n\n<c>\nz\n</c>",
        "no section",
    ],
)
def test_dspy_sections_in_one_pass_as_before(text: str) -> None:
    """The sections found in one pass over the headings are the ones each name's own look
    found (`_reference_sections`), a crafted text's among them."""
    names = ("a", "b", "c")
    assert dspy._sections(text, names) == _reference_sections(text, names)


def test_dspy_headings_read_capped() -> None:
    """A text of nothing but one field's headings is read to `HEADINGS_READ` of them."""
    names = ("a", "b")
    text = "[[ ## a ## ]]\nx" + "\n\n[[ ## a ## ]]\n" * 5_000 + "\n\n[[ ## b ## ]]\ny"
    headings = dspy._Headings(dspy._heading(names, 0).finditer(text, 14))
    assert headings.first("b", 14, len(text)) == -1  # past the headings read
    assert headings._read == dspy.HEADINGS_READ


def test_crewai_role_read_once_per_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """crewAI's nudge after each tool asked whether the request is crewAI's, its system
    prompt looked through again for each. Once, now."""
    calls = _counted(monkeypatch, crewai, "_goal")
    system = crewai.ROLE_OPENING + "x" * 60_000 + crewai.GOAL + "to help"
    nudges = [
        message
        for _ in range(200)
        for message in (
            {"role": "assistant", "content": "a"},
            {"role": "user", "content": crewai.POST_TOOL},
        )
    ]
    messages = [{"role": "system", "content": system}, {"role": "user", "content": "Hi"}]
    _read({"model": "auto", "messages": messages + nudges})
    assert sum(1 for size in calls if size > 60_000) <= 1, calls


def test_framed_readers_keep_answers_per_text() -> None:
    """The memo keeps an answer for the very text only: an equal text of another request is
    read anew, and a changed first message is never answered for the old one."""
    first = _dspy_system(2)
    assert dspy._input_names(read_system([first])) == ("f1", "f2")
    other = {"role": "system", "content": first["content"].replace("`f2`", "`g2`")}
    assert dspy._input_names(read_system([other])) == ("f1", "g2")
    assert dspy._input_names(read_system([first])) == ("f1", "f2")


class _CountedIndent:
    """Marvin's indentation pattern (`classifier.marvin._INDENT`), recording the length of
    each text it takes the indentation out of."""

    def __init__(self, lengths: list[int]) -> None:
        self.lengths = lengths
        self.inner = marvin._INDENT

    def sub(self, replacement: str, text: str) -> str:
        self.lengths.append(len(text))
        return self.inner.sub(replacement, text)


def test_marvin_task_dedented_as_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Marvin task of 1 MB of instructions: dedented whole, and three times for the view
    and once more for the conversation key, it took 28 ms to classify where the same text
    under another system prompt took 0.4 ms (214 ms at 5.6 MB, found in review). Its ends
    only, now, each once, and read as that text is read alone."""
    poem = recorded.body(recorded.FIXTURES / "marvin-3.2.7" / "run-poem.json")
    lines = [f"line {number} of a very long instruction" for number in range(25_000)]
    part = poem["messages"][-1]["content"][0]
    part["text"] = part["text"].replace(
        "        Write a short poem about autumn leaves\n",
        "".join(f"        {line}\n" for line in lines),
    )
    lengths: list[int] = []
    monkeypatch.setattr(marvin, "_INDENT", _CountedIndent(lengths))
    _read(poem)
    bound = 9 * (HEAD_BYTES + TAIL_BYTES)
    assert lengths and max(lengths) <= bound, max(lengths)
    assert sum(lengths) <= 2 * bound, lengths  # one head and one tail: read once
    plain = {"model": "auto", "messages": [{"role": "user", "content": "\n".join(lines)}]}
    assert view(poem).latest == view(plain).latest
