"""The built-in config for a router started without a file, from a few environment variables.

With none of them set the router runs in demo mode: the simulator serves as both backends,
and the ledger is `DEMO_LEDGER`, so that fake dollars never join a real router's history.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from router.config import Config, parse

LAGUNA = "poolside/Laguna-S-2.1-NVFP4"
# What is known of Laguna on the DGX Spark: thinking off for agent turns, its window and the
# sequences it serves at once. Only for Laguna: imposed on another model, a window it does not
# have kept the router from learning the real one from /v1/models (found in review).
LAGUNA_SETTINGS: dict[str, Any] = {
    "extra_body": {"chat_template_kwargs": {"enable_thinking": False}},
    "max_concurrency": 32,
    "context_window": 262144,
}
BACKEND_VARIABLES = ("SMF_LOCAL_URL", "SMF_LOCAL_MODEL", "SMF_CLOUD_URL", "SMF_CLOUD_MODEL")
# Where each variable's value goes: an error names the variable the user set, not the field.
_FILLS: dict[str, tuple[int | str, ...]] = {
    "SMF_LOCAL_URL": ("backends", 0, "base_url"),
    "SMF_LOCAL_MODEL": ("backends", 0, "model"),
    "SMF_CLOUD_URL": ("backends", 1, "base_url"),
    "SMF_CLOUD_MODEL": ("backends", 1, "model"),
    "SMF_CLOUD_API_KEY_ENV": ("backends", 1, "api_key_env"),
}
# Demo mode's ledger: apart from the default `./var/ledger`, where a real router on the same
# defaults would count the simulator's fake cloud dollars and offload as its own.
DEMO_LEDGER = "./var/demo-ledger"


def is_demo(env: Mapping[str, str]) -> bool:
    return not any(env.get(name) for name in (*BACKEND_VARIABLES, "SMF_ROUTER_CONFIG"))


def from_environment(env: Mapping[str, str] | None = None) -> Config:
    """local = vLLM serving Laguna with thinking off (another `SMF_LOCAL_MODEL` gets no
    Laguna settings: its window and capacity are learned from the server); cloud =
    OpenAI-compatible or litellm.
    A variable set but empty counts as unset, as for `is_demo` and `${VAR:-default}`."""
    env = {name: value for name, value in (os.environ if env is None else env).items() if value}
    cloud_model = env.get("SMF_CLOUD_MODEL", "gpt-4o-mini")
    cloud: dict[str, Any] = {"name": "cloud", "tier": "cloud", "model": cloud_model}
    if "/" in cloud_model and not env.get("SMF_CLOUD_URL"):
        cloud |= {"kind": "litellm", "api_key_env": env.get("SMF_CLOUD_API_KEY_ENV")}
    else:
        url = env.get("SMF_CLOUD_URL", "https://api.openai.com/v1")
        # a `user:password@` in the URL is the Authorization header, which a key would be
        # too: the default key variable made every such URL a config error (found in review)
        default_key = None if urlsplit(url).username is not None else "OPENAI_API_KEY"
        cloud |= {"base_url": url, "api_key_env": env.get("SMF_CLOUD_API_KEY_ENV", default_key)}
    local_model = env.get("SMF_LOCAL_MODEL", LAGUNA)
    local = {
        "name": "local",
        "tier": "local",
        "base_url": env.get("SMF_LOCAL_URL", "http://localhost:8888/v1"),
        "model": local_model,
    }
    if local_model == LAGUNA:
        local |= LAGUNA_SETTINGS
    variables = {where: name for name, where in _FILLS.items() if name in env}
    return parse({"backends": [local, cloud]}, source="built-in defaults", variables=variables)


def demo(local_url: str, cloud_url: str) -> Config:
    """Both backends are simulators on this machine: everything works, nothing is real
    (nor recorded as real: the ledger is `DEMO_LEDGER`)."""
    return parse(
        {
            "demo": True,
            "ledger": {"path": DEMO_LEDGER},
            "backends": [
                {
                    "name": "local",
                    "tier": "local",
                    "base_url": local_url,
                    "model": LAGUNA,
                    **LAGUNA_SETTINGS,
                },
                # it plays OpenAI, whose chat models serve no /v1/completions (a 404), so it
                # claims chat only, as a backend on OpenAI's own API does by default
                {
                    "name": "cloud",
                    "tier": "cloud",
                    "base_url": cloud_url,
                    "model": "gpt-4o",
                    "apis": ["chat"],
                },
            ],
        },
        source="demo mode",
    )
