"""A shape shown under a Markdown heading naming it is asked for by the paragraph before it.

mem0 2.2.1's extraction prompt ends "# OUTPUT FORMAT\\n\\nReturn ONLY valid JSON parsable by
json.loads(). No text, reasoning, explanations, or wrappers.\\n\\n## Structure\\n\\n{"memory":
[...]}". Read as the heading alone, the sentence leading into the example asked for no JSON,
so the simulator answered the `json_object` filler (`{"answer": ...}`), mem0 read
`.get("memory", [])` as none, and in demo mode every `Memory.add()` stored nothing (found in
a live review). The bodies are the ones mem0 sent (`tests/fixtures/mem0ai-2.2.1.md`), through
the official SDK; the answer is read as mem0 reads it (`lead_in._asking`)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from router.simulator import SimThread
from router.simulator.prompted import asked_json
from tests import recorded
from tests.simulator.calls import client

MODEL = "tiny"
FIXTURES = recorded.FIXTURES / "mem0ai-2.2.1"
EXTRACTIONS = ["extraction-first.json", "extraction-second.json", "extraction-agent.json"]
EXAMPLE = '{"title": "your title"}'


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
@pytest.mark.parametrize("name", EXTRACTIONS)
def test_mem0s_extraction_gets_memories_in_its_examples_shape(
    start_sim: Callable[..., SimThread], profile: str, name: str
) -> None:
    """The whole content is JSON with the one key "memory": two or three objects of the
    example's first one's keys, each a string `text` and `attributed_to`, which mem0 keeps
    (`mem0/memory/main.py` reads those two). The same body gets the same answer."""
    sdk = client(start_sim(profile=profile))
    body = recorded.body(FIXTURES / name) | {"model": MODEL}
    assert body["response_format"] == {"type": "json_object"}
    content = sdk.chat.completions.create(**body).choices[0].message.content or ""
    answer = json.loads(content)
    assert list(answer) == ["memory"]
    memories = answer.get("memory", [])
    assert 2 <= len(memories) <= 3
    for memory in memories:
        assert list(memory) == ["id", "text", "attributed_to", "linked_memory_ids"]
        assert all(
            isinstance(memory[key], str) and memory[key] for key in ("text", "attributed_to")
        )
    assert sdk.chat.completions.create(**body).choices[0].message.content == content


@pytest.mark.parametrize(
    "prompt",
    [
        f"# Output\n\nReturn ONLY valid JSON. No text.\n\n## Structure\n\n{EXAMPLE}",
        f"Respond in JSON.\n## Output format\n```json\n{EXAMPLE}\n```",
        f"Your answer must be JSON.\n\n### Example:\n{EXAMPLE}",
        f"Reply with a JSON object.\n\n## Respond in this format\n\n{EXAMPLE}",
    ],
)
def test_the_paragraph_before_a_shapes_heading_asks_for_it(prompt: str) -> None:
    """A heading naming a shape (structure, format, example) is read with the paragraph
    before it, a blank line between them or none, past a fence opening."""
    found = asked_json("", prompt)
    assert found is not None and found.example == json.loads(EXAMPLE)


@pytest.mark.parametrize(
    "prompt",
    [
        f"Respond in JSON.\n\n## User data\n\n{EXAMPLE}",  # a heading naming no shape
        f"Respond in JSON.\n\n# Input\n\n## Structure\n\n{EXAMPLE}",  # only a heading before
        f"Respond in JSON.\n# Input\nThe data.\n## Structure\n{EXAMPLE}",  # another section
        f"Explain what this JSON means.\n\n## Example\n\n{EXAMPLE}",  # JSON the user shows
        f"Write the tool arguments in JSON.\n\n## Format\n\n{EXAMPLE}",  # a tool's input
        f"Respond in JSON.\n\nThe data follows.\n\n## Structure\n\n{EXAMPLE}",  # one back only
    ],
)
def test_a_heading_is_read_only_with_its_own_sections_paragraph(prompt: str) -> None:
    """The paragraph read is the one just before the heading, in its section: no further
    back, not past another heading, and read as any lead is (no JSON the user shows, no
    tool's)."""
    assert asked_json("", prompt) is None
