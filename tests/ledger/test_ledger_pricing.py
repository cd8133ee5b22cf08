"""Pricing: litellm's map, config overrides, local cost and offload on hand-checked numbers."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from router import report
from router.config import Config, ConfigError, LocalCost, load, parse
from router.pricing import (
    MONTH_S,
    Pricer,
    Rates,
    litellm_rates,
    local_cost_parts,
    price_map_version,
    token_cost,
)
from router.record import Attempt, Outcome, Record, Usage
from tests.harness import INTENTS
from tests.router.config_files import write

BOX = {
    "hardware_usd": 3600,
    "amortization_months": 36,
    "power_watts": 500,
    "electricity_usd_per_kwh": 0.2,
    "monthly_fixed_usd": 20,
}


def config() -> Config:
    return parse(
        {
            "backends": [
                {
                    "name": "local",
                    "tier": "local",
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "laguna",
                    "local_cost": BOX,
                },
                {
                    "name": "cloud",
                    "tier": "cloud",
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "gpt-4o",
                    "price": {
                        "input_per_mtok": 2.5,
                        "output_per_mtok": 10,
                        "cached_input_per_mtok": 1.25,
                    },
                },
                {
                    "name": "sonnet",
                    "tier": "cloud",
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "claude-sonnet-4-5",
                },
            ],
            "routes": {
                "coding": ["local", "cloud"],
                "tool_calling": ["local", "cloud"],
                "instruction": ["local"],
                "math": ["sonnet", "local"],
                "reasoning": ["cloud"],
                "prose": ["cloud"],
                "writing": ["cloud"],
            },
        }
    )


def test_litellm_map_prices_known_models_offline() -> None:
    gpt = litellm_rates("gpt-4o")
    assert gpt == Rates(2.5e-6, 1e-5, 1.25e-6)
    sonnet = litellm_rates("claude-sonnet-4-5")
    assert (sonnet.input, sonnet.output, sonnet.cached_input) == pytest.approx((3e-6, 1.5e-5, 3e-7))
    with pytest.raises(KeyError):
        litellm_rates("no-such-model-anywhere")
    assert price_map_version().startswith("litellm-1.")


def test_token_cost_bills_cached_prompt_tokens_at_the_cached_rate() -> None:
    usage = Usage(prompt_tokens=1000, completion_tokens=500, cached_tokens=400)
    # 600 × 2.5e-6 + 400 × 1.25e-6 + 500 × 1e-5 = 0.0015 + 0.0005 + 0.005
    assert token_cost(usage, Rates(2.5e-6, 1e-5, 1.25e-6)) == pytest.approx(0.007)
    # No cached price known: every prompt token at the full rate.
    assert token_cost(usage, Rates(2.5e-6, 1e-5)) == pytest.approx(0.0075)


def test_local_cost_of_one_hour() -> None:
    parts = local_cost_parts(3600, LocalCost(**BOX))
    share = 3600 / MONTH_S  # MONTH_S = 2,629,800 s
    assert parts.energy == pytest.approx(0.1)  # 0.5 kW × 1 h × $0.2
    assert parts.amortization == pytest.approx(share * 100)  # $3600 / 36 months = $100/month
    assert parts.fixed == pytest.approx(share * 20)
    assert parts.total == pytest.approx(0.1 + 0.13689 + 0.027379, abs=1e-5)


def test_local_request_gets_its_cost_and_the_routes_cloud_counterfactual() -> None:
    pricer = Pricer(config())
    record = Record(
        "r",
        0.0,
        route="coding",
        backend="local",
        tier="local",
        attempts=[
            Attempt("cloud", "cloud", "error", "timeout", 504, 2.0),
            Attempt("local", "local", duration_s=3600.0),
        ],
        usage=Usage(1000, 500, 400),
        duration_s=3602.0,
    )
    cost, counterfactual = pricer.price(record)
    assert cost == pytest.approx(local_cost_parts(3600, LocalCost(**BOX)).total)
    assert counterfactual == pytest.approx(0.007)  # the failed cloud attempt is not billed
    assert counterfactual - cost == pytest.approx(0.007 - 0.264269, abs=1e-5)  # offloaded


def test_cloud_request_costs_its_own_price_from_litellm() -> None:
    record = Record("r", 0.0, route="math", backend="sonnet", tier="cloud", usage=Usage(1000, 100))
    cost, counterfactual = Pricer(config()).price(record)
    assert cost == counterfactual == pytest.approx(1000 * 3e-6 + 100 * 1.5e-5)


def test_route_without_a_cloud_backend_uses_the_first_cloud_backend() -> None:
    record = Record(
        "r",
        0.0,
        route="instruction",
        backend="local",
        tier="local",
        usage=Usage(1_000_000, 0),
        duration_s=0.0,
    )
    assert Pricer(config()).price(record) == (0.0, pytest.approx(2.5))


def test_failed_requests_are_not_billed() -> None:
    record = Record(
        "r",
        0.0,
        route="coding",
        backend=None,
        outcome="upstream_error",
        attempts=[Attempt("local", "local", "error", "unreachable")],
        usage=Usage(500, 0),
    )
    assert Pricer(config()).price(record) == (0.0, 0.0)


def test_anthropic_cache_writes_are_priced_at_their_own_rate() -> None:
    """A 100k-token cache write was billed at the plain input rate: 19.9 % under what
    Anthropic charges (found in review). Reads keep their own (lower) rate."""
    from router import price_map
    from router.ledger.usage import normalize_usage

    model = "claude-sonnet-4-5-20250929"  # in the bundled map of the pinned litellm
    entry = price_map.entry(model)
    assert entry and entry["cache_creation_input_token_cost"] > entry["input_cost_per_token"]
    usage = normalize_usage(
        "messages",
        {
            "input_tokens": 10,
            "cache_creation_input_tokens": 100_000,
            "cache_read_input_tokens": 2_000,
            "output_tokens": 100,
        },
    )
    assert (usage.prompt_tokens, usage.cache_write_tokens, usage.cached_tokens) == (
        102_010,
        100_000,
        2_000,
    )
    billed = (
        10 * entry["input_cost_per_token"]
        + 100_000 * entry["cache_creation_input_token_cost"]
        + 2_000 * entry["cache_read_input_token_cost"]
        + 100 * entry["output_cost_per_token"]
    )
    assert token_cost(usage, litellm_rates(model)) == pytest.approx(billed)


def test_cache_writes_behind_a_litellm_chat_backend_are_priced_and_stored(tmp_path: Path) -> None:
    """Claude through a litellm backend reports its cache writes in chat usage as litellm
    names them; they were billed at the input rate and stored nowhere."""
    import duckdb

    from router.backends.litellm import _plain, import_litellm
    from router.ledger import LedgerWriter
    from router.ledger.usage import normalize_usage

    litellm = import_litellm()
    reply = litellm.ModelResponse(
        usage=litellm.Usage(
            prompt_tokens=102_010,
            completion_tokens=100,
            total_tokens=102_110,
            cache_creation_input_tokens=100_000,
            cache_read_input_tokens=2_000,
        )
    )
    usage = normalize_usage("chat", _plain(reply)["usage"])  # what the backend yields
    assert (usage.prompt_tokens, usage.cache_write_tokens, usage.cached_tokens) == (
        102_010,
        100_000,
        2_000,
    )
    model = "claude-sonnet-4-5-20250929"
    plain = Usage(102_010, 100, 2_000)
    assert token_cost(usage, litellm_rates(model)) > token_cost(plain, litellm_rates(model))
    writer = LedgerWriter(tmp_path)
    writer.submit(Record("w", 1_760_000_000.0, usage=usage))
    writer.close()
    (stored,) = duckdb.sql(
        f"SELECT cache_write_tokens FROM read_parquet('{tmp_path}/**/*.parquet')"
    ).fetchall()
    assert stored == (100_000,)


@pytest.mark.parametrize(
    ("outcome", "credited"),
    [("ok", True), ("cancelled", True), ("upstream_error", False), ("router_error", False)],
)
def test_a_local_request_displaced_cloud_spend_only_if_it_delivered_or_was_cancelled(
    outcome: Outcome, credited: bool
) -> None:
    """A local stream cut or ended by an error credited the cloud price of a prompt its
    client got an error for (found in review). One the client left mid-answer is credited
    what it produced: a cloud backend bills a stream cut by its client the same."""
    record = Record(
        "r",
        0.0,
        route="coding",
        backend="local",
        tier="local",
        outcome=outcome,
        attempts=[Attempt("local", "local", "ok" if credited else "error", duration_s=60.0)],
        usage=Usage(100_000, 500),
        duration_s=60.0,
    )
    cost, counterfactual = Pricer(config()).price(record)
    assert cost == pytest.approx(local_cost_parts(60, LocalCost(**BOX)).total)  # it ran
    assert counterfactual == (pytest.approx(100_000 * 2.5e-6 + 500 * 1e-5) if credited else 0.0)


def test_a_failed_local_request_on_an_unpriced_route_is_not_unpriced() -> None:
    """It displaced nothing, whatever the cloud would charge: known, not NULL."""
    from tests.ledger.unpriced_config import config as unpriced_config
    from tests.ledger.unpriced_config import request_record

    record = request_record("r", "reasoning", "local", "local")  # its cloud: no known price
    assert Pricer(unpriced_config()).price(record)[1] is None
    record.outcome = "upstream_error"
    record.cost_usd, record.counterfactual_usd = Pricer(unpriced_config()).price(record)
    assert record.counterfactual_usd == 0.0 and not record.unpriced


CACHED_CLAUDE = """
backends:
  - {name: local, tier: local, base_url: "http://127.0.0.1:9/v1", model: laguna}
  - name: override
    tier: cloud
    base_url: "http://127.0.0.1:9/v1"
    model: claude-sonnet-4-5
    price: {input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3,
            cache_write_input_per_mtok: 3.75}
  - name: no_write_rate
    tier: cloud
    base_url: "http://127.0.0.1:9/v1"
    model: claude-sonnet-4-5
    price: {input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3}
  - {name: mapped, tier: cloud, base_url: "http://127.0.0.1:9/v1", model: claude-sonnet-4-5}
routes: ROUTES
""".replace("ROUTES", "{" + ", ".join(f"{i}: [override, local]" for i in INTENTS) + "}")


def test_a_price_override_bills_cache_writes_at_its_own_rate(tmp_path: Path) -> None:
    """An override had no cache-write rate: at Sonnet's 3/15/0.3, 100k tokens written to
    Anthropic's cache and 1k out were $0.315, where litellm's map (and Anthropic) charge
    $0.39 (found in review). Unset, the write rate is the input rate, as litellm bills a
    model whose entry has none; a negative one is a config error naming the field."""
    from router.ledger import LedgerWriter
    from router.ledger.usage import normalize_usage

    config = load(write(tmp_path, CACHED_CLAUDE))
    usage = normalize_usage(
        "messages",
        {"input_tokens": 0, "cache_creation_input_tokens": 100_000, "output_tokens": 1000},
    )
    pricer = Pricer(config)
    writer = LedgerWriter(tmp_path / "ledger", process_tag="cache")
    for name in ("override", "no_write_rate", "mapped"):
        record = Record(name, 1_760_000_000.0, route="coding", backend=name, tier="cloud")
        record.usage = usage
        record.cost_usd, record.counterfactual_usd = pricer.price(record)
        writer.submit(record)
    writer.close()
    built = report.build(tmp_path / "ledger", since=datetime(2025, 1, 1, tzinfo=UTC), by="backend")
    spend = {group["key"]: group["cloud_usd"] for group in built["groups"]}
    assert spend == {"override": 0.39, "mapped": 0.39, "no_write_rate": 0.315}
    bad = CACHED_CLAUDE.replace("write_input_per_mtok: 3.75", "write_input_per_mtok: -1")
    with pytest.raises(ConfigError, match="cache_write_input_per_mtok"):
        load(write(tmp_path, bad))
