"""A config with a cloud backend whose model has no known price, beside a priced one and a
local one, and a request's record of a day in March 2026: what the tests of unpriced
requests in the ledger and the report share."""

from __future__ import annotations

from datetime import UTC, datetime

import yaml

from router.config import Config, parse
from router.record import Attempt, Record, Usage

DAY = datetime(2026, 3, 1, 10, tzinfo=UTC).timestamp()
UNKNOWN = "acme/frontier-x-2027"  # in no price map
CONFIG = f"""
backends:
  - {{name: local, tier: local, base_url: "http://127.0.0.1:9/v1", model: laguna,
      local_cost: {{hardware_usd: 3000, amortization_months: 36}}}}
  - {{name: frontier, tier: cloud, base_url: "http://127.0.0.1:9/v1", model: {UNKNOWN}}}
  - {{name: cloud, tier: cloud, base_url: "http://127.0.0.1:9/v1", model: gpt-4o}}
routes:
  math: [frontier, local]
  reasoning: [local, frontier]
  coding: [local, cloud]
  tool_calling: [local, cloud]
  instruction: [local, cloud]
  prose: [cloud, local]
  writing: [cloud, local]
"""


def config() -> Config:
    return parse(yaml.safe_load(CONFIG))


def request_record(rid: str, route: str, backend: str, tier: str) -> Record:
    return Record(
        rid,
        DAY,
        route=route,
        intent=route,
        backend=backend,
        tier=tier,  # type: ignore[arg-type]
        attempts=[Attempt(backend, tier, duration_s=2.0)],  # type: ignore[arg-type]
        usage=Usage(1000, 200),
        duration_s=2.0,
    )
