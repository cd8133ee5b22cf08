"""The vLLM /metrics parser on text shaped like vLLM 0.3x's exposition, in both spellings."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.vllm_metrics import VllmCapacity, parse

MODEL = 'model_name="poolside/Laguna-S-2.1-NVFP4"'
CAPTURES = Path(__file__).resolve().parents[1] / "vllm" / "captures"

# The shape vLLM's prometheus_client exposition has: HELP/TYPE lines, engine and model labels,
# `_created` samples next to counters, histograms with `le` buckets.
VLLM_TEXT = f"""\
# HELP python_gc_objects_collected_total Objects collected during gc
# TYPE python_gc_objects_collected_total counter
python_gc_objects_collected_total{{generation="0"}} 12662.0
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{{engine="0",{MODEL}}} 3.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{{engine="0",{MODEL}}} 2.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{{engine="0",{MODEL}}} 0.4375
# HELP vllm:num_requests_running_by_lora Not a metric we read; shares a prefix.
vllm:num_requests_running_by_lora{{engine="0",{MODEL}}} 99.0
# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{{engine="0",{MODEL}}} 182734.0
vllm:prompt_tokens_created{{engine="0",{MODEL}}} 1.7645e+09
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{{engine="0",{MODEL}}} 52811.0
vllm:generation_tokens_created{{engine="0",{MODEL}}} 1.7645e+09
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{{engine="0",le="0.001",{MODEL}}} 0.0
vllm:time_to_first_token_seconds_bucket{{engine="0",le="+Inf",{MODEL}}} 48.0
vllm:time_to_first_token_seconds_count{{engine="0",{MODEL}}} 48.0
vllm:cache_config_info{{block_size="16",cache_dtype="auto",engine="0",num_gpu_blocks="8192"}} 1.0
"""


def test_colon_spelling() -> None:
    cap = parse(VLLM_TEXT)
    assert cap == VllmCapacity(
        running=3.0,
        waiting=2.0,
        kv_cache_usage=0.4375,
        prompt_tokens_total=182734.0,
        generation_tokens_total=52811.0,
    )
    assert cap.complete


def test_underscore_spelling_gives_the_same_numbers() -> None:
    escaped = VLLM_TEXT.replace("vllm:", "vllm_")
    assert parse(escaped) == parse(VLLM_TEXT)


def test_several_engines_sum_counts_and_take_the_fullest_kv_cache() -> None:
    text = "\n".join(
        [
            'vllm:num_requests_running{engine="0",model_name="m"} 4',
            'vllm:num_requests_running{engine="1",model_name="m"} 6',
            'vllm:num_requests_waiting{engine="0",model_name="m"} 0',
            'vllm:num_requests_waiting{engine="1",model_name="m"} 5',
            'vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.2',
            'vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.9',
        ]
    )
    cap = parse(text)
    assert (cap.running, cap.waiting, cap.kv_cache_usage) == (10, 5, 0.9)
    assert cap.prompt_tokens_total is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# only comments\n# TYPE vllm:num_requests_running gauge\n",
        "garbage line\nvllm\nvllm:\nvllmx:num_requests_running 3\n",
        'vllm:num_requests_running{engine="0"} not-a-number\n',
        'vllm:num_requests_running{engine="0"} NaN\n',
    ],
)
def test_missing_or_junk_gives_absent_values(text: str) -> None:
    cap = parse(text)
    assert cap.running is None
    assert not cap.complete


def test_labels_with_spaces_and_braces_inside_quotes_and_timestamps() -> None:
    text = 'vllm:num_requests_waiting{model_name="a } b \\" c",engine="0"} 7 1764500000000\n'
    assert parse(text).waiting == 7
    assert parse("vllm:num_requests_running 2.5\n").running == 2.5


def test_vllm_0_32_captures_idle_and_saturated() -> None:
    """Verbatim /metrics of a real vLLM (scripts/vllm-cpu/capture.py): idle, and with six
    streamed requests on `--max-num-seqs 2`. The saturated file was once an empty line that
    docs/compatibility.md described as running 2, waiting 4 (found in review)."""
    idle = parse((CAPTURES / "metrics.txt").read_text())
    assert (idle.running, idle.waiting, idle.kv_cache_usage) == (0, 0, 0)
    assert idle.complete
    busy = parse((CAPTURES / "metrics_saturated.txt").read_text())
    assert (busy.running, busy.waiting) == (2, 4)
    assert busy.kv_cache_usage is not None and 0 < busy.kv_cache_usage < 0.01
