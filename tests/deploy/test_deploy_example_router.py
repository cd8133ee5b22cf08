"""The compose deployment's router, as its container runs `router.example.yaml`.

The example listed `allowed_hosts: [router]` so that compose's Prometheus could scrape
`router:4000`; since the probes answer any Host off loopback that entry was needed no more,
and it switched the DNS-rebinding guard off for the plain name `router` on every keyless
router started from the example (found in review). The scrape works with no name listed;
the APIs answer no such name.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from router.app import create_app
from router.config import load
from tests.deploy.manifests import DEPLOY, docs


def scraped_hosts() -> list[str]:
    """The `host:port` of every router target compose's Prometheus scrapes."""
    (prometheus,) = docs(DEPLOY / "prometheus" / "prometheus.yml")
    (job,) = [job for job in prometheus["scrape_configs"] if job["job_name"] == "smf-router"]
    return [target for config in job["static_configs"] for target in config["targets"]]


async def test_compose_scrapes_the_example_router_by_its_service_name_and_nothing_else(
    tmp_path: Path,
) -> None:
    config = load(DEPLOY / "router.example.yaml", env={"SMF_LEDGER_DIR": str(tmp_path)})
    assert not config.auth.keys  # keyless: every Host but the guard's is checked
    (compose,) = docs(DEPLOY / "compose.yaml")
    own = f"{compose['services']['router']['hostname']}:4000"
    app = create_app(config)
    async with app.router.lifespan_context(app):
        # the container's own address, reached through the Docker bridge (not loopback)
        transport = httpx.ASGITransport(app=app, client=("172.18.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://172.18.0.2:4000") as c:
            targets = scraped_hosts()
            assert targets == ["router:4000"]
            scrapes = [await c.get("/metrics", headers={"host": t}) for t in targets]
            health = await c.get("/healthz", headers={"host": "router:4000"})
            api = await c.get("/v1/models", headers={"host": "router:4000"})
            by_own_name = await c.get("/v1/models", headers={"host": own})
    assert [a.status_code for a in [*scrapes, health]] == [200, 200]
    assert "smf_router_requests_total" in scrapes[0].text
    assert api.status_code == 403, "a plain service name passes the DNS-rebinding guard"
    assert "server.allowed_hosts" in api.json()["error"]["message"]
    assert by_own_name.status_code == 200  # the compose hostname, under .localhost
