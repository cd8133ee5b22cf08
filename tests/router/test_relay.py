"""The relay's stall timer: one timer per stream, and only waits for the upstream count."""

from __future__ import annotations

import asyncio

import pytest

from router.relay import Stall


async def test_a_wait_longer_than_its_limit_is_a_stall() -> None:
    stall = Stall()
    stall.arm(0.05)
    with pytest.raises(asyncio.CancelledError):
        await asyncio.sleep(1)
    assert stall.expired()
    stall.disarm()
    stall.close()
    await asyncio.sleep(0)  # the task was uncancelled: it runs on


async def test_short_waits_and_time_between_waits_never_stall() -> None:
    stall = Stall()
    for _ in range(8):  # 0.16 s of waiting in all, 0.02 s at a time, limit 0.05 s
        stall.arm(0.05)
        await asyncio.sleep(0.02)
        stall.disarm()
        await asyncio.sleep(0.03)  # a slow client: not the upstream's time
    await asyncio.sleep(0.1)
    stall.close()
    assert not stall.expired()  # never fired (a fired stall would have cancelled this task)


async def test_a_cancellation_from_elsewhere_is_not_a_stall() -> None:
    stall = Stall()

    async def wait() -> bool:
        stall.arm(10)
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return stall.expired()
        finally:
            stall.disarm()
            stall.close()
        return True

    task = asyncio.get_running_loop().create_task(wait())
    await asyncio.sleep(0.01)
    task.cancel()
    assert await task is False
