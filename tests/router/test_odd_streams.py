"""Odd streams from a scripted upstream: an opener that is garbage fails the attempt (the
next backend answers), and an end that leaves a choice unfinished is a cut."""

from __future__ import annotations

from pathlib import Path

import openai
import pytest

from tests.harness import chat_chunk, config_for, router, scripted_stream, simulator

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
