"""`GET /v1/models`; the model APIs themselves are served by the front (`router.api.front`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from router.api.headers import request_headers

endpoints = APIRouter()


def gateway_caller(request: Request) -> Any:
    return request.app.state.auth.caller(request_headers(request.scope))


@endpoints.get("/v1/models")
async def models(request: Request) -> dict[str, Any]:
    gateway_caller(request)
    config = request.app.state.gateway.config
    names = ["auto", *config.aliases, *config.routes, *(b.name for b in config.backends)]
    unique = list(dict.fromkeys(names))
    return {
        "object": "list",
        "data": [
            {"id": n, "object": "model", "created": 0, "owned_by": "smf-router"} for n in unique
        ],
    }
