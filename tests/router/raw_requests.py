"""A raw socket to a running router, a reply read back from it (one whole, or all until it
closes), and the count of requests the router rejected: for the tests of the request head,
which no HTTP client would send as they do."""

from __future__ import annotations

import socket

from tests.harness import RunningRouter, Scrape


def connect(proxy: RunningRouter) -> socket.socket:
    host, port = proxy.root.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=10)


def read_reply(sock: socket.socket) -> tuple[bytes, bytes]:
    """One whole reply (its head and its content-length body) from a kept-alive connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    while len(body) < length:
        body += sock.recv(65536)
    return head, body


def read_until_closed(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def rejected(metrics: Scrape, status: str) -> float:
    return metrics.get("smf_router_rejected_requests_total", api="other", status=status) or 0
