"""Usage normalisation per API shape, with payloads shaped like the real ones (FACTS.md)."""

from __future__ import annotations

import orjson

from router.ledger.usage import normalize_usage
from router.record import Usage


def test_chat_usage_keeps_cached_and_reasoning_inside_the_totals() -> None:
    usage = {
        "prompt_tokens": 1200,
        "completion_tokens": 300,
        "total_tokens": 1500,
        "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 128, "audio_tokens": 0},
    }
    assert normalize_usage("chat", usage) == Usage(1200, 300, 1024, 128)


def test_vllm_chat_usage_without_details() -> None:
    usage = {
        "prompt_tokens": 17,
        "total_tokens": 26,
        "completion_tokens": 9,
        "prompt_tokens_details": None,
    }
    assert normalize_usage("chat", usage) == Usage(17, 9)


def test_responses_usage() -> None:
    usage = {
        "input_tokens": 328,
        "input_tokens_details": {"cached_tokens": 128},
        "output_tokens": 52,
        "output_tokens_details": {"reasoning_tokens": 20},
        "total_tokens": 380,
    }
    assert normalize_usage("responses", usage) == Usage(328, 52, 128, 20)


def test_anthropic_input_tokens_exclude_cache_reads_and_writes() -> None:
    usage = {
        "input_tokens": 50,
        "cache_creation_input_tokens": 200,
        "cache_read_input_tokens": 1000,
        "output_tokens": 80,
    }
    assert normalize_usage("messages", usage) == Usage(1250, 80, 1000, 0, cache_write_tokens=200)


def test_missing_or_malformed_usage_counts_zero_and_keeps_the_estimate_flag() -> None:
    assert normalize_usage("chat", None, estimated=True) == Usage(estimated=True)
    bad = {"prompt_tokens": "12", "completion_tokens": -3, "prompt_tokens_details": [1]}
    assert normalize_usage("chat", bad) == Usage()
    assert normalize_usage("messages", {"input_tokens": True}) == Usage()


def test_responses_usage_keeps_cache_writes_where_vllm_and_litellm_report_them() -> None:
    usage = {
        "input_tokens": 1200,
        "input_tokens_details": {"cached_tokens": 1000, "cache_write_tokens": 150},
        "output_tokens": 40,
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    assert normalize_usage("responses", usage) == Usage(1200, 40, 1000, 0, cache_write_tokens=150)


def test_a_token_count_beyond_any_real_one_counts_as_unknown() -> None:
    # valid JSON, and orjson (what the relay parses upstream replies with) keeps it an int
    usage = orjson.loads(b'{"prompt_tokens": 18446744073709551615, "completion_tokens": 5}')
    assert normalize_usage("chat", usage) == Usage(0, 5)
    anthropic = {"input_tokens": 10, "cache_read_input_tokens": 2**63, "output_tokens": 2}
    assert normalize_usage("messages", anthropic) == Usage(10, 2)
    assert normalize_usage("responses", {"input_tokens": 2**40}) == Usage(2**40)  # still real
