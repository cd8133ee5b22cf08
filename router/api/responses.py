"""The OpenAI Responses endpoint (`POST /v1/responses`), the only API Codex CLI speaks.

Served like chat completions (classify, plan, fallback, relay, record); a backend that
speaks Responses gets the body as is, any other chat backend a translation
(`router.translate`). Errors keep OpenAI's envelope, which Responses shares.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from router.api.openai import serve

endpoints = APIRouter()


@endpoints.post("/v1/responses")
async def responses(request: Request) -> Response:
    return await serve(request, "responses")
