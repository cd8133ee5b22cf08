"""What reaches an `openai` SDK client through the router when vLLM cuts an answer short or
refuses a body, now that the simulator does as vLLM 0.32 does (it returned whole tool
calls past `max_tokens`, ignored `stop`, and served bodies vLLM refuses).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.agent_apis.agent_stack import CHAT_WEATHER_TOOLS
from tests.harness import Running

TOOLS: Any = CHAT_WEATHER_TOOLS
WEATHER: Any = [{"role": "user", "content": "What's the weather in Paris?"}]
SAID = "Paris is sunny today, and London is grey."
HELLO: Any = [{"role": "user", "content": "Hello there"}]


@pytest.fixture
def scripted(backends: dict[str, Running]) -> Iterator[None]:
    backends["local"].control("replies", {"Hello there": SAID})
    yield
    backends["local"].control("replies", {"Hello there": None})


def test_a_forced_call_cut_by_max_tokens_is_text_cut_by_length(client: openai.OpenAI) -> None:
    """vLLM writes the call as text its parser reads back: cut, it stays text, no call."""
    raw = client.chat.completions.with_raw_response.create(
        model="local", messages=WEATHER, tools=TOOLS, tool_choice="required", max_tokens=5
    )
    choice = raw.parse().choices[0]
    assert (raw.headers["x-smf-backend"], raw.headers["x-smf-attempts"]) == ("local", "1")
    assert choice.finish_reason == "length" and choice.message.tool_calls is None
    assert (choice.message.content or "").startswith("<tool_call>")


def test_a_forced_call_cut_by_max_tokens_streams_no_call(client: openai.OpenAI) -> None:
    chunks = list(
        client.chat.completions.create(
            model="local",
            messages=WEATHER,
            tools=TOOLS,
            tool_choice="required",
            max_tokens=5,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    choices = [c.choices[0] for c in chunks if c.choices]
    assert not any(c.delta.tool_calls for c in choices)
    assert "".join(c.delta.content or "" for c in choices) == ""
    assert [c.finish_reason for c in choices if c.finish_reason] == ["length"]
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 5


def test_a_required_call_reaches_the_client_whole(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="local", messages=WEATHER, tools=TOOLS, tool_choice="required"
    )
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content == ""
    [call] = choice.message.tool_calls or []
    assert call.function.name == "get_weather"  # type: ignore[union-attr]


@pytest.mark.usefixtures("scripted")
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_stop_string_ends_the_answer_where_it_begins(client: openai.OpenAI, stream: bool) -> None:
    if stream:
        chunks = list(
            client.chat.completions.create(
                model="local", messages=HELLO, stop=["London"], stream=True
            )
        )
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
        assert finishes[-1] == "stop" and not any(finishes[:-1])
    else:
        completion = client.chat.completions.create(model="local", messages=HELLO, stop="London")
        text = completion.choices[0].message.content or ""
        assert completion.choices[0].finish_reason == "stop"
    assert text == "Paris is sunny today, and "


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ({"tools": [], "tool_choice": "required"}, "`tools` must not be an empty array"),
        ({"tool_choice": "required"}, "When using `tool_choice`, `tools` must be set."),
        ({"stream_options": {"include_usage": True}}, "Stream options can only be defined"),
        ({"top_logprobs": 2}, "when using `top_logprobs`, `logprobs` must be set to true."),
        ({"stop": ["a", "b", "c", "d", "e"]}, "List should have at most 4 items"),
    ],
    ids=["empty_tools", "choice_without_tools", "stream_options_whole", "top_logprobs", "stops"],
)
def test_a_body_vllm_refuses_is_the_clients_400_from_local(
    client: openai.OpenAI, extra: dict[str, Any], says: str
) -> None:
    """The client's own mistake: passed through as vLLM said it, no fallback to the cloud,
    which would have served all but `tools: []` forcing a call (OpenAI refuses it too). An
    empty `tools` that forces nothing the router sends as no tools
    (`router.backends.empty_tools`)."""
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.with_raw_response.create(
            model="coding", messages=HELLO, max_tokens=5, extra_body=extra
        )
    assert says in refused.value.message
    assert refused.value.response.headers["x-smf-backend"] == "local"
