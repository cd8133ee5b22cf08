"""Operational endpoints: liveness, readiness, explain, status and the admin actions."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from router import explanation, heap
from router.api.body import read_json
from router.api.headers import request_headers

endpoints = APIRouter()


@endpoints.get("/healthz")
async def liveness() -> dict[str, str]:
    return {"status": "ok"}


@endpoints.get("/readyz")
async def readiness(request: Request) -> Response:
    """200 once started and nothing holds it (`Components.holding`: the canary's recall of its
    gates); 503 before, saying what it waits for. From the shutdown's start no probe gets
    here: uvicorn closes the listener and idle connections as the drain begins (refused);
    the 503 after it (`ready` False) is for in-process callers."""
    state = request.app.state
    if not getattr(state, "ready", False):
        return Response(b'{"status":"starting"}', 503, media_type="application/json")
    waiting = sorted(state.components.unready)
    if waiting:
        body = orjson.dumps({"status": "starting", "waiting_for": waiting})
        return Response(body, 503, media_type="application/json")
    return Response(b'{"status":"ready"}', 200, media_type="application/json")


@endpoints.post("/v1/router/explain")
async def explain(request: Request) -> dict[str, Any]:
    """Where would this request go, and why — without sending it."""
    state = request.app.state
    headers = request_headers(request.scope)
    caller = state.auth.caller(headers)
    body = await read_json(request, state.gateway.config.server.max_body_bytes)
    return explanation.explain(state.gateway, body, caller, headers)


@endpoints.get("/v1/router/status")
async def status(request: Request) -> dict[str, Any]:
    state = request.app.state
    state.auth.caller(request_headers(request.scope))
    gateway = state.gateway
    states = gateway.state_source.states()
    backends = []
    for b in gateway.config.backends:
        s = states.get(b.name)
        wait = s.rate_limited_for_s if s else None
        overloaded = s.overloaded_for_s if s else None
        backends.append(
            {
                "name": b.name,
                "tier": b.tier,
                "kind": b.kind,
                "model": b.model,
                "circuit": s.circuit if s else "closed",
                "saturated": s.saturated if s else False,
                "gated_intents": sorted(s.gated_intents) if s else [],
                # a 429's wait: passed by till it ends, as an open circuit is
                "rate_limited_for_s": None if wait is None else round(wait, 2),
                # an overloaded backend's (its 503's), alike
                "overloaded_for_s": None if overloaded is None else round(overloaded, 2),
            }
        )
    return {
        "demo": gateway.config.demo,
        "routes": gateway.config.routes,
        "backends": backends,
        "heap": heap.status(),
        "extra": {name: fn() for name, fn in getattr(state, "status_sections", {}).items()},
    }


@endpoints.get("/metrics")
async def metrics(request: Request) -> Response:
    """Prometheus exposition of the router's own metrics."""
    body, content_type = request.app.state.components.metrics.render()
    return Response(body, media_type=content_type)
