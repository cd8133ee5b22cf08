"""The plan of a request carrying vLLM's own output constraint (`router.vllm_fields`): only
a local backend not called through litellm may serve it, the turn served past the cloud is
a detour (the pin stays), and a refusal says which field kept the cloud out. Pure: plans
made by hand, no server (the live router: test_vllm_fields.py)."""

from __future__ import annotations

from dataclasses import replace

from classifier.intent import INTENTS, Intent
from router.backends.vllm_own import left_out
from router.config import parse
from router.errors import BadRequest, BadRequestTooLong
from router.metric_zeros import skip_reasons
from router.policy import BackendState, Demand, detoured, plan
from router.record import Attempt
from router.refusals import nothing_tried
from router.target import Target

CFG = parse(
    {
        "backends": [
            {"name": "local", "tier": "local", "base_url": "http://l/v1", "model": "m"},
            {"name": "ollama", "tier": "local", "kind": "litellm", "model": "ollama/m"},
            {"name": "cloud", "tier": "cloud", "base_url": "http://c/v1", "model": "g"},
        ],
        "routes": {i: ["cloud", "ollama", "local"] for i in INTENTS},
    }
)
MATH = Intent("math", 0.9, "model")
AUTO = Target("auto")
CONSTRAINED = Demand(vllm_field="structured_outputs")


def test_only_a_local_backend_not_through_litellm_serves_it() -> None:
    """litellm hands on only the fields of OpenAI's chat request: through it, a local
    server got the request without its constraint."""
    the_plan = plan(MATH, AUTO, CONSTRAINED, {}, CFG)
    assert the_plan.backends == ("local",)
    assert [(s.backend, s.reason) for s in the_plan.skipped] == [
        ("cloud", "vllm_fields"),
        ("ollama", "vllm_fields"),
    ]
    assert plan(MATH, AUTO, Demand(), {}, CFG).backends == ("cloud", "ollama", "local")


def test_served_past_the_pinned_cloud_it_is_a_detour_a_private_turn_is_not() -> None:
    """The constraint is this turn's, as `n` > 1 is: the next turn may carry none and go
    back where the conversation was. A private caller stays private."""
    pinned = plan(
        MATH, AUTO, Demand(vllm_field="structured_outputs", sticky_backend="cloud"), {}, CFG
    )
    assert pinned.preference[0] == "cloud" and pinned.backends == ("local",)
    assert detoured(pinned, [Attempt("local", "local")], "local")
    private = plan(MATH, AUTO, Demand(private=True, sticky_backend="cloud"), {}, CFG)
    assert not detoured(private, [Attempt("ollama", "local")], "ollama")


def test_a_response_stored_on_the_cloud_is_refused_naming_the_field() -> None:
    demand = Demand(api="responses", vllm_field="structured_outputs", response_home="cloud")
    error = nothing_tried(plan(MATH, AUTO, demand, {}, CFG), "responses", None)
    assert isinstance(error, BadRequest) and error.param == "previous_response_id"
    assert "stored on 'cloud', and structured_outputs is vLLM's own" in error.message


def test_a_prompt_too_long_for_the_local_window_says_why_the_cloud_was_out() -> None:
    """Told only that no backend's window holds it, the client would not know the cloud,
    with a larger window, was never a choice."""
    states = {"local": BackendState(context_window=100)}
    demand = Demand(vllm_field="response_format", prompt_tokens=500)
    error = nothing_tried(plan(MATH, AUTO, demand, states, CFG), "chat", None)
    assert isinstance(error, BadRequestTooLong)
    assert (
        "every local backend that could serve it (response_format of type structural_tag, "
        "vLLM's own, is honoured only by a local backend not through litellm)"
    ) in error.message
    private = nothing_tried(
        plan(MATH, AUTO, replace(demand, private=True), states, CFG), "chat", None
    )
    assert (  # privacy kept the cloud out, the field ollama: both said (privacy's alone hid it)
        "(a private request may use the local tier only; response_format of type "
        "structural_tag, vLLM's own, is honoured only by a local backend not through litellm)"
    ) in private.message


def test_a_local_backend_at_openais_api_is_not_vllm_for_any_of_its_fields() -> None:
    """One answer to "is this backend vLLM?" for the constraint (the plan), the sampling
    extras (`left_out`) and the metric series a skip may count: a local backend at
    `https://api.openai.com/v1` kept `structured_outputs`, which OpenAI refuses, while its
    `top_k` was dropped as OpenAI's own API (found in review)."""
    openai_local = parse(
        {
            "backends": [
                {
                    "name": "oa",
                    "tier": "local",
                    "base_url": "https://api.openai.com/v1",
                    "model": "g",
                },
                {"name": "local", "tier": "local", "base_url": "http://l/v1", "model": "m"},
            ],
            "routes": {i: ["oa", "local"] for i in INTENTS},
        }
    )
    the_plan = plan(MATH, AUTO, CONSTRAINED, {}, openai_local)
    assert the_plan.backends == ("local",)
    assert [(s.backend, s.reason) for s in the_plan.skipped] == [("oa", "vllm_fields")]
    oa, local = openai_local.backend("oa"), openai_local.backend("local")
    assert left_out(oa, {"top_k": 5, "temperature": 0}, "chat") == ["top_k"]
    assert left_out(local, {"top_k": 5}, "chat") == []
    assert "vllm_fields" in skip_reasons(oa) and "vllm_fields" not in skip_reasons(local)
