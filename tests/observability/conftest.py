"""Shared pieces for observability tests: a port nothing listens on, for a backend that is
down."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest


@pytest.fixture
def dead_port() -> Iterator[int]:
    """A port bound and never listening: connections to it are refused for the whole test."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])
