"""The gateway: one request's life from parsed body to finished record.

It joins the pure core (classify, plan) to the edges (dispatch, relay, sinks). The HTTP
endpoints stay thin: they read bytes and headers and render what the gateway returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import classifier
from classifier.intent import Intent
from router import blame
from router import request as req
from router import request_size as size
from router.auth import Caller
from router.backends.base import Backend
from router.call import Call, Committed
from router.config import Config
from router.conversation import conversation_key, prompt_text, server_thread
from router.dispatch import Dispatcher
from router.errors import (
    RouterError,
    cancellation,
    error_kind,
    internal_error,
)
from router.failed_requests import Fingerprint
from router.gateway_ports import CallSink, ClassifyObserver, NoStates, Pricing, Sink, States
from router.ledger.usage import usage_of
from router.policy import Demand, Plan, detoured, one_choice_only, plan
from router.record import Api, Outcome, Record, Usage
from router.refusals import refusal_of
from router.relay import Tally
from router.responses_kept import remember
from router.routing_headers import is_private, session_header, target_of
from router.stored_responses import StoredResponses, carried
from router.target import Target, route_reason
from router.tracing import NO_SPAN, Tracing
from router.translate import responses_request
from router.translate.attribution import without_attribution
from router.translate.pairing import native
from router.vllm_fields import reads_every_tool, vllm_field

FORWARDED_HEADERS = ("anthropic-version", "anthropic-beta")


class Gateway:
    def __init__(
        self,
        config: Config,
        backends: Mapping[str, Backend],
        dispatcher: Dispatcher,
        states: States | None = None,
        sinks: Sequence[Sink] = (),
        pricing: Pricing | None = None,
        tracing: Tracing | None = None,
        classify_observer: ClassifyObserver | None = None,
        conversation_secret: bytes = b"",
    ) -> None:
        self.config = config
        self.backends = backends
        self.dispatcher = dispatcher
        self.state_source: States = states or NoStates()
        self.sinks = list(sinks)
        self.call_sinks: list[CallSink] = []
        self.pricing = pricing
        self.tracing = tracing or dispatcher.tracing
        self.classify_observer = classify_observer
        self.conversation_secret = conversation_secret
        # a reload shares it, and the secret with it
        self.stored = StoredResponses(config.resilience.sticky_max_entries, conversation_secret)

    def _one_choice_backends(self) -> set[str]:
        """Backends whose adapter found, when warmed, that their provider answers one choice
        whatever `n` asks (litellm drops Anthropic's `n`). An adapter's, not the state
        source's: it holds with resilience off too."""
        return {n for n, b in self.backends.items() if b.one_choice_only}

    def prepare(
        self, api: Api, body: dict[str, Any], caller: Caller, headers: Mapping[str, str]
    ) -> Call:
        """Validate, classify and plan a request to serve. Raises a `RouterError` for the
        client to see."""
        call = self._prepare(api, body, caller, headers, traffic=True)
        # every sink rolls its dice (no short cut): each is asked once, as the call arrives
        call.sampled = any([sink.samples(call) for sink in self.call_sinks])
        return call

    def _prepare(
        self,
        api: Api,
        body: dict[str, Any],
        caller: Caller,
        headers: Mapping[str, str],
        traffic: bool,
        counting: bool = False,
    ) -> Call:
        """`traffic`: a request to serve. Only traffic is traced and counted as classified;
        `explain` only looks. `counting`: a count's body (`req.validate`)."""
        req.validate(api, body, counting=counting)
        # the client's body, before `whole`: explain's is the same for the same body. Worked
        # out only if a failure makes it matter (`router.failed_requests`): most never hash
        print_ = Fingerprint(body)
        # before the span: a turn continuing another caller's response is refused
        home, continued = self.stored.lookup(api, body, caller.name, self.config.backend_names)
        # what the router made is told whole from here on, in place of a reference to an
        # item or a response (`StoredResponses.whole`): the classifier reads it all
        limit = self.config.server.max_body_bytes  # what the router's items may add
        # whether a backend may hold a response the router does not: else it is held nowhere
        reachable = api != "responses" or any(native(api, b) for b in self.config.backends)
        body, own = self.stored.whole(api, body, caller.name, continued, limit, reachable)
        # no backend, key or classifier reads Claude Code's attribution through a gateway
        body = without_attribution(api, body)
        target = self._target(body, headers)
        view = req.readable_view(api, body)
        private = is_private(caller, headers)
        session_header(headers)  # a bad one refused here, a continued turn's too (no key read)
        # The span begins once the client's request can no longer be refused: a refusal ends
        # no span, and a span never ended is never exported while its children are (orphans).
        # What raises after it all the same (a bug, a 500) ends it, with its open child.
        span = (
            self.tracing.start_request(
                api,
                target.name or target.mode,
                headers,
                str(body["model"])[:200],
                req.request_id(headers),
            )
            if traffic
            else NO_SPAN
        )
        try:
            intent = carried(self._classify(view, target, span, traffic), continued)
            conversation = (continued.conversation if continued else "") or conversation_key(
                view, headers, caller.name, self.conversation_secret, server_thread(api, body)
            )
            demand = self._demand(api, body, target, private, conversation, home, print_)
            the_plan = self._plan(intent, target, demand)
            call = self._call(api, body, caller, headers, view, the_plan, demand, conversation)
            call.record.fingerprint = print_
            call.span, call.own = span, own
            return call
        except Exception as error:  # refused by the front (`router.api.front`): a 4xx or a 500
            self.tracing.end_raised(span, error)
            raise

    def _plan(self, intent: Intent, target: Target, demand: Demand) -> Plan:
        states = self.state_source.states()
        if demand.choices_asked:  # what the adapters learned once (litellm's dropped `n`)
            states = one_choice_only(states, self._one_choice_backends())
        return plan(intent, target, demand, states, self.config)

    def _call(
        self,
        api: Api,
        body: dict[str, Any],
        caller: Caller,
        headers: Mapping[str, str],
        view: dict[str, Any],
        the_plan: Plan,
        demand: Demand,
        conversation: str,
    ) -> Call:
        """The call a planned request becomes, with the record it will finish."""
        intent, target = the_plan.intent, the_plan.target
        stream = bool(body.get("stream"))
        record = Record(
            request_id=req.request_id(headers),
            started_at=time.time(),
            api=api,
            caller=caller.name,
            requested_model=str(body.get("model"))[:200],
            intent=intent.label,
            confidence=round(intent.confidence, 4),
            intent_source=intent.source,
            route=the_plan.route,
            stream=stream,
            conversation=conversation,
            auto_routed=target.mode == "auto",
            side_request=intent.side_request,
            private=demand.private,
            vllm_field=demand.vllm_field,
            # read from the view already made (store_text only): the latest user message
            prompt_text=prompt_text(view) if self.config.ledger.store_text else None,
        )
        wants_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        forwarded = {k: v for k in FORWARDED_HEADERS if (v := headers.get(k))}
        sent = req.with_usage_asked(api, body) if stream else body
        return Call(api, sent, stream, record, the_plan, time.monotonic(), forwarded, wants_usage)

    def _demand(
        self,
        api: Api,
        body: dict[str, Any],
        target: Target,
        private: bool,
        conversation: str,
        home: str | None,
        print_: Fingerprint,
    ) -> Demand:
        """What the request asks of a backend, for `plan` to weigh; `print_` the client's
        body's fingerprint, worked out only if the plan meets a failure it remembers."""
        choices_asked = size.several_choices(api, body)
        prompt_tokens, native_prompt_tokens = size.window_tokens(api, body)
        return Demand(
            api=api,
            prompt_tokens=prompt_tokens,
            native_prompt_tokens=native_prompt_tokens,
            max_tokens=size.max_tokens_of(api, body),
            private=private,
            sticky_backend=self.state_source.sticky(conversation)
            if target.mode == "auto"
            else None,
            several_choices=choices_asked and body.get("stream") is True,
            response_home=home,
            server_state=responses_request.server_state(body) if api == "responses" else None,
            choices_asked=choices_asked,
            vllm_field=vllm_field(api, body),
            fingerprint=print_,
        )

    def planned(
        self,
        api: Api,
        body: dict[str, Any],
        caller: Caller,
        headers: Mapping[str, str],
        counting: bool = False,
    ) -> Call:
        """The call `body` would become, checked, classified and planned as a request to
        serve is, but not traffic: no span, no count, no record (`explain`, and, `counting`,
        the two count endpoints, which count the conversation a turn would send where the
        turn would go: `router.api.counting`)."""
        return self._prepare(api, body, caller, headers, traffic=False, counting=counting)

    def explain(
        self, api: Api, body: dict[str, Any], caller: Caller, headers: Mapping[str, str]
    ) -> dict[str, Any]:
        """Where `body` would go and why, nothing sent (`router.explanation` adds the rest)."""
        call = self.planned(api, body, caller, headers)
        return {
            "intent": {
                "label": call.plan.intent.label,
                "confidence": call.plan.intent.confidence,
                "source": call.plan.intent.source,
            },
            "classifier": classifier.explain(req.readable_view(api, call.body)),  # as read
            "mode": call.plan.target.mode,
            "route": call.plan.route,
            # why the route is not the intent's label, when it is not (`route_for`'s reason)
            "route_reason": route_reason(call.plan.intent, call.plan.target, self.config),
            "min_confidence": self.config.classifier.min_confidence,
            "backends": [{"backend": s.backend, "reason": s.reason} for s in call.plan.steps],
            "skipped": [{"backend": s.backend, "reason": s.reason} for s in call.plan.skipped],
            "private": call.record.private,
            "refusal": refusal_of(call.plan, call.api, call.body),
        }

    async def dispatch(self, call: Call) -> Committed:
        try:
            committed = await self.dispatcher.execute(call)
        except RouterError as error:
            self.fail(call, error)
            raise
        except asyncio.CancelledError:  # the attempt in flight was closed and released
            self.fail(call, cancellation(call.client_left), "cancelled")
            raise
        except Exception:
            self.fail(call, internal_error(), "router_error")  # a bug
            raise
        settings = committed.backend.settings
        call.record.backend, call.record.tier = settings.name, settings.tier
        call.record.detour = detoured(call.plan, call.record.attempts, settings.name)
        call.record.served_model = settings.model  # a stream's TTFT: the relay, at its first token
        return committed

    def finish_whole(self, call: Call, committed: Committed, tally: Tally) -> None:
        """A non-streamed reply, read into `tally` before it was sent, was sent in full."""
        self.dispatcher.finish_attempt(committed, said=tally.finish_reasons)
        translation = committed.reply.translation
        tally.usage_final = translation is None or not translation.usage_estimated
        tally.wrapped = translation.wrapped if translation else frozenset()
        call.record.ttft_s = time.monotonic() - call.started
        self.finish(call, tally)

    async def abandon(self, call: Call, committed: Committed) -> None:
        """A bug ended the request after a backend answered: close the reply, end the attempt,
        record the request as `router_error`. Whatever was finished already stays as it was."""
        with contextlib.suppress(Exception):
            await committed.reply.close()
        self.dispatcher.finish_attempt(committed, "router_error")
        self.fail(call, internal_error(), "router_error")

    def keep_text(self, call: Call) -> bool:
        """Whether the relay keeps the answer text: the ledger stores it or a call sink picked
        the call (`Call.sampled`)."""
        return self.config.ledger.store_text or call.sampled

    def fail(self, call: Call, error: RouterError, outcome: Outcome | None = None) -> None:
        """Record a request that ended in `error` (a no-op once its record was finished)."""
        record = call.record
        if record.ended_at:
            return  # the sinks have it already, as it was
        record.status = error.status
        if outcome is None:  # whose failure it was (`router.blame`)
            record.outcome, record.error_kind = blame.before_commit(error, record)
        else:
            record.outcome, record.error_kind = outcome, error_kind(error)
        # what the attempts generated and held, ended uncommitted
        self.finish(call, Tally(held_chars=call.unsent_chars))

    def _read_every_tool(self, call: Call) -> bool:
        """Whether the backend that served `call` read the deferred tools no search loaded
        (`vllm_fields.reads_every_tool`): a record's estimate, where usage is missing, counts
        them then; a vLLM Messages turn that read 40,271 tokens was recorded as 49."""
        name = call.record.backend
        if not name or name not in self.config.backend_names:  # gone in a reload
            return False
        return reads_every_tool(call.api, self.config.backend(name))

    def finish(self, call: Call, tally: Tally) -> None:
        """Complete the record and hand it to every sink, exactly once."""
        record = call.record
        if record.ended_at:
            return
        record.duration_s = time.monotonic() - call.started
        # Not the wall clock again: a step back (NTP) mid-request ended it before it began
        record.ended_at = record.started_at + record.duration_s
        usage = usage_of(call.api, tally.usage)
        generated = tally.output_chars + tally.held_chars  # sent, and held back when it ended
        # an attempt that ended uncommitted (no backend served) generated what it held too
        if usage is None and (record.backend or generated):
            usage = Usage(  # the whole prompt: a completions batch's summed, as usage counts
                prompt_tokens=size.estimate_prompt_tokens(
                    call.api, call.body, every_tool=self._read_every_tool(call)
                ),
                completion_tokens=size.estimate_tokens(generated),
                estimated=True,
            )
        elif usage is not None and not tally.usage_final:  # a Messages stream cut short
            estimate = max(usage.completion_tokens, size.estimate_tokens(generated))
            usage = replace(usage, completion_tokens=estimate, estimated=True)
        record.usage = usage or Usage()
        record.counted = usage is not None
        self.remember(call, tally)  # if it was not as its end went out
        if tally.keep_text and self.config.ledger.store_text:
            record.completion_text = str(tally.text)
        if self.pricing is not None and record.backend:
            record.cost_usd, record.counterfactual_usd = self.pricing.price(record)
        handoff = self.tracing.start_child(call.span, "ledger")
        for sink in self.sinks:
            sink.record_finished(record)
        for call_sink in self.call_sinks:
            call_sink.call_finished(call, tally)
        self.tracing.end(handoff)
        self.tracing.finish_request(call.span, record, tally.finish_reasons)

    def remember(self, call: Call, tally: Tally) -> None:
        """Keep a Responses answer for the turns that continue it (`router.responses_kept`)."""
        remember(self.stored, self.config, call, tally)

    def refused(self, record: Record) -> None:
        """Hand the record of a request refused before `prepare` returned (`router.api.refusal`)
        to every sink, as `finish` does for the others: no call sink nor span, as nothing was
        planned or sent."""
        for sink in self.sinks:
            sink.record_finished(record)

    def _target(self, body: dict[str, Any], headers: Mapping[str, str]) -> Target:
        return target_of(self.config, body, headers)

    def _classify(self, view: dict[str, Any], target: Target, span: Any, traffic: bool) -> Intent:
        """Classify the request's chat view (`router.translate.view`)."""
        if target.mode == "route" and target.name in classifier.INTENTS:
            return Intent(target.name, 1.0, "forced")  # type: ignore[arg-type,unused-ignore]
        child = self.tracing.start_child(span, "classify")
        began = time.perf_counter()
        try:
            intent = classifier.classify(view)
        except Exception as error:  # the request span ends with it (`_prepare`)
            self.tracing.end_raised(child, error)
            raise
        if traffic and self.classify_observer is not None:
            elapsed = time.perf_counter() - began
            self.classify_observer.classified(intent.label, intent.confidence, elapsed)
        self.tracing.end(child, {"smf.intent": intent.label, "smf.confidence": intent.confidence})
        return intent
