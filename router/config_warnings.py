"""What a config that loads may still do wrong: warnings `config check`, `serve` and a reload
print or log, where refusing the config would stop a router for something harmless today.

- A backend's `api_key_env` variable is unset or empty (`Backend.key_warning`).
- A `shadow.targets` entry or `shadow.judge_backend` names a backend that does not speak
  chat while no shadow rate is above 0: the shadow never asks it, so a leftover from before
  an upgrade must not stop `serve` or a reload; once a rate is set it is refused
  (`router.config_checks.shadow_backends`).
- A `shadow.targets` entry names a cloud backend while `shadow.allow_cloud_targets` is off:
  `router.shadow_sampling.decide` drops every such sample as `not_allowed`, so the entry
  does nothing; it loaded without a word (found in review). A warning, as an entry kept for
  turning `allow_cloud_targets` on later is harmless.
- `ledger.store_text` is on and `ledger.housekeeping` off: the hourly housekeeping is what
  applies `text_retention_days` (and `retention_days`), so without a `smf-router ledger
  compact --config` job prompts and completions are kept for ever.
- A cloud backend has no `price` and litellm's map does not know its model: its cost is
  stored as unknown (NULL), and the report's dollars leave it out (`router.pricing`); only
  a line logged at `serve` said so before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from router.config_checks import chat_problem, shadow_named

if TYPE_CHECKING:  # `router.config` imports this module
    from router.config import Config

UNASKED = "harmless while no shadow rate is above 0; refused once one is"
CLOUD_TARGET = (
    "shadow.targets.{intent}: backend {name!r} is on the cloud tier and"
    " shadow.allow_cloud_targets is off, so every sample for {intent} is dropped"
    " (not_allowed); set allow_cloud_targets or name a local backend"
)
TEXTS_KEPT = (
    "ledger.store_text is on and ledger.housekeeping off: prompt texts (and records) are kept"
    " until `smf-router ledger compact --config` runs; make sure a job runs it (the Kubernetes"
    " CronJob smf-router-ledger-compact does), or text_retention_days is never applied"
)
UNPRICED = (
    "backends.{name}: the router found no price for cloud model {model!r} (none in litellm's"
    " price map under that name, no `price` set): its requests' cost, and the counterfactual"
    " cost of routes it prices, are stored as unknown and left out of the report's dollars;"
    " set `price:` on the backend"
)


def of(config: Config) -> list[str]:
    """One line per thing to warn of, in a stable order."""
    said = [w for b in config.backends if (w := b.key_warning()) is not None]
    if not config.shadow.samples:
        for where, name in shadow_named(config):  # each exists: the config loaded
            if (problem := chat_problem(where, config.backend(name))) is not None:
                said.append(f"{problem} ({UNASKED})")
    if not config.shadow.allow_cloud_targets:
        for intent, name in config.shadow.targets.items():
            if config.backend(name).tier != "local":
                said.append(CLOUD_TARGET.format(intent=intent, name=name))
    if config.ledger.store_text and not config.ledger.housekeeping:
        said.append(TEXTS_KEPT)
    from router import pricing  # `router.pricing` imports `router.config`, which imports this

    for name in pricing.unpriced_backends(config):
        said.append(UNPRICED.format(name=name, model=config.backend(name).model))
    return said
