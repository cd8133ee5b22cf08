"""Reading vLLM's `/metrics` text: the capacity numbers the router uses to decide overflow.

A pure function over the exposition text, so the health poller owns the I/O and tests own
the fixtures. vLLM writes `vllm:num_requests_running`; a Prometheus 2.x scrape of a recent
`prometheus_client` may show `vllm_num_requests_running` (see FACTS.md), so both spellings
are accepted. Several engines (data parallel) each report one series: counts are summed,
the KV-cache fraction takes the fullest engine, since that is the one that will queue first.
"""

from __future__ import annotations

from dataclasses import dataclass

_GAUGES = {
    "num_requests_running": "running",
    "num_requests_waiting": "waiting",
    "kv_cache_usage_perc": "kv_cache_usage",
}
_COUNTERS = {
    "prompt_tokens_total": "prompt_tokens_total",
    "generation_tokens_total": "generation_tokens_total",
}


@dataclass(frozen=True, slots=True)
class VllmCapacity:
    """What one vLLM server reports about its load. `None` means the series was absent."""

    running: float | None = None
    waiting: float | None = None
    kv_cache_usage: float | None = None  # 0..1 fraction
    prompt_tokens_total: float | None = None
    generation_tokens_total: float | None = None

    @property
    def complete(self) -> bool:
        """True when the three capacity gauges were all present."""
        return None not in (self.running, self.waiting, self.kv_cache_usage)


def parse(text: str) -> VllmCapacity:
    """Extract capacity gauges and token counters from Prometheus text exposition."""
    sums: dict[str, float] = {}
    kv: float | None = None
    for line in text.splitlines():
        sample = _sample(line)
        if sample is None:
            continue
        field, value = sample
        if field == "kv_cache_usage":
            kv = value if kv is None else max(kv, value)
        else:
            sums[field] = sums.get(field, 0.0) + value
    return VllmCapacity(
        running=sums.get("running"),
        waiting=sums.get("waiting"),
        kv_cache_usage=kv,
        prompt_tokens_total=sums.get("prompt_tokens_total"),
        generation_tokens_total=sums.get("generation_tokens_total"),
    )


def _sample(line: str) -> tuple[str, float] | None:
    """(field, value) for a sample line of a metric we read, else None."""
    if not line.startswith("vllm"):
        return None
    rest = line[4:]
    if not rest or rest[0] not in ":_":
        return None
    end = _name_end(rest)
    short = rest[1:end]
    field = _GAUGES.get(short) or _COUNTERS.get(short)
    if field is None:
        return None
    value_text = _value_text(rest[end:])
    try:
        value = float(value_text)
    except ValueError:
        return None
    if value != value:  # NaN: an engine that has not reported yet
        return None
    return field, value


def _name_end(rest: str) -> int:
    for i, ch in enumerate(rest):
        if ch in "{ \t":
            return i
    return len(rest)


def _value_text(after_name: str) -> str:
    """The value token: after the label set (which may hold spaces inside quotes)."""
    if after_name.startswith("{"):
        close = _labels_end(after_name)
        after_name = after_name[close + 1 :]
    parts = after_name.split()
    return parts[0] if parts else ""


def _labels_end(text: str) -> int:
    in_quotes = False
    escaped = False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            in_quotes = not in_quotes
        elif ch == "}" and not in_quotes:
            return i
    return len(text) - 1
