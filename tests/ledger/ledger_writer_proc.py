"""A real router-like process for the durability tests: submits records to a LedgerWriter.

usage: python ledger_writer_proc.py DIR TAG RECORDS BURST PAUSE_S INTERVAL_S

Submits RECORDS records (request_id = TAG:seq, started_at = now) in bursts of BURST with
PAUSE_S between bursts, prints `ready` once the first segment is on disk (or right away
when RECORDS == 0 bursts are done), then `done N` and waits. SIGTERM calls close() and
exits 0, like the router's shutdown.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from router.ledger import LedgerWriter
from router.record import Attempt, Record, Usage


def main() -> None:
    directory, tag = Path(sys.argv[1]), sys.argv[2]
    total, burst = int(sys.argv[3]), int(sys.argv[4])
    pause, interval = float(sys.argv[5]), float(sys.argv[6])
    writer = LedgerWriter(directory, flush_interval_s=interval, process_tag=tag)
    writer.start()
    stop = threading.Event()

    def on_term(signum: int, frame: object) -> None:
        writer.close()
        print(f"closed {writer.written_total}", flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, on_term)
    announced = False
    for seq in range(total):
        now = time.time()
        writer.submit(
            Record(
                request_id=f"{tag}:{seq}",
                started_at=now,
                ended_at=now + 0.5,
                route="coding",
                intent="coding",
                backend="local",
                tier="local",
                attempts=[Attempt("local", "local", duration_s=0.5)],
                usage=Usage(100, 20),
                duration_s=0.5,
            )
        )
        if (seq + 1) % burst == 0:
            if not announced and writer.written_total > 0:
                print("ready", flush=True)
                announced = True
            time.sleep(pause)
    if not announced:
        print("ready", flush=True)
    print(f"done {total}", flush=True)
    stop.wait(120)


if __name__ == "__main__":
    main()
