"""One canary round in a test: run it, then close the canary's clients, whatever happened."""

from __future__ import annotations

import asyncio

from router.canary import Canary


def one_round(canary: Canary) -> None:
    async def once() -> None:
        try:
            await canary.run_once()
        finally:
            await canary.aclose()

    asyncio.run(once())
