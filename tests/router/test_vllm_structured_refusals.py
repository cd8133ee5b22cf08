"""What an `openai` SDK client gets through the router when vLLM refuses a malformed
structured-output request. Asked of `local` alone: the backend's 400, OpenAI-shaped, in one
attempt, never a 502. vLLM 0.32 refuses some in its engine, after a stream's 200, as an error
event with `code: 400`: the router took that event for a failing backend, and with no backend
left the client got a 502 for its own mistake (found beside a live vLLM). With a fallback,
such an in-band 400 is tried on the next backend first, as every in-band error is: the same
event is the model's failure as often (Groq's `tool_use_failed`, Anthropic's content filter),
and stopping at it cost those requests their fallback (found in review). The simulator
refuses as vLLM does (router/simulator/structured.py); its valid `structured_outputs` passes
through the router to it.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from tests.harness import Running

HELLO: Any = [{"role": "user", "content": "What is the weather like in Paris today?"}]
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
NONSENSE = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "nonsense"}}}
NO_SCHEMA = {"type": "json_schema", "json_schema": {"name": "x"}}
NONE_SPECIFIED = (
    "You must use one kind of structured outputs constraint but none are specified: "
    "{'json': None, 'regex': None, 'choice': None, 'grammar': None, 'json_object': None, "
    "'disable_any_whitespace': False, 'disable_additional_properties': False, "
    "'whitespace_pattern': None, 'structural_tag': None, '_backend': None, "
    "'_backend_was_auto': False}"
)
CASES: list[tuple[dict[str, Any], str]] = [
    ({"response_format": NONSENSE}, "Grammar error: Invalid type: nonsense"),
    ({"response_format": NO_SCHEMA}, NONE_SPECIFIED),
    ({"structured_outputs": {"json": "{not json"}}, "Invalid JSON grammar specification."),
    ({"structured_outputs": {"choice": []}}, "Choice '[]' cannot be an empty list"),
    (
        {"structured_outputs": {"json": SCHEMA, "choice": ["yes", "no"]}},
        "You can only use one kind of constraints for structured outputs "
        "('json', 'regex' or 'choice').",
    ),
]
IDS = ["invalid_schema", "no_schema", "bad_json", "empty_choice", "two_kinds"]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize(("extra", "says"), CASES, ids=IDS)
def test_a_structured_output_vllm_refuses_is_the_clients_400_from_local(
    client: openai.OpenAI,
    backends: dict[str, Running],
    extra: dict[str, Any],
    says: str,
    stream: bool,
) -> None:
    """Streamed or not, whether vLLM refused before its 200 or in its stream after it."""
    served = backends["cloud"].completions()
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(
            model="local", messages=HELLO, max_tokens=5, stream=stream, extra_body=extra
        )
    headers = refused.value.response.headers
    assert (headers["x-smf-backend"], headers["x-smf-attempts"]) == ("local", "1")
    error = refused.value.response.json()["error"]
    assert error["message"] == says
    assert error["code"] is None or isinstance(error["code"], str)  # OpenAI's, not vLLM's 400
    assert backends["cloud"].completions() == served


# The cases vLLM refuses in its engine, after a stream's 200; the others before it
IN_STREAM = {"invalid_schema", "bad_json", "empty_choice"}


@pytest.mark.parametrize(("extra", "says"), CASES, ids=IDS)
def test_only_a_refusal_in_the_stream_is_tried_on_the_next_backend(
    client: openai.OpenAI,
    backends: dict[str, Running],
    extra: dict[str, Any],
    says: str,
    request: pytest.FixtureRequest,
) -> None:
    """Before its 200 vLLM's 400 passes through, as any backend's 4xx over HTTP does; in its
    stream it is an in-band error, tried on the cloud (which takes any schema, so answers).
    Not a request with vLLM's own `structured_outputs`: the plan keeps the cloud out of it
    (`router.vllm_fields`; the cloud reads no such field and answered it unconstrained), so
    vLLM's 400 is the client's, the cloud untried."""
    served = backends["cloud"].completions()
    asked: Any = {"model": "coding", "messages": HELLO, "max_tokens": 5, "extra_body": extra}
    if request.node.callspec.id in IN_STREAM and "structured_outputs" not in extra:
        raw = client.chat.completions.with_raw_response.create(**asked, stream=True)
        headers, _ = raw.headers, list(raw.parse())
        assert (headers["x-smf-backend"], headers["x-smf-attempts"]) == ("cloud", "2")
        assert backends["cloud"].completions() == served + 1
        return
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(**asked, stream=True)
    assert refused.value.response.headers["x-smf-attempts"] == "1"
    assert refused.value.response.json()["error"]["message"] == says
    assert backends["cloud"].completions() == served


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_vllms_structured_outputs_field_reaches_it_through_the_router(
    client: openai.OpenAI, stream: bool
) -> None:
    """Passed through as vLLM's other extras are, and honoured: the answer is JSON valid
    against the schema (the simulator builds it as for a `response_format`)."""
    extra = {"structured_outputs": {"json": SCHEMA}}
    if stream:
        chunks = client.chat.completions.create(
            model="local", messages=HELLO, stream=True, extra_body=extra
        )
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    else:
        reply = client.chat.completions.create(model="local", messages=HELLO, extra_body=extra)
        text = reply.choices[0].message.content or ""
    assert json.loads(text) == {"city": "Paris"}
    choice = client.chat.completions.create(
        model="local", messages=HELLO, extra_body={"structured_outputs": {"choice": ["no", "yes"]}}
    )
    assert choice.choices[0].message.content == "no"
