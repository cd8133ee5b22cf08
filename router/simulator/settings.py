"""What one simulated backend is: its wire profile, model, window, capacity, speed, faults
and the test aids (scripted replies, kept request bodies, repeatable bytes).

Frozen, so a running simulator's *static* shape never changes; what tests flip at runtime
(default fault, quality, replies, `down`) lives in `router.simulator.control` instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from router.simulator import faults

Profile = Literal["vllm", "cloud", "anthropic"]
PROFILES: tuple[Profile, ...] = ("vllm", "cloud", "anthropic")

DEFAULT_MODELS: dict[Profile, str] = {
    "vllm": "poolside/Laguna-S-2.1-NVFP4",
    "cloud": "gpt-4o",
    "anthropic": "claude-sonnet-4-5",
}
DEFAULT_WINDOWS: dict[Profile, int] = {"vllm": 262144, "cloud": 128000, "anthropic": 200000}
REPEATABLE_CREATED = 1767225600  # 2026-01-01T00:00:00Z: `created` under `repeatable`


@dataclass(frozen=True, slots=True)
class SimSettings:
    """The static shape of one simulated backend. Zero latency by default (fast tests).

    `tokens_per_s` paces prose; `code_tokens_per_s` paces answers that hold code (Laguna:
    ~15 and ~22). 0 means "as fast as possible". `fault` is a default fault spec applied to
    every request (`NAME[:ARG]`); `fault_rates` draws faults at random per request.
    `tokens_per_chunk` packs several tokens into one streamed delta, as a busy vLLM does.
    `max_output_tokens`, on the cloud profile only: the model's own cap on its output, below
    its window, as OpenAI's models have one (gpt-4o's 16384); a chat request asking more is
    refused in OpenAI's words (`router.simulator.errors.over_output_cap`). None: no cap.

    Test aids: `replies` maps a prompt (the last user text, stripped) to the answer text
    given for it, ahead of canary answers and composed ones (what a test needs said on cue),
    except where the request forces a tool call (a named `tool_choice`, `"required"`,
    Anthropic's `any`/`tool`): a real server answers those with a call, and so does this one;
    `keep_requests` keeps the last N generation bodies, oldest first, at `/sim/stats`
    (`recent_requests`, the newest as `last_request`: what a client really sent); `repeatable`
    gives the same request body the same response body, byte for byte (for tests that
    compare bytes): ids come from a hash of the seed, path and body instead of one running
    sequence, and `created` is `REPEATABLE_CREATED` instead of the clock. Canary quality
    below 1 and fault rates still draw from the seeded running sequence.
    """

    profile: Profile = "vllm"
    model: str | None = None
    max_model_len: int | None = None
    max_output_tokens: int | None = None
    max_num_seqs: int = 32
    max_queued: int | None = None
    ttft_s: float = 0.0
    tokens_per_s: float = 0.0
    code_tokens_per_s: float | None = None
    fault: str | None = None
    fault_rates: Mapping[str, float] = field(default_factory=dict)
    quality: Mapping[str, float] = field(default_factory=dict)
    seed: int = 0
    api_key: str | None = None
    basic_auth: str | None = None  # "user:password": as a proxy with basic auth in front
    accept_any_model: bool = False
    kv_cache_tokens: int = 524288
    tokens_per_chunk: int = 1
    replies: Mapping[str, str] = field(default_factory=dict)
    keep_requests: int = 0
    repeatable: bool = False

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"profile must be one of {PROFILES}, not {self.profile!r}")
        if self.max_output_tokens is not None and (
            self.profile != "cloud" or self.max_output_tokens < 1
        ):
            raise ValueError("max_output_tokens is the cloud profile's, and must be >= 1")
        if self.max_num_seqs < 1:
            raise ValueError("max_num_seqs must be >= 1")
        if self.tokens_per_chunk < 1:
            raise ValueError("tokens_per_chunk must be >= 1")
        if self.keep_requests < 0:
            raise ValueError("keep_requests must be >= 0")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in self.replies.items()):
            raise ValueError("replies must map prompt texts to answer texts")
        if self.ttft_s < 0 or self.tokens_per_s < 0:
            raise ValueError("ttft_s and tokens_per_s must be >= 0")
        if sum(self.fault_rates.values()) > 1.0:
            raise ValueError("fault_rates must sum to at most 1.0")
        specs = [("fault", self.fault)] + [("fault_rates", spec) for spec in self.fault_rates]
        for where, spec in specs:
            try:
                if spec is not None:
                    faults.parse(spec)
            except faults.FaultError as exc:  # at start-up, not on the first request
                raise ValueError(f"{where}: {exc}") from None

    @property
    def model_name(self) -> str:
        return self.model or DEFAULT_MODELS[self.profile]

    @property
    def window(self) -> int:
        return self.max_model_len or DEFAULT_WINDOWS[self.profile]

    def pace(self, has_code: bool) -> float:
        """Seconds per output token (0 when unpaced)."""
        rate = self.code_tokens_per_s if has_code and self.code_tokens_per_s else self.tokens_per_s
        return 1.0 / rate if rate > 0 else 0.0
