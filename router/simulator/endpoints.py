"""The non-generation endpoints: models, metrics, token counting, auth, 404s and `/sim/`."""

from __future__ import annotations

import base64
import hmac
import json
import time
from typing import TYPE_CHECKING, Any

import orjson

from router import heap
from router.simulator import tokens
from router.simulator.control import (
    Control,
    DownOrder,
    apply_faults,
    apply_quality,
    apply_replies,
    released_fault,
)
from router.simulator.errors import ApiError, Flavor, missing_model, render, validation_error
from router.simulator.faults import FaultError
from router.simulator.httpserver import Request, Response
from router.simulator.messages import prompt_tokens
from router.simulator.stats import prometheus_text
from router.simulator.unknown_arguments import COUNT_ARGUMENTS, refuse_unknown_responses
from router.simulator.wire import required

if TYPE_CHECKING:
    from router.simulator.app import Simulator

JSON = [("content-type", "application/json")]


def parse_json(body: bytes, voice: Flavor = "cloud") -> dict[str, Any]:
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        message = f"Invalid JSON in request body: {exc}"
        if voice == "vllm":
            raise _json_invalid(body, message) from None
        raise ApiError(400, "bad_request", message) from None
    if not isinstance(parsed, dict):
        raise ApiError(400, "bad_request", "The request body must be a JSON object.")
    return parsed


def _json_invalid(body: bytes, message: str) -> ApiError:
    """FastAPI's `json_invalid`: located (`body.<pos>`) where Python's decoder gave up."""
    pos, why = 0, "JSON decode error"
    try:
        json.loads(body)
    except json.JSONDecodeError as exc:
        pos, why = exc.pos, exc.msg
    except (ValueError, RecursionError) as exc:  # not UTF-8, or nested past Python's depth
        why = str(exc)
    return validation_error(message, str(pos), "json_invalid", "JSON decode error", {}, error=why)


def authorize(sim: Simulator, req: Request, flavor: Flavor) -> None:
    """With an api_key set: Bearer (OpenAI, vLLM) or x-api-key (Anthropic), like the real ones.
    With basic_auth set: `Authorization: Basic`, as a proxy with basic auth in front of vLLM
    asks (the simulator then stands for both)."""
    if sim.settings.basic_auth is not None:
        wanted = "Basic " + base64.b64encode(sim.settings.basic_auth.encode()).decode("ascii")
        given_basic = req.headers.get("authorization", "")
        if not hmac.compare_digest(given_basic.encode(), wanted.encode()):
            raise ApiError(401, "unauthorized", "basic auth required")
        return
    key = sim.settings.api_key
    if key is None:
        return
    given = req.headers.get("x-api-key", "")
    bearer = req.headers.get("authorization", "")
    if bearer.lower().startswith("bearer "):
        given = bearer[7:].strip()
    if not hmac.compare_digest(given.encode(), key.encode()):
        raise ApiError(401, "unauthorized", "invalid x-api-key")


async def models(sim: Simulator, req: Request, resp: Response) -> None:
    settings, name = sim.settings, sim.settings.model_name
    created = int(time.time())
    body: dict[str, Any]
    card: dict[str, Any]
    if settings.profile == "anthropic":  # Anthropic's list asks for the key too
        try:
            authorize(sim, req, "anthropic")
        except ApiError as err:
            await sim.send_error("anthropic", err, resp)
            return
        card = {"type": "model", "id": name, "display_name": name}
        card["created_at"] = "2025-09-29T00:00:00Z"
        body = {"data": [card], "has_more": False, "first_id": name, "last_id": name}
    elif settings.profile == "cloud":
        card = {"id": name, "object": "model", "created": created, "owned_by": "system"}
        body = {"object": "list", "data": [card]}
    else:
        card = {"id": name, "object": "model", "created": created, "owned_by": "vllm"}
        card |= {"root": name, "parent": None, "max_model_len": settings.window}
        card["permission"] = [
            {
                "id": f"modelperm-{sim.settings.seed:032x}",
                "object": "model_permission",
                "created": created,
                "allow_create_engine": False,
                "allow_sampling": True,
                "allow_logprobs": True,
                "allow_search_indices": False,
                "allow_view": True,
                "allow_fine_tuning": False,
                "organization": "*",
                "group": None,
                "is_blocking": False,
            }
        ]
        body = {"object": "list", "data": [card]}
    await resp.send(200, JSON, orjson.dumps(body))


async def metrics(sim: Simulator, req: Request, resp: Response) -> None:
    if sim.control.hang_metrics:  # read, never answered (`control.Control.hang_metrics`)
        await resp.hang()
        return
    text = prometheus_text(sim.settings.model_name, sim.stats, sim.capacity)
    headers = [("content-type", "text/plain; version=0.0.4; charset=utf-8")]
    await resp.send(200, headers, text.encode())


async def count_tokens(sim: Simulator, req: Request, resp: Response) -> None:
    voice: Flavor = "vllm" if sim.settings.profile == "vllm" else "anthropic"
    try:
        authorize(sim, req, "anthropic")
        body = parse_json(req.body, voice)
        required(body, "model", str, "model: Field required")
        required(body, "messages", list, "messages: Field required")
    except ApiError as err:
        await sim.send_error("anthropic", err, resp)
        return
    counted: dict[str, Any] = {"input_tokens": prompt_tokens(body)}
    if sim.settings.profile == "vllm":
        counted["context_management"] = {"original_input_tokens": counted["input_tokens"]}
    await resp.send(200, JSON, orjson.dumps(counted))


async def input_tokens(sim: Simulator, req: Request, resp: Response) -> None:
    """OpenAI's `/v1/responses/input_tokens` (the cloud profile's): the turn's input and
    instructions counted as its Responses request counts them; an argument the count does
    not take refused as OpenAI refuses it."""
    try:
        authorize(sim, req, "cloud")
        body = parse_json(req.body, "cloud")
        refuse_unknown_responses(body, COUNT_ARGUMENTS)
    except ApiError as err:
        await sim.send_error("cloud", err, resp)
        return
    items = body.get("input")
    messages = [{"content": items}] if isinstance(items, str) else items
    instructions = body.get("instructions")
    counted = tokens.messages_tokens(
        messages if isinstance(messages, list) else [],
        instructions if isinstance(instructions, str) else "",
    )
    reply = {"object": "response.input_tokens", "input_tokens": counted}
    await resp.send(200, JSON, orjson.dumps(reply))


async def tokenize(sim: Simulator, req: Request, resp: Response) -> None:
    """vLLM's `/tokenize`: a chat (template applied, as chat counts it) or a plain prompt."""
    try:
        authorize(sim, req, "vllm")
        body = parse_json(req.body, "vllm")
        text, count = _tokenize_input(body)
        model = body.get("model")
        served = sim.settings.model_name
        if model is not None and model != served and not sim.settings.accept_any_model:
            raise missing_model("vllm", str(model), served)
    except ApiError as err:
        await sim.send_error("vllm", err, resp)
        return
    reply: dict[str, Any] = {"count": count, "max_model_len": sim.settings.window}
    reply |= {"tokens": tokens.ids(text, count), "token_strs": None}
    await resp.send(200, JSON, orjson.dumps(reply))


def _tokenize_input(body: dict[str, Any]) -> tuple[str, int]:
    messages, prompt = body.get("messages"), body.get("prompt")
    if isinstance(messages, list):
        tools = orjson.dumps(body["tools"]).decode() if body.get("tools") else ""
        text = "\n".join(
            tokens.content_text(m.get("content")) for m in messages if isinstance(m, dict)
        )
        return text, tokens.messages_tokens(messages, tools)
    if isinstance(prompt, str):
        return prompt, tokens.count(prompt) + 1  # + BOS, as /v1/completions counts it
    raise validation_error(
        "prompt or messages: Field required", "prompt", "missing", "Field required", body
    )


async def not_found(sim: Simulator, req: Request, resp: Response) -> None:
    profile = sim.settings.profile
    if profile == "vllm":  # FastAPI's answers: a known path names the methods it takes
        allowed = sorted(method for method, path in sim.routes if path == req.path)
        if allowed:
            headers = [("allow", ", ".join(allowed)), *JSON]
            await resp.send(405, headers, b'{"detail":"Method Not Allowed"}')
        else:
            await resp.send(404, JSON, b'{"detail":"Not Found"}')
        return
    message = f"Invalid URL ({req.method} {req.path})"
    await sim.send_error(profile, ApiError(404, "bad_request", message), resp)


async def control(sim: Simulator, req: Request, resp: Response) -> None:
    """The `/sim/` endpoints; see `router.simulator.control`."""
    key = (req.method, req.path)
    try:
        order = None
        if key == ("POST", "/sim/faults"):
            order = apply_faults(sim.control, orjson.loads(req.body or b"{}"))
        elif key == ("POST", "/sim/quality"):
            apply_quality(sim.control, orjson.loads(req.body or b"{}"))
        elif key == ("POST", "/sim/replies"):
            apply_replies(sim.control, orjson.loads(req.body or b"{}"))
        elif key == ("POST", "/sim/release"):
            sim.gate.release(released_fault(orjson.loads(req.body or b"{}")))
        elif key == ("POST", "/sim/reset"):
            reset(sim)
        elif key != ("GET", "/sim/stats"):
            await resp.send(404, JSON, b'{"detail":"Not Found"}')
            return
    except (FaultError, orjson.JSONDecodeError) as exc:
        status, headers, body = render("vllm", ApiError(400, "bad_request", str(exc)))
        await resp.send(status, headers, body)
        return
    state = sim.stats.as_dict(sim.capacity) | sim.control.as_dict()
    # the process's own state, which /sim/reset does not clear
    state["connections"] = len(sim.server.connections)  # this request's own included
    state["held"] = sim.gate.held
    state["heap"] = heap.status()
    resp.keep_alive = resp.keep_alive and order is None
    await resp.send(200, JSON, orjson.dumps(state))
    if order is not None:
        await go_down(sim, order, resp)


def reset(sim: Simulator) -> None:
    sim.stats.reset()
    fresh = Control.from_settings(sim.settings)
    sim.control.set_fault(fresh.fault, None)  # a pending transient fault dropped too
    sim.control.rates = fresh.rates
    sim.control.quality.clear()
    sim.control.quality.update(fresh.quality)
    sim.control.replies = fresh.replies
    sim.control.hang_metrics = fresh.hang_metrics


async def go_down(sim: Simulator, order: DownOrder, resp: Response) -> None:
    """Refuse connections (the listening socket closes, open ones are reset), or come back."""
    if not order.down:
        await sim.server.resume_listening()
        return
    await sim.server.stop_listening(drop_connections=True, spare=resp.connection)
    if order.for_s is not None:
        sim.server.resume_later(order.for_s)
