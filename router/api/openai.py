"""`GET /v1/models` and `GET /v1/models/{name}`; the model APIs themselves are served by the
front (`router.api.front`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.datastructures import URL
from starlette.responses import RedirectResponse

from router.api.headers import request_headers
from router.errors import NotFound
from router.target import model_names

endpoints = APIRouter()


def gateway_caller(request: Request) -> Any:
    return request.app.state.auth.caller(request_headers(request.scope))


@endpoints.get("/v1/models")
async def models(request: Request) -> dict[str, Any]:
    gateway_caller(request)
    return {"object": "list", "data": [_entry(name) for name in _names(request)]}


@endpoints.get("/v1/models/{name:path}", response_model=None)
async def model(request: Request, name: str) -> dict[str, Any] | RedirectResponse:
    """One model, as the OpenAI SDK's `models.retrieve` asks (clients check a name exists
    before using it): a 404 fell through to "this path is not served". No name is the list
    (a 307, as `/v1/chat/completions/` gets): it was "The model `` does not exist"."""
    if not name:  # `/v1/models/`: the list's path with a slash, as Starlette redirects others
        return RedirectResponse(
            str(URL(scope={**request.scope, "path": request.scope["path"][:-1]}))
        )
    gateway_caller(request)
    if name not in _names(request):
        raise NotFound(f"The model `{name}` does not exist; GET /v1/models lists the names.")
    return _entry(name)


def _names(request: Request) -> list[str]:
    """The names a request may give as `model` (or `x-smf-route`)."""
    return model_names(request.app.state.gateway.config)


def _entry(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "smf-router"}
