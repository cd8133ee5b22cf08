"""The servers' file descriptors 0 to 2, held open so that no socket takes one of them.

`smf-router serve` or `simulate` started with stdout closed (`>&-`) aborted at shutdown
(status 134, "uv__close: Assertion `fd > STDERR_FILENO' failed"): a socket opened since took
the lowest free descriptor, 1, and libuv refuses to close a descriptor below 3 (found in
review). Daemons open /dev/null on the ones missing for the same reason.
"""

from __future__ import annotations

import os

STANDARD = (0, 1, 2)


def occupy() -> None:
    """Open /dev/null on each of 0, 1 and 2 that is closed; leave the open ones alone."""
    for fd in STANDARD:
        try:
            os.fstat(fd)
        except OSError:  # closed: the lowest free descriptor, those below are open by now
            os.open(os.devnull, os.O_RDWR)
