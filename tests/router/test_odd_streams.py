"""Odd streams from a scripted upstream: an opener that is garbage fails the attempt (the
next backend answers), and an end that leaves a choice unfinished is a cut."""

from __future__ import annotations

from pathlib import Path

import openai
import orjson
import pytest

from tests.harness import Collect, chat_chunk, config_for, router, scripted_stream, simulator

ANSWER = (
    b'data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m",'
    b'"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


def test_a_first_event_that_is_json_but_no_object_falls_back(tmp_path: Path) -> None:
    """`data: [1]` as the opener committed the stream (a 200, then only an error event)
    where the next backend could have answered; a non-JSON opener already fell back."""
    with (
        scripted_stream(b"data: [1]\n\n" + ANSWER) as local,
        simulator(profile="cloud", model="cloud-model") as cloud,
    ):
        with router(config_for({"local": local, "cloud": cloud}, tmp_path)) as proxy:
            client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
            with client.chat.completions.with_streaming_response.create(
                model="coding", messages=[{"role": "user", "content": "hi"}], stream=True
            ) as raw:
                backend = raw.headers["x-smf-backend"]
                text = "".join(c.choices[0].delta.content or "" for c in raw.parse() if c.choices)
        assert (backend, cloud.completions()) == ("cloud", 1)
        assert text


def test_a_stream_cut_while_one_of_its_choices_is_unfinished_ends_with_an_error(
    tmp_path: Path,
) -> None:
    """With `n: 2`, an upstream that closed after choice 0 finished but mid choice 1 got a
    `[DONE]` from the router: the client saw a normal end with choice 1 cut (found in
    review). Any choice without its finish reason makes the end a cut."""
    body = chat_chunk(0, "Hello") + chat_chunk(1, "Hel") + chat_chunk(0, " there", "stop")
    with scripted_stream(body) as local, router(config_for({"local": local}, tmp_path)) as proxy:
        client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
        stream = client.chat.completions.create(
            model="coding", messages=[{"role": "user", "content": "hi"}], stream=True, n=2
        )
        with pytest.raises(openai.APIError, match="cut"):
            for _ in stream:
                pass


def _chunk(choices: object) -> bytes:
    body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return b"data: " + orjson.dumps(body | {"choices": choices}) + b"\n\n"


HI = {"index": 0, "delta": {"content": "hi"}, "finish_reason": None}


@pytest.mark.parametrize(
    "odd",
    [
        [{**HI, "finish_reason": ["stop"]}],  # a finish reason that is not text
        [{**HI, "finish_reason": {"type": "stop"}}],
        ["hi"],  # a choice that is not an object
        {"0": HI},  # choices that are not a list
        [{**HI, "delta": "hi"}],  # a delta that is not an object (was a cut at [DONE])
    ],
    ids=["list-reason", "object-reason", "text-choice", "object-choices", "text-delta"],
)
def test_a_chunk_no_client_can_read_ends_the_stream_as_the_backends_fault(
    tmp_path: Path, odd: object
) -> None:
    """A finish reason that is not text raised TypeError in the relay (a 500 and a
    traceback of the router's own, found in review), a choice that is not an object an
    AttributeError. They are the backend's malformed reply: the stream ends with an error,
    and the local backend's record says `malformed`."""
    body = _chunk([HI]) + _chunk(odd) + b"data: [DONE]\n\n"
    with scripted_stream(body) as local, router(config_for({"local": local}, tmp_path)) as proxy:
        records = Collect()
        proxy.components.gateway.sinks.append(records)
        client = openai.OpenAI(base_url=proxy.url, api_key="x", max_retries=0)
        stream = client.chat.completions.create(
            model="coding", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        with pytest.raises(openai.APIError) as caught:
            for _ in stream:
                pass
        assert "internal router error" not in str(caught.value)
        record = records.wait(10)
    assert (record.outcome, record.attempts[0].error_kind) == ("upstream_error", "malformed")
