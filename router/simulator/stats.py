"""What the simulator has seen (for `/sim/stats`) and vLLM's Prometheus text for `/metrics`."""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

from router.simulator.capacity import Capacity


class Stats:
    """Counters since start or the last `/sim/reset`.

    `in_flight` is the generation requests between their reading and the end of their reply
    (held, waiting and running ones alike); `peak_in_flight` its highest value since the
    reset, as a client's concurrency bound would show. `recent` keeps the last `keep`
    generation bodies (none when 0).
    """

    def __init__(self, keep: int = 0) -> None:
        self.in_flight = 0  # a gauge: a reset does not forget the requests still in flight
        self._keep = keep
        self.reset()

    def reset(self) -> None:
        self.requests = 0
        self.by_path: Counter[str] = Counter()
        self.by_query: Counter[str] = Counter()  # `path?query`, for requests with a query
        self.by_fault: Counter[str] = Counter()
        self.by_status: Counter[int] = Counter()
        self.prompt_tokens = 0
        self.generation_tokens = 0
        self.finished: Counter[str] = Counter()
        self.abandoned = 0  # streams whose client closed the connection before their end
        self.recent: deque[dict[str, Any]] = deque(maxlen=self._keep)
        self.peak_in_flight = self.in_flight

    def enter(self) -> None:
        """A generation request starts."""
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)

    def leave(self) -> None:
        self.in_flight -= 1

    def as_dict(self, capacity: Capacity) -> dict[str, Any]:
        out: dict[str, Any] = {
            "requests": self.requests,
            "by_path": dict(self.by_path),
            "by_query": dict(self.by_query),
            "by_fault": dict(self.by_fault),
            "by_status": {str(k): v for k, v in self.by_status.items()},
            "prompt_tokens": self.prompt_tokens,
            "generation_tokens": self.generation_tokens,
            "abandoned": self.abandoned,
            "running": capacity.running,
            "waiting": capacity.waiting,
            "in_flight": self.in_flight,
            "peak_in_flight": self.peak_in_flight,
        }
        if self.recent:  # the newest of them, as the tests that want one body read it
            out["last_request"] = self.recent[-1]
        if self._keep:
            out["recent_requests"] = list(self.recent)
        return out


def _metric(name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> str:
    # prometheus_client (as vLLM 0.3x serves it) keeps `_total` on counter HELP/TYPE lines
    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
    lines += [f"{name}{{{labels}}} {value!r}" for labels, value in samples]
    return "\n".join(lines)


def prometheus_text(model: str, stats: Stats, capacity: Capacity) -> str:
    """The vLLM series the router reads, named and typed exactly as vLLM exposes them."""
    base = f'engine="0",model_name="{model}"'
    finished = [
        (
            f'engine="0",finished_reason="{reason}",model_name="{model}"',
            float(stats.finished[reason]),
        )
        for reason in ("stop", "length", "abort", "error")
    ]
    families = [
        _metric(
            "vllm:num_requests_running",
            "gauge",
            "Number of requests in model execution batches.",
            [(base, float(capacity.running))],
        ),
        _metric(
            "vllm:num_requests_waiting",
            "gauge",
            "Number of requests waiting to be processed.",
            [(base, float(capacity.waiting))],
        ),
        _metric(
            "vllm:kv_cache_usage_perc",
            "gauge",
            "KV-cache usage. 1 means 100 percent usage.",
            [(base, capacity.kv_usage)],
        ),
        _metric(
            "vllm:prompt_tokens_total",
            "counter",
            "Number of prefill tokens processed.",
            [(base, float(stats.prompt_tokens))],
        ),
        _metric(
            "vllm:generation_tokens_total",
            "counter",
            "Number of generation tokens processed.",
            [(base, float(stats.generation_tokens))],
        ),
        _metric(
            "vllm:request_success_total",
            "counter",
            "Count of successfully processed requests.",
            finished,
        ),
    ]
    return "\n".join(families) + "\n"
