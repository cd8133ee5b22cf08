"""The malformed and loosely typed chat, completions and Messages requests `capture.py`
sends vLLM: messages of the wrong shape (what its message union and its `tool_calls`
before-validator say), `n` and `max_tokens` as pydantic's lax integer reads them, `n` out of
bounds, and an empty Messages `stop_sequences` string. The simulator's vllm profile is held
to the replies (tests/shape_cases.py)."""

from __future__ import annotations

from typing import Any

CHAT, MESSAGES = "/v1/chat/completions", "/v1/messages"
PARIS = {"role": "user", "content": "What is the weather like in Paris today?"}
HI = {"role": "user", "content": "What's the weather in Paris?"}
CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def shape_cases(model: str) -> dict[str, tuple[str, str, dict[str, Any] | None]]:
    """name -> (method, path, body), as `capture.cases`."""

    def turn(**said: Any) -> dict[str, Any]:  # the assistant's turn between two asks
        assistant = {"role": "assistant", "content": None, **said}
        return {"model": model, "max_tokens": 5, "messages": [HI, assistant, HI]}

    def ask(**kw: Any) -> dict[str, Any]:
        return {"model": model, "messages": [PARIS], **kw}

    def sampled(**kw: Any) -> dict[str, Any]:
        return {"model": model, "max_tokens": 1, "temperature": 1, "messages": [HI], **kw}

    def after(message: dict[str, Any]) -> dict[str, Any]:  # a second message after PARIS
        return {"model": model, "messages": [PARIS, message], "max_tokens": 1}

    stop = {"model": model, "max_tokens": 5, "messages": [HI], "stop_sequences": [""]}
    return {
        "error_message_tool_calls_int": ("POST", CHAT, turn(tool_calls=5)),
        "error_message_tool_calls_int_stream": (
            "POST", CHAT, turn(tool_calls=5) | {"stream": True},
        ),
        "error_message_tool_calls_object": ("POST", CHAT, turn(tool_calls=CALL)),
        "error_message_tool_call_string": ("POST", CHAT, turn(tool_calls=[CALL, "f()"])),
        "error_message_tool_calls_int_before_bad_message": (
            "POST", CHAT,
            {"model": model, "max_tokens": 1,
             "messages": [5, {"role": "assistant", "content": "x", "tool_calls": 5}]},
        ),
        "chat_tool_calls_empty_string": (
            "POST", CHAT, after({"role": "assistant", "content": "x", "tool_calls": ""}),
        ),
        "chat_tool_calls_empty_object": (
            "POST", CHAT, after({"role": "assistant", "content": "x", "tool_calls": {}}),
        ),
        "error_message_not_object": (
            "POST", CHAT, {"model": model, "max_tokens": 5, "messages": [HI, 5]},
        ),
        "error_message_content_int": (
            "POST", CHAT,
            {"model": model, "max_tokens": 5, "messages": [{"role": "user", "content": 5}]},
        ),
        # a content part that is not an object: refused when the chat is rendered, after
        # the model is looked up; a string part beside an object part is served
        "error_message_content_part_int": ("POST", CHAT, after({"role": "user", "content": [5]})),
        "error_message_assistant_content_part_int": (
            "POST", CHAT, after({"role": "assistant", "content": [5]}),
        ),
        "error_unknown_model_before_content_part": (
            "POST", CHAT,
            {"model": "nope", "messages": [{"role": "user", "content": [5]}], "max_tokens": 1},
        ),
        "chat_content_part_string_mixed": (
            "POST", CHAT,
            {"model": model, "max_tokens": 5,
             "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}, "hi"]}]},
        ),
        # pydantic's lax integers, and `n` out of vLLM's bounds
        "chat_n_string": ("POST", CHAT, sampled(n="2")),
        "chat_n_float": ("POST", CHAT, ask(max_tokens=1, n=2.0, temperature=1.0)),
        "chat_n_true": ("POST", CHAT, ask(max_tokens=1, n=True, temperature=1.0)),
        "completions_n_string": (
            "POST", "/v1/completions",
            {"model": model, "prompt": "Hi", "max_tokens": 1, "n": "2", "temperature": 1.0},
        ),
        "chat_max_tokens_string": ("POST", CHAT, ask(max_tokens="2")),
        "error_n_zero": ("POST", CHAT, sampled(n=0)),
        "error_n_false": ("POST", CHAT, ask(max_tokens=1, n=False, temperature=1.0)),
        "error_n_fractional": ("POST", CHAT, sampled(n=2.5)),
        "error_n_too_many": ("POST", CHAT, sampled(n=16385)),
        "messages_error_stop_sequences_empty": ("POST", MESSAGES, stop),
        "messages_error_stop_sequences_empty_stream": ("POST", MESSAGES, stop | {"stream": True}),
    }  # fmt: skip
