"""The ledger directory removed while a real `smf-router serve` runs (an `rm -rf` of it):
the next write made it again without a word, and the conversation key was gone with it,
so the next start made a new one and a conversation no longer grouped across the restart
(found in a durability review). A flush says so, once per removal, and writes the key in
use back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from router.ledger import Ledger
from router.ledger.conversation_key import KEY_FILE
from tests.harness import Running, config_for, router, sdk, simulator
from tests.processes import router_process
from tests.slots import must_reach, status_extra

USER = "alice@example.com"
REMOVED = "was removed while the router ran"


def ask(proxy: Running) -> None:
    sdk(proxy, timeout=30).chat.completions.create(
        model="local", user=USER, messages=[{"role": "user", "content": "hi"}], max_tokens=5
    )


def written(proxy: Running, count: int) -> None:
    what = f"{count} record(s) written"
    must_reach(lambda: status_extra(proxy)["ledger"]["written_records"] == count, what, 30)


def remade(ledger: Path) -> None:
    must_reach(lambda: (ledger / "records").is_dir(), "records/ made again", 30)


def test_a_removed_ledger_directory_is_said_once_and_made_again_with_its_key(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "ledger"
    with simulator(profile="vllm", model="local-model") as local:
        config: dict[str, Any] = config_for({"local": local}, tmp_path).model_dump(mode="json")
        config["ledger"] = {"path": str(ledger), "flush_interval_s": 0.2, "housekeeping": False}
        with router_process(config, tmp_path) as (proxy, process):
            ask(proxy)
            written(proxy, 1)
            key = (ledger / KEY_FILE).read_bytes()
            shutil.rmtree(ledger)
            remade(ledger)
            ask(proxy)
            written(proxy, 2)  # flushes after the one that said it: said once, not per flush
            shutil.rmtree(ledger)  # a second removal is a second warning
            remade(ledger)
            assert (ledger / KEY_FILE).read_bytes() == key
            ask(proxy)
            written(proxy, 3)
        assert process.wait(timeout=30) == 0
        lines = [
            json.loads(line)
            for line in (tmp_path / f"router-{proxy.root.rsplit(':', 1)[1]}.log").open()
            if line.startswith("{")
        ]
        # a restart reads the key written back: the conversation still groups across it
        with router(config_for({"local": local}, tmp_path, ledger=config["ledger"])) as again:
            ask(again)
    said = [line for line in lines if REMOVED in line["msg"]]
    assert [line["level"] for line in said] == ["warning", "warning"], said
    assert all(f"the ledger directory {ledger} {REMOVED}" in line["msg"] for line in said)
    assert all("made it again, with this run's conversation key" in line["msg"] for line in said)
    assert not [line for line in lines if line["level"] in ("error", "critical")], lines
    with Ledger(ledger) as read:
        rows = read.sql("SELECT request_id, conversation FROM records")
    # the third request's (the second's went with the second removal) and the restart's
    assert len(rows) == 2 and len({conversation for _, conversation in rows}) == 1, rows
