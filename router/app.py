"""The app factory: wires endpoints, error handlers and the lifespan. No logic, no I/O here."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from starlette.routing import Route

from router.api import (
    admin,
    anthropic_paths,
    body,
    browsers,
    demo,
    errors,
    front,
    messages,
    openai,
    request_ids,
    responses_count,
)
from router.components import Components, build
from router.config import Config
from router.errors import Forbidden, RouterError


class RouterApp(FastAPI):
    """The FastAPI app with the hot endpoints answered in front of its middleware stack.

    See `router.api.front` for why; the hot paths stay in the route table (`front.HotRoute`)
    so that other methods and near-miss paths get the same answers (405, redirects).
    """

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and self.state.components.config.demo:
            send = demo.marked(send)  # every answer, errors too, says it is not real
        if scope["type"] == "http" and anthropic_paths.anthropic_path(scope["path"]):
            send = anthropic_paths.named(send)  # its id under Anthropic's name too
        # Before FastAPI's middleware: the reason the front exists.
        api = front.hot_api(scope)
        if scope["type"] == "http" and (refused := self._refusal(scope)) is not None:
            error, recorded = refused
            if api is not None:  # a model API's request: refused as in the front
                await front.refuse(self.state, api, scope, send, error, recorded)
                return
            await errors.shaped_response(Request({**scope, "app": self}), error)(
                scope, receive, send
            )
            return
        if api is None:
            if scope["type"] == "http":  # a redirect or `/v1/models` sets no id of its own
                send = request_ids.identified(send, scope)
            await super().__call__(scope, receive, send)
        else:
            await front.serve(self.state, api, scope, receive, send)

    def _refusal(self, scope: Any) -> tuple[RouterError, bool] | None:
        """What refuses this request before any endpoint reads it, and whether a model API's
        refusal is recorded: a web page's request is only counted, and its log line written
        sparingly (`browsers.refused`); a compressed body (`body.encoding_refusal`) is an API
        client's, recorded as its other refusals are."""
        why = self._from_a_web_page(scope)
        if why is not None:
            browsers.refused(why)
            return Forbidden(why), False
        encoded = body.encoding_refusal(scope)
        return None if encoded is None else (encoded, True)

    def _from_a_web_page(self, scope: Any) -> str | None:
        # The origins, hosts and keys follow a reload; whether a proxy names the host is how
        # uvicorn started.
        server = self.state.components.config.server
        return browsers.refusal(
            scope,
            server.allowed_origins,
            self.state.behind_proxy,
            server.allowed_hosts,
            keyless=self.state.auth.open,
        )


def create_app(config: Config, components: Components | None = None) -> FastAPI:
    parts = components or build(config)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await parts.start()
        app.state.ready = True
        try:
            yield
        finally:
            app.state.ready = False
            await parts.stop()

    # No generated docs or schema: FastAPI serves `/openapi.json` to anyone, without a key,
    # and nothing reads it (the API is OpenAI's and Anthropic's, documented by them).
    app = RouterApp(
        title="smf-router",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.gateway = parts.gateway
    app.state.auth = parts.auth
    app.state.components = parts
    app.state.status_sections = parts.status_sections
    app.state.ready = False
    app.state.behind_proxy = config.server.proxy_headers
    errors.install(app)
    app.router.routes.extend(
        Route(path, front.HotRoute(api), methods=["POST"]) for path, api in front.HOT_PATHS.items()
    )
    app.include_router(openai.endpoints)
    app.include_router(messages.endpoints)
    app.include_router(responses_count.endpoints)
    app.include_router(admin.endpoints)
    for extra in parts.extra_endpoints:
        app.include_router(extra)
    return app
