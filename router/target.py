"""What the client asked for (`Target`: classify, a named route, or one backend) and the
route a request takes for it, with the reason (`route_reason`).

The names a request's `model` may give (`model_names`, `resolve_target`), and the route
whose backends `router.policy.plan` then orders. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from classifier.intent import INTENTS, UNREAD, Intent
from router.config import Config

Mode = Literal["auto", "route", "backend"]
# Why a request takes its route (`route_reason`): its intent's label; the default route, for
# a label below `classifier.min_confidence` or nothing read; or the route or backend the
# request names (`model`, an alias, `x-smf-route`)
RouteReason = Literal[
    "label", "below_min_confidence", "nothing_read", "forced_route", "forced_backend"
]


@dataclass(frozen=True, slots=True)
class Target:
    """What the client asked for: classify (`auto`), a named route, or one backend; and
    whether `x-smf-route` named it rather than `model`, for a refusal to name what the
    client sent (`router.refusals`)."""

    mode: Mode
    name: str = ""
    by_header: bool = False


def model_names(config: Config) -> list[str]:
    """The names `resolve_target` knows, once each: `auto`, aliases, routes, backends. What
    `GET /v1/models` lists and a refusal of an unknown name offers, so the two agree."""
    names = ["auto", *config.aliases, *config.routes, *(b.name for b in config.backends)]
    return list(dict.fromkeys(names))


def resolve_target(model: str, config: Config) -> Target | None:
    """Map the request's `model` to a mode; None when the name means nothing here."""
    name = config.aliases.get(model, model)
    if name == "auto":
        return Target("auto")
    if name in config.routes:
        return Target("route", name)
    if any(b.name == name for b in config.backends):
        return Target("backend", name)
    return None


def route_reason(intent: Intent, target: Target, config: Config) -> RouteReason:
    """Why a request takes the route `route_for` gives it. One the classifier could not read
    (source `default`: no text, a malformed body) takes the default route even with
    `min_confidence` 0, where its confidence of 0 is not below the threshold: its label is
    only a placeholder. Below the threshold the default route is taken whatever the label,
    even when the two have the same name: the label did not decide it."""
    if target.mode == "backend":
        return "forced_backend"
    if target.mode == "route":
        return "forced_route"
    if intent.source == "default":
        return "nothing_read"
    if intent.confidence < config.classifier.min_confidence:
        return "below_min_confidence"
    return "label"


def route_for(intent: Intent, target: Target, config: Config) -> str:
    """The route a request takes, for the reason `route_reason` names (explain and
    `smf-router classify` tell it): a forced backend's is that backend's name."""
    reason = route_reason(intent, target, config)
    if reason in ("forced_backend", "forced_route"):
        return target.name
    if reason == "label":
        return intent.label
    return config.classifier.default_route


def intents_on(route: str, config: Config) -> tuple[str, ...]:
    """The intent labels a request on `route` (or forced onto the backend of that name) can
    carry, by `route_for` and the gateway's classifying: a route named after an intent, not
    the default, takes that intent only (classified sure of it, or forced by naming the
    route); the default route, any other route and a forced backend take any, `unknown`
    (nothing read) too."""
    if route in INTENTS and route != config.classifier.default_route:
        return (route,)
    return (*INTENTS, UNREAD)
