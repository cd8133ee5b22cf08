"""Log probabilities and prompts on `/v1/completions`, as vLLM 0.32.0 serves them (its
`serving_completion`, and the CPU build's replies in tests/vllm/captures/) and OpenAI.

lm-eval scores a multiple-choice question with one request per choice, `echo: true`,
`logprobs: 1`, `max_tokens: 1`, sums `token_logprobs` past the question's tokens and checks
each is its `top_logprobs`' greatest; a batch sends a list of prompts, and its default
requests send token ids. The simulator answered `logprobs: null` (lm-eval crashed:
"'NoneType' object is not subscriptable"), a batch with its first prompt's choice alone, and
token ids with a 400 vLLM never gives (found running lm-eval 0.4.13 in review)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import openai
import pytest

from router.simulator import SimThread
from tests.vllm.wire_shape import load, sse_data

QUESTION = "The capital of France is"
# The cloud profile plays OpenAI, which serves `/v1/completions` for its completions models only.
INSTRUCT = "gpt-3.5-turbo-instruct"
HTTP = httpx.Client(trust_env=False, timeout=30)


def _sdk(sim: SimThread) -> openai.OpenAI:
    return openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)


def _post(sim: SimThread, body: dict[str, Any]) -> httpx.Response:
    return HTTP.post(sim.url + "/v1/completions", json={"model": "tiny", **body})


def _score(sim: SimThread, prompt: str) -> Any:
    """lm-eval's loglikelihood request for one choice."""
    done = _sdk(sim).completions.create(
        model="tiny", prompt=prompt, max_tokens=1, logprobs=1, echo=True, temperature=0
    )
    (choice,) = done.choices
    return choice, done.usage


def _offsets_add_up(lp: dict[str, Any], start: int) -> bool:
    """Each token's `text_offset` is the one before plus that token's length."""
    expected = [start]
    for token in lp["tokens"][:-1]:
        expected.append(expected[-1] + len(token))
    return bool(lp["text_offset"] == expected[: len(lp["tokens"])])


def _tops_hold_their_token(lp: dict[str, Any], most: int) -> bool:
    """Each `top_logprobs` entry starts with its token at its logprob, `most` + 1 at most."""
    return all(
        top is None
        or (next(iter(top)) == token and top[token] == value and 1 <= len(top) <= most + 1)
        for token, value, top in zip(
            lp["tokens"], lp["token_logprobs"], lp["top_logprobs"], strict=True
        )
    )


def test_lm_evals_scoring_request_gets_the_prompts_log_probabilities(vllm: SimThread) -> None:
    choice, usage = _score(vllm, QUESTION + " Paris")
    lp = choice.logprobs
    assert lp is not None and choice.text.startswith(QUESTION + " Paris")
    # the prompt's tokens, then the one generated: the first has nothing before it
    assert len(lp.tokens) == usage.prompt_tokens + 1
    assert lp.token_logprobs[0] is None and lp.top_logprobs[0] is None
    assert all(isinstance(x, float) and x < 0 for x in lp.token_logprobs[1:])
    raw = lp.model_dump()
    assert _offsets_add_up(raw, 0) and _tops_hold_their_token(raw, 1)
    generated, top = lp.token_logprobs[-1], lp.top_logprobs[-1]
    assert generated == max(top.values())  # greedy: lm-eval's `is_greedy`
    # what lm-eval sums: the numbers past the question's own tokens (`<s>` first), which
    # are the answer's and the answer's alone, each its top entry's
    ctxlen = _score(vllm, QUESTION)[1].prompt_tokens
    assert lp.tokens[ctxlen:-1] == [" Paris"]
    (continuation,) = lp.token_logprobs[ctxlen:-1]
    assert continuation < 0 and continuation == lp.top_logprobs[ctxlen][" Paris"]


def test_two_choices_of_a_question_share_its_numbers(vllm: SimThread) -> None:
    """One model gives the same beginning the same numbers: only the choices' own tokens
    tell the choices apart, as lm-eval compares them."""
    paris, _ = _score(vllm, QUESTION + " Paris")
    berlin, _ = _score(vllm, QUESTION + " Berlin")
    shared = len(paris.logprobs.tokens) - 2
    assert paris.logprobs.token_logprobs[:shared] == berlin.logprobs.token_logprobs[:shared]
    assert paris.logprobs.token_logprobs[shared] != berlin.logprobs.token_logprobs[shared]


def test_the_scoring_reply_is_shaped_as_vllms(tiny: SimThread) -> None:
    """Keys in vLLM's order, `prompt_logprobs` filled beside `logprobs` (vLLM asks the engine
    for the prompt's as many as `logprobs` when `echo` is set)."""
    captured = load("completions_echo_logprobs")
    live = _post(tiny, captured["request"]["body"]).json()["choices"][0]
    recorded = captured["body"]["choices"][0]
    assert list(live["logprobs"]) == list(recorded["logprobs"])
    assert [x is None for x in live["prompt_logprobs"][:2]] == [True, False]
    for entries in (live["prompt_logprobs"][1], recorded["prompt_logprobs"][1]):
        assert all(set(e) == {"logprob", "rank", "decoded_token"} for e in entries.values())
        assert all(key.isdigit() for key in entries) and 1 <= len(entries) <= 2


def test_logprobs_without_echo_are_the_generated_tokens(
    start_sim: Callable[..., SimThread],
) -> None:
    """vLLM counts `text_offset` from the start of what it shows; OpenAI from the end of the
    prompt (`text_offset: [16]` after a 16-character prompt, simonw/llm#284)."""
    captured = load("completions_logprobs")
    recorded = captured["body"]["choices"][0]["logprobs"]
    for profile, start in (("vllm", 0), ("cloud", len("Hello"))):
        model = INSTRUCT if profile == "cloud" else "tiny"
        sim = start_sim(profile=profile, max_model_len=512, model=model)
        reply = _post(sim, captured["request"]["body"] | {"model": model}).json()
        (choice,) = reply["choices"]
        lp = choice["logprobs"]
        assert set(lp) == set(recorded) and "".join(lp["tokens"]) == choice["text"]
        assert profile == "cloud" or list(lp) == list(recorded)
        assert len(lp["tokens"]) == reply["usage"]["completion_tokens"]
        assert _offsets_add_up(lp, start) and _tops_hold_their_token(lp, 2)
    assert list(lp) == ["tokens", "token_logprobs", "top_logprobs", "text_offset"]  # OpenAI's


def _skeleton(chunks: list[Any]) -> Iterator[tuple[object, ...]]:
    """What a client reads of a stream's chunks, text aside: whether each carries the
    prompt's ids, its log probabilities' keys, whether its first token has none, and
    whether its offsets go on from the chunk before."""
    offset = 0
    for chunk in chunks:
        if chunk == "[DONE]" or not chunk["choices"]:
            yield (chunk if chunk == "[DONE]" else "usage",)
            continue
        choice = chunk["choices"][0]
        lp = choice["logprobs"]
        follows = lp["text_offset"][:1] in ([], [offset])
        if lp["tokens"]:
            offset = lp["text_offset"][-1] + len(lp["tokens"][-1])
        first = lp["token_logprobs"][0] is None if lp["tokens"] else None
        yield isinstance(choice["prompt_token_ids"], list), tuple(lp), first, follows


def test_a_stream_carries_each_chunks_log_probabilities(tiny: SimThread) -> None:
    """The first chunk echoes the prompt with its token ids and the prompt's log
    probabilities before the first token's; each later chunk its tokens', offsets running
    on."""
    captured = load("completions_echo_logprobs_stream")
    live = _post(tiny, captured["request"]["body"])
    chunks = sse_data(live.text)
    assert list(_skeleton(chunks)) == list(_skeleton(sse_data(captured["body_raw"])))
    first = chunks[0]["choices"][0]
    assert first["text"].startswith("Hello there")
    assert len(first["prompt_token_ids"]) == chunks[-2]["usage"]["prompt_tokens"]


@pytest.mark.parametrize("profile", ["vllm", "cloud"])
def test_a_batch_gets_n_choices_for_each_prompt_in_order(
    start_sim: Callable[..., SimThread], profile: str
) -> None:
    model = INSTRUCT if profile == "cloud" else "tiny"
    sdk = _sdk(start_sim(profile=profile, model=model))
    prompts = ["Write a haiku", "Compute 2 + 2", "Name a colour"]
    done = sdk.completions.create(model=model, prompt=prompts, max_tokens=3, n=2)
    assert [c.index for c in done.choices] == list(range(6))
    alone = [sdk.completions.create(model=model, prompt=p, max_tokens=3) for p in prompts]
    assert [done.choices[2 * i].text for i in range(3)] == [a.choices[0].text for a in alone]
    assert done.usage is not None
    assert done.usage.prompt_tokens == sum(a.usage.prompt_tokens for a in alone if a.usage)


def test_a_batch_of_scoring_requests_scores_each_prompt(vllm: SimThread) -> None:
    """lm-eval's batched loglikelihood request: a choice per prompt, each echoing its own."""
    prompts = [QUESTION + " Berlin", "Water freezes at 100 degrees C"]
    done = _sdk(vllm).completions.create(
        model="tiny", prompt=prompts, max_tokens=1, logprobs=1, echo=True, temperature=0
    )
    assert [c.text.startswith(p) for c, p in zip(done.choices, prompts, strict=True)] == [
        True,
        True,
    ]
    assert all(
        c.logprobs is not None and c.logprobs.token_logprobs[0] is None for c in done.choices
    )


@pytest.mark.parametrize("prompt", [[297, 12, 55], [[297, 12, 55]], [[297, 12, 55], [40, 41]]])
def test_token_ids_are_a_prompt(vllm: SimThread, prompt: Any) -> None:
    """lm-eval's requests with a tokenizer (`tokenized_requests`, its default) send ids: one
    list is one prompt, a list of lists a batch; each id is a token of the prompt."""
    done = _sdk(vllm).completions.create(
        model="tiny", prompt=prompt, max_tokens=1, logprobs=1, echo=True, temperature=0
    )
    batch = prompt if isinstance(prompt[0], list) else [prompt]
    assert len(done.choices) == len(batch)
    for choice, ids in zip(done.choices, batch, strict=True):
        assert choice.logprobs is not None and len(choice.logprobs.tokens) == len(ids) + 1
    assert done.usage is not None and done.usage.prompt_tokens == sum(map(len, batch))
    streamed = _post(vllm, {"prompt": prompt, "max_tokens": 1, "echo": True, "stream": True})
    firsts = [c["choices"][0] for c in sse_data(streamed.text)[:-1] if c["choices"]]
    assert [c["prompt_token_ids"] for c in firsts if c["prompt_token_ids"]] == batch


def test_prompt_logprobs_alone_fill_vllms_field_not_logprobs(tiny: SimThread) -> None:
    captured = load("completions_prompt_logprobs")
    reply = _post(tiny, captured["request"]["body"]).json()
    for done in (reply, captured["body"]):
        (choice,) = done["choices"]
        assert choice["logprobs"] is None
        assert len(choice["prompt_logprobs"]) == done["usage"]["prompt_tokens"]
        assert choice["prompt_logprobs"][0] is None
        assert all(1 <= len(entries) <= 3 for entries in choice["prompt_logprobs"][1:])


REFUSED = [
    ({"logprobs": -1}, "Requested sample logprobs of 32000, which is greater than max allowed:"
     " 20 (parameter=logprobs, value=32000)"),
    ({"logprobs": -2}, "`logprobs` must be a positive value or -1. (parameter=logprobs, value=-2)"),
    ({"logprobs": "x"}, "`logprobs` must be an integer. (parameter=logprobs, value=x)"),
    ({"prompt_logprobs": 1, "stream": True},
     "`prompt_logprobs` are not available when `stream=True`. (parameter=prompt_logprobs)"),
    ({"prompt_logprobs": -3},
     "`prompt_logprobs` must be a positive value or -1. (parameter=prompt_logprobs, value=-3)"),
    ({"echo": True, "logprobs": 1, "prompt_logprobs": 25},
     "Requested prompt logprobs of 25, which is greater than max allowed: 20"
     " (parameter=prompt_logprobs, value=25)"),
    ({"prompt": [[]]}, "The decoder prompt cannot be empty"),
]  # fmt: skip


@pytest.mark.parametrize(("asked", "message"), REFUSED)
def test_vllm_refuses_what_vllm_refuses(
    vllm: SimThread, asked: dict[str, Any], message: str
) -> None:
    """In vLLM 0.32.0's words (each sent to its CPU build in review; its vocabulary there
    was 1024 tokens, the simulator's is 32000)."""
    reply = _post(vllm, {"prompt": "Hi there", "max_tokens": 1} | asked)
    assert reply.status_code == 400
    assert reply.json()["error"]["message"] == message


def _invalid(field: str, kind: str, msg: str, given: str) -> str:
    return f"{{'type': '{kind}', 'loc': 'body.{field}', 'msg': '{msg}', 'input': '{given}'}}"


FRACTION = "Input should be a valid integer, got a number with a fractional part"
TOO_LARGE = "Unable to parse input string as an integer, exceeded maximum size"
NOT_WHOLE = [
    ({"logprobs": -0.5}, "BadRequestError", "logprobs",
     "`logprobs` must be a positive value or -1. (parameter=logprobs, value=-0.5)"),
    ({"prompt_logprobs": -0.5}, "BadRequestError", "prompt_logprobs",
     "`prompt_logprobs` must be a positive value or -1. (parameter=prompt_logprobs, value=-0.5)"),
    ({"logprobs": -2.0}, "BadRequestError", "logprobs",
     "`logprobs` must be a positive value or -1. (parameter=logprobs, value=-2.0)"),
    ({"logprobs": 1.5}, "Bad Request", "body.logprobs",
     "1 validation error:\n  " + _invalid("logprobs", "int_from_float", FRACTION, "1.5")),
    ({"prompt_logprobs": 2.5, "logprobs": 1.5}, "Bad Request", "body.logprobs",
     "2 validation errors:\n  " + _invalid("logprobs", "int_from_float", FRACTION, "1.5")
     + "\n  " + _invalid("prompt_logprobs", "int_from_float", FRACTION, "2.5")),
    ({"logprobs": 1e19}, "Bad Request", "body.logprobs",
     "1 validation error:\n  " + _invalid("logprobs", "int_parsing_size", TOO_LARGE, "1e+19")),
]  # fmt: skip


@pytest.mark.parametrize(("asked", "kind", "param", "message"), NOT_WHOLE)
def test_vllm_refuses_counts_that_are_not_whole_numbers(
    vllm: SimThread, asked: dict[str, Any], kind: str, param: str, message: str
) -> None:
    """vLLM 0.32.0's request model checks the numbers as sent (a negative one is refused
    by its `check_logprobs`, in its own words), then reads each field as pydantic's `int`:
    a fraction or a float past 64 bits fails that, every such field listed (read from its
    `CompletionRequest` with its pydantic 2.14, and its validation handler). The simulator
    took 1.5 as 1 and -0.5 as 0 (found in review); 2.0 is 2, as in vLLM."""
    reply = _post(vllm, {"prompt": "Hi there", "max_tokens": 1} | asked)
    assert reply.status_code == 400
    assert reply.json()["error"] == {"message": message, "type": kind, "param": param, "code": 400}
    whole = _post(vllm, {"prompt": "Hi there", "max_tokens": 1, "logprobs": 2.0})
    (top,) = whole.json()["choices"][0]["logprobs"]["top_logprobs"]
    assert whole.status_code == 200 and 1 <= len(top) <= 3


def test_the_cloud_refuses_echo_with_logprobs_and_lists_five(
    start_sim: Callable[..., SimThread],
) -> None:
    sdk = _sdk(start_sim(profile="cloud", model=INSTRUCT))
    with pytest.raises(openai.BadRequestError) as refused:
        sdk.completions.create(model=INSTRUCT, prompt=QUESTION, max_tokens=1, logprobs=1, echo=True)
    assert refused.value.message.endswith(
        "Setting 'echo' and 'logprobs' at the same time is not supported for this model."
    )
    done = sdk.completions.create(model=INSTRUCT, prompt=QUESTION, max_tokens=3, logprobs=9)
    lp = done.choices[0].logprobs
    assert lp is not None and all(len(top) <= 6 for top in lp.top_logprobs)
    assert max(len(top) for top in lp.top_logprobs) >= 5
