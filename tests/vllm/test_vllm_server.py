"""The fixture itself: vLLM's real server answers on 127.0.0.1 and stops by its PID."""

from __future__ import annotations

import httpx
from vllm_process import MAX_MODEL_LEN, MODEL_NAME, VllmServer


def test_health_is_200_with_empty_body(vllm_base_url: str) -> None:
    response = httpx.get(f"{vllm_base_url}/health", timeout=10)
    assert response.status_code == 200
    assert response.content == b""


def test_models_card_names_served_model_and_window(vllm_base_url: str) -> None:
    body = httpx.get(f"{vllm_base_url}/v1/models", timeout=10).json()
    assert body["object"] == "list"
    [card] = body["data"]
    assert card["id"] == MODEL_NAME
    assert card["object"] == "model"
    assert card["owned_by"] == "vllm"
    assert card["max_model_len"] == MAX_MODEL_LEN


def test_server_listens_only_on_loopback(vllm_server: VllmServer, vllm_base_url: str) -> None:
    assert vllm_base_url.startswith("http://127.0.0.1:")
    assert vllm_server.running()
