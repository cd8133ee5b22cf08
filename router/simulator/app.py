"""The simulated backend: routes requests to endpoints and runs the generation pipeline.

Pipeline for every generation API: parse → choose fault → model check → held until
released (`hold`) → early faults → context window → capacity slot → first-token delay →
answer → deliver (paced, maybe broken). What a fault answers in place of a generation is
`fault_answers`; the `/sim/` control endpoints are `endpoints.control` over `control`.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from functools import partial

import orjson

from router.openai_models import completions_model
from router.simulator import endpoints, playback
from router.simulator.answer import compose, rng_for
from router.simulator.canary import CanaryBook, CaseLike
from router.simulator.capacity import Capacity, QueueFull
from router.simulator.chat import ChatApi
from router.simulator.completions import CompletionsApi
from router.simulator.control import Control
from router.simulator.errors import (
    ApiError,
    Flavor,
    chat_model_on_completions,
    echoed_credentials,
    echoed_names,
    missing_model,
    over_output_cap,
    render,
    sse_error,
)
from router.simulator.fault_answers import early_fault, error_event
from router.simulator.faults import ECHOES, Fault, FaultError, choose, split_model
from router.simulator.generation import (
    Ask,
    Choice,
    Generation,
    aborted,
    budget,
    calling_every_tool,
    choose_tokens,
    malformed_arguments,
)
from router.simulator.hold import Gate
from router.simulator.httpserver import ClientGone, HttpServer, Request, Response
from router.simulator.messages import MessagesApi
from router.simulator.prompt import Prompt, Reply
from router.simulator.responses import ResponsesApi, Stored
from router.simulator.settings import REPEATABLE_CREATED, SimSettings
from router.simulator.stats import Stats
from router.simulator.wire import Api, CallNumbering, Meta

Endpoint = Callable[[Request, Response], Awaitable[None]]
JSON = "application/json"
_CHAT_FAULTS = ("chat", "completions")  # where `no_usage`, `abort` and the tool-call ones apply
SSE = "text/event-stream; charset=utf-8"
_NUMBERING: dict[str, CallNumbering] = {  # the faults that number tool calls as Ollama does
    "ollama_tool_calls": "index_0",
    "unindexed_tool_calls": "none",
}
_APIS: dict[str, Api] = {
    "/v1/chat/completions": ChatApi(),
    "/v1/completions": CompletionsApi(),
    "/v1/responses": ResponsesApi(),
    "/v1/messages": MessagesApi(),
}
_PATHS = {
    "vllm": ("/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/messages"),
    "cloud": ("/v1/chat/completions", "/v1/completions", "/v1/responses"),
    "anthropic": ("/v1/messages",),
}


class Simulator:
    """One simulated backend. `server` is its HTTP server; `control` its runtime knobs."""

    def __init__(self, settings: SimSettings, cases: Iterable[CaseLike] | None = None) -> None:
        self.settings = settings
        self.capacity = Capacity(
            settings.max_num_seqs, settings.max_queued, settings.kv_cache_tokens
        )
        self.stats = Stats(settings.keep_requests)
        self.control = Control.from_settings(settings)
        self.book = CanaryBook(cases, self.control.quality)
        self.gate = Gate()  # where `hold` requests wait for POST /sim/release
        self.stored = Stored()  # the Responses it made, for a later `previous_response_id`
        self._rng = random.Random(settings.seed)
        self._ids = random.Random(settings.seed + 1)
        vary = [("vary", "Origin")] if settings.profile == "vllm" else []
        self.server = HttpServer(self.handle, vary)
        self.routes = self._routes()

    def _routes(self) -> dict[tuple[str, str], Endpoint]:
        profile = self.settings.profile
        routes: dict[tuple[str, str], Endpoint] = {
            ("GET", "/v1/models"): lambda q, r: endpoints.models(self, q, r),
        }
        for path in _PATHS[profile]:
            routes[("POST", path)] = self._generator(_APIS[path])
        if profile in ("vllm", "anthropic"):
            routes[("POST", "/v1/messages/count_tokens")] = lambda q, r: endpoints.count_tokens(
                self, q, r
            )
        if profile == "cloud":  # OpenAI's count; vLLM's Responses server has none
            routes[("POST", "/v1/responses/input_tokens")] = lambda q, r: endpoints.input_tokens(
                self, q, r
            )
        if profile == "vllm":
            routes[("GET", "/health")] = lambda q, r: r.send(200, [], b"")
            routes[("GET", "/metrics")] = lambda q, r: endpoints.metrics(self, q, r)
            routes[("POST", "/tokenize")] = lambda q, r: endpoints.tokenize(self, q, r)
            routes[("GET", "/version")] = lambda q, r: r.send(
                200, [("content-type", JSON)], b'{"version":"0.32.0"}'
            )
        return routes

    def _generator(self, api: Api) -> Endpoint:
        return lambda req, resp: self.generate(api, req, resp)

    async def handle(self, req: Request, resp: Response) -> None:
        if req.path.startswith("/sim/"):
            await endpoints.control(self, req, resp)
            return
        self.stats.requests += 1
        self.stats.by_path[req.path] += 1
        if req.query:  # what a client kept of its base URL's query (`?api-version=...`)
            self.stats.by_query[f"{req.path}?{req.query}"] += 1
        endpoint = self.routes.get((req.method, req.path))
        if endpoint is None:
            await endpoints.not_found(self, req, resp)
            return
        await endpoint(req, resp)

    def headers(
        self, flavor: Flavor, content_type: str, ids: random.Random | None = None
    ) -> list[tuple[str, str]]:
        out = [("content-type", content_type)]
        rng = ids or self._ids
        if flavor == "cloud":
            out.append(("x-request-id", f"req_{rng.getrandbits(96):024x}"))
        elif flavor == "anthropic" and self.settings.profile == "anthropic":
            out.append(("request-id", f"req_{rng.getrandbits(96):024x}"))
        return out

    async def send_error(
        self, flavor: Flavor, err: ApiError, resp: Response, ids: random.Random | None = None
    ) -> None:
        status, headers, body = render(flavor, err, self.settings.profile)
        self.stats.by_status[status] += 1
        await resp.send(status, headers + self.headers(flavor, JSON, ids)[1:], body)

    def _ids_for(self, req: Request) -> random.Random:
        """Where a request's ids come from: one running sequence, or under `repeatable` a
        function of the seed, path and body, so that the same request gets the same bytes."""
        if not self.settings.repeatable:
            return self._ids
        seeded = f"{self.settings.seed}\x00{req.path}\x00".encode() + req.body
        return random.Random(hashlib.blake2b(seeded, digest_size=8).digest())

    async def generate(self, api: Api, req: Request, resp: Response) -> None:
        flavor = api.flavor(self.settings.profile)
        ids = self._ids_for(req)
        self.stats.enter()
        try:
            await self._generate(api, flavor, req, resp, ids)
        except ApiError as err:
            await self.send_error(flavor, err, resp, ids)
        finally:
            self.stats.leave()

    async def _generate(
        self, api: Api, flavor: Flavor, req: Request, resp: Response, ids: random.Random
    ) -> None:
        endpoints.authorize(self, req, flavor)
        voice: Flavor = "vllm" if self.settings.profile == "vllm" else flavor
        body = endpoints.parse_json(req.body, voice)
        if self.settings.keep_requests:  # prompts are kept only when asked to
            self.stats.recent.append(body)
        ask = api.parse(body, voice)  # the server answering: vLLM words its Messages errors
        if api.name == "responses":
            self.stored.check(body, voice)
        try:
            model, from_model = split_model(ask.model)
        except FaultError as exc:
            raise ApiError(400, "bad_request", str(exc), "model") from None
        if model != self.settings.model_name and not self.settings.accept_any_model:
            raise missing_model(voice, model, self.settings.model_name)
        if api.name == "completions" and voice == "cloud" and not completions_model(model):
            raise chat_model_on_completions()  # as OpenAI: its chat models serve chat only
        fault = self._fault(req, from_model)
        if fault is not None and fault.name == "hold":
            fault = await self.gate.wait()  # until POST /sim/release: as usual, or its fault
            if fault is not None:
                self.stats.by_fault[fault.name] += 1
        if fault is not None and fault.name in ECHOES:
            echo = echoed_credentials(req.headers, req.path, req.query)
            fault = replace(fault, echo=echo, echo_names=echoed_names(req.headers))
        if fault is not None and await early_fault(fault, ask, resp, self.settings.window):
            return
        self._check_window(ask, api.name)
        if ask.refusal is not None:  # vLLM's engine's, of a structured-output constraint:
            if not ask.stream:  # after a stream's 200 (a Responses one it closes: `refused`)
                raise ask.refusal
            name = api.name
            event = b"" if name == "responses" else sse_error(name, flavor, ask.refusal, "vllm")
            self.stats.by_status[200] += 1
            await playback.refused(resp, self.headers(flavor, SSE, ids), event)
            return
        try:
            await self.capacity.acquire(ask.prompt_tokens)
        except QueueFull:
            raise ApiError(
                503, "overloaded", "The server is overloaded; try again later."
            ) from None
        try:
            response_id = self._response_id(api, req, ids)
            if api.name == "responses":
                self.stored.keep(body, response_id)
            await self._serve(api, flavor, ask, model, fault, resp, response_id, ids)
        finally:
            self.capacity.release(ask.prompt_tokens)

    def _fault(self, req: Request, from_model: Fault | None) -> Fault | None:
        control = self.control
        header = req.headers.get("x-sim-fault")
        # a request with its own fault takes none of a transient fault's `times` (control.py)
        runtime = control.fault if header or from_model else control.take_fault()
        try:
            fault = choose(header, from_model, runtime, None, control.rates, self._rng)
        except FaultError as exc:
            raise ApiError(400, "bad_request", str(exc), "x-sim-fault") from None
        if fault is not None:
            self.stats.by_fault[fault.name] += 1
        return fault

    def _check_window(self, ask: Ask, api: str) -> None:
        """A prompt over the window is refused everywhere; vLLM also refuses, on every API
        it serves, an output limit over the window, naming the field it checked; the cloud
        profile, on chat, one over its model's cap (`SimSettings.max_output_tokens`)."""
        window = self.settings.window
        longest = max(size for _, size in ask.prompts)  # a batch's prompts fit one by one
        if longest > window:
            raise ApiError(400, "context_length", window=window, prompt_tokens=longest)
        vllm = self.settings.profile == "vllm"
        if vllm and ask.max_tokens is not None and ask.max_tokens > window:
            mt, name = ask.max_tokens, ask.max_tokens_param
            message = (
                f"{name}={mt} cannot be greater than max_model_len={window}. Please request "
                f"fewer output tokens. (parameter={name}, value={mt})"
            )
            raise ApiError(400, "max_tokens", message, name)
        capped = over_output_cap(ask.max_tokens, self.settings.max_output_tokens)
        if api == "chat" and capped is not None:
            raise capped

    def _response_id(self, api: Api, req: Request, ids: random.Random) -> str:
        """vLLM names the response after an incoming `X-Request-Id`; the APIs it serves by
        translating to chat (`/v1/messages`) get chat's `chatcmpl-` ids."""
        profile = self.settings.profile
        prefix = "chatcmpl-" if api.flavor(profile) != profile else api.id_prefix
        given = req.headers.get("x-request-id") if profile == "vllm" else None
        return prefix + (given or f"{ids.getrandbits(64):016x}")

    def generation(self, ask: Ask) -> Generation:
        """`n` choices of each prompt, in order (a completions batch has several)."""
        choices = [
            choice for prompt, size in ask.prompts for choice in self._answers(ask, prompt, size)
        ]
        return Generation(tuple(choices), ask.prompt_tokens, self.settings.tokens_per_chunk)

    def _answers(self, ask: Ask, prompt: Prompt, size: int) -> list[Choice]:
        """`n` choices of one prompt of `size` tokens: a test's script, a canary case's
        answer, or the composed reply, cut to what the window leaves after the prompt."""
        limit = budget(ask.max_tokens, size, self.settings.window)
        hermes = self.settings.profile == "vllm"  # its tool parser reads calls out of text
        scripted = self.control.replies.get(prompt.user.strip())
        case = self.book.find(prompt.user)
        choices = []
        for index in range(ask.n):
            rng = rng_for(self.settings.seed, prompt.user, index)
            if scripted is not None and not prompt.forces_call:  # a test's script first,
                reply = Reply(text=scripted)  # unless the request forces a tool call
            elif case is not None:
                reply = self.book.answer(case, prompt, self._rng)
            else:
                reply = compose(prompt, rng, index)
            choices.append(choose_tokens(reply, limit, ask, rng, hermes))
        return choices

    async def _serve(
        self,
        api: Api,
        flavor: Flavor,
        ask: Ask,
        model: str,
        fault: Fault | None,
        resp: Response,
        response_id: str,
        ids: random.Random,
    ) -> None:
        delay = self.settings.ttft_s
        if fault is not None and fault.name == "slow_first_token":
            delay += fault.value
        if delay:
            await asyncio.sleep(delay)
        gen = self.generation(ask)
        chat_fault = fault.name if fault is not None and api.name in _CHAT_FAULTS else None
        no_usage = chat_fault == "no_usage"
        if no_usage:
            ask = replace(ask, include_usage=False, continuous_usage=False)
        if chat_fault == "abort" and fault is not None:
            gen = aborted(gen, int(fault.value))
        if chat_fault == "malformed_arguments":
            gen = malformed_arguments(gen)
        numbering = _NUMBERING.get(chat_fault or "", "openai")
        if numbering != "openai":  # Ollama's parallel calls
            gen = calling_every_tool(gen, ask.prompt)
        prefix = "call_" if flavor == "cloud" else api.call_prefix
        calls = tuple(f"{prefix}{ids.getrandbits(64):016x}" for _ in range(ask.n))
        created = REPEATABLE_CREATED if self.settings.repeatable else int(time.time())
        meta = Meta(response_id, created, model, flavor, calls, self.settings.profile, numbering)
        self._count(gen)
        pace = self.settings.pace(gen.has_code)
        if ask.stream:
            frames = api.frames(meta, gen, ask)
            pace *= self.settings.tokens_per_chunk  # a packed delta took that many steps
            failure = partial(self._failure, api, flavor, fault) if fault is not None else None
            if fault is not None and fault.name == "thinking" and api.name != "chat":
                fault = None  # reasoning deltas are chat's
            # vLLM's since 2026 (FACTS.md; its whole message's `"reasoning": null` too), the
            # older name elsewhere (DeepSeek's API, SGLang)
            reasoning = "reasoning" if self.settings.profile == "vllm" else "reasoning_content"
            try:
                await playback.stream(
                    resp, self.headers(flavor, SSE, ids), frames, pace, fault, failure, reasoning
                )
            except (ClientGone, asyncio.CancelledError):
                self.stats.abandoned += 1  # the client closed before the stream was done
                raise
        else:
            if pace:
                await asyncio.sleep(pace * max(c.tokens for c in gen.choices))
            whole = api.body(meta, gen, ask)
            if no_usage:
                del whole["usage"]
            body = orjson.dumps(whole)
            await playback.whole(resp, self.headers(flavor, JSON, ids), body, fault)
        self.stats.by_status[200] += 1

    def _failure(self, api: Api, flavor: Flavor, fault: Fault, sequence: int) -> bytes:
        """The in-band error that `error_event` ends a stream with, worded by the profile;
        `sequence` is the Responses `sequence_number` of the event it takes the place of."""
        err = error_event(fault, self.settings.window)
        return sse_error(api.name, flavor, err, self.settings.profile, sequence)

    def _count(self, gen: Generation) -> None:
        self.stats.prompt_tokens += gen.prompt_tokens
        self.stats.generation_tokens += gen.completion_tokens
        for choice in gen.choices:
            reason = choice.finish if choice.finish in ("length", "abort") else "stop"
            self.stats.finished[reason] += 1
