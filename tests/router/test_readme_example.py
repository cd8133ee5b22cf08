"""The README's first example shows what the demo router prints for it.

It said `x-smf-confidence: 0.999` after the classifier was retrained to print 0.998: the
first thing a newcomer compares did not match (found in review). The example's request and
its headers are read from the README itself and sent to a demo router, as `curl` would.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from router import config
from router.default_config import LAGUNA, demo
from tests.agent_docs import agent_pages
from tests.harness import REPO, router, simulator


def readme_example() -> tuple[str, dict[str, object], dict[str, str]]:
    """The first curl example's path, body and the headers its comment shows."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(
        r"curl -s localhost:4000(/v1/\S+) .*?-d '(\{[^']*\})' -i\n# (x-smf-[^\n]*)\n", text, re.S
    )
    assert found, "no curl example with headers in README.md"
    path, body, shown = found.groups()
    headers = dict(re.findall(r"(x-smf-[a-z-]+): (\S+)", shown))
    assert len(headers) >= 4, shown
    return path, json.loads(body), headers


def test_the_readme_example_shows_what_the_demo_prints() -> None:
    path, body, shown = readme_example()
    with (
        simulator(profile="vllm", model=LAGUNA) as local,
        simulator(profile="cloud", model="gpt-4o") as cloud,
        router(demo(local.url, cloud.url)) as proxy,
    ):
        response = httpx.post(f"{proxy.root}{path}", json=body, timeout=30)
    assert response.status_code == 200
    printed = {name: response.headers.get(name) for name in shown}
    assert printed == shown


def test_every_router_config_in_the_docs_loads(tmp_path: Path) -> None:
    """The README's configuration example did not load as written: its key digests were
    placeholders the schema refuses (found in review). Every YAML block of README.md and
    docs/agents/ that configures backends, and the example file, must load; with the
    variables their `${...}` name set (a native Claude backend's key header)."""
    blocks = [
        block
        for doc in [REPO / "README.md", *agent_pages()]
        for block in re.findall(r"```yaml\n(.*?)```", doc.read_text("utf-8"), re.S)
        if block.startswith("backends:")
    ]
    assert len(blocks) >= 2
    for index, block in enumerate(blocks):
        path = tmp_path / f"block{index}.yaml"
        path.write_text(block, encoding="utf-8")
        config.load(path, env={"ANTHROPIC_API_KEY": "sk-ant-doc"})
    config.load(REPO / "deploy" / "router.example.yaml", env={})
