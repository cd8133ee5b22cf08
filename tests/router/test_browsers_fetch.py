"""A page's request that carries no `Origin` is refused by the `Sec-Fetch-Site` its browser
sends.

Browsers send no `Origin` on a plain GET (`<img src="http://127.0.0.1:4000/v1/router/report">`,
a link, a frame), and its `Host` is the IP address the page named, so neither check saw it:
on a keyless router every caller is admin, and any tab the user opened could start report
children until both slots were taken, the user's own reports then refused with a 429
`reports_busy` (found in review). Every such request carries `Sec-Fetch-Site: cross-site`
(or `same-site`, another port of the same host), which no page can forge or leave out; API
clients send none, and a URL the user typed is `none`.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import openai
import pytest

from tests.harness import Running, RunningRouter, collected, config_for, router, scrape, simulator

BODY = b'{"model": "local", "messages": [{"role": "user", "content": "hi"}]}'
LISTED = "https://chat.team.example"
IMAGE = {"sec-fetch-mode": "no-cors", "sec-fetch-dest": "image"}
REPORT = "/v1/router/report?since=1d"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, RunningRouter]]:
    """A keyless router on 127.0.0.1 (the default desk setup) with one web UI listed."""
    with simulator(profile="vllm", model="local-model") as local:
        tmp = tmp_path_factory.mktemp("fetch")
        config = config_for({"local": local}, tmp, server={"allowed_origins": [LISTED]})
        with router(config) as proxy:
            yield local, proxy


def ask(proxy: RunningRouter, method: str, path: str, **headers: str) -> httpx.Response:
    with httpx.Client(trust_env=False, timeout=60) as client:
        body = BODY if method == "POST" else None
        return client.request(method, proxy.root + path, content=body, headers=headers)


def rejected(proxy: RunningRouter, api: str) -> float:
    return scrape(proxy.root).get("smf_router_rejected_requests_total", api=api, status="403") or 0


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_a_page_without_an_origin_starts_no_report_and_spends_nothing(
    served: tuple[Running, RunningRouter], site: str
) -> None:
    """The review's repro: four `<img>` GETs of the report were 200, 200, 429, 429."""
    local, proxy = served
    records = collected(proxy)
    before, other, chat = local.completions(), rejected(proxy, "other"), rejected(proxy, "chat")
    fetched = {"sec-fetch-site": site, **IMAGE}
    reports = [ask(proxy, "GET", REPORT, **fetched) for _ in range(4)]
    assert [a.status_code for a in reports] == [403] * 4
    message = reports[0].json()["error"]["message"]
    assert "Sec-Fetch-Site" in message and "server.allowed_origins" in message
    # a form's POST, a frame's navigation: no Origin either way here
    posted = ask(proxy, "POST", "/v1/chat/completions", **{"content-type": "text/plain"}, **fetched)
    framed = {"sec-fetch-site": site, "sec-fetch-mode": "navigate", "sec-fetch-dest": "iframe"}
    status = ask(proxy, "GET", "/v1/router/status", **framed)
    probe = ask(proxy, "GET", "/metrics", **fetched)  # a page's, as an Origin'd one is refused
    assert [posted.status_code, status.status_code, probe.status_code] == [403, 403, 403]
    assert local.completions() == before
    # counted as the other refusals of a web page are, and never recorded
    assert rejected(proxy, "other") == other + 6
    assert rejected(proxy, "chat") == chat + 1
    assert records.records == []
    # the user's own report, from a script, still has its slot
    assert ask(proxy, "GET", REPORT).status_code == 200


def test_a_typed_url_and_the_routers_own_origin_are_served(
    served: tuple[Running, RunningRouter],
) -> None:
    """`none`: the user typed the URL or opened a bookmark; `same-origin`: the router's own."""
    local, proxy = served
    before = local.completions()
    typed = {"sec-fetch-site": "none", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document"}
    assert ask(proxy, "GET", "/v1/router/status", **typed).status_code == 200
    assert ask(proxy, "GET", "/metrics", **typed).status_code == 200
    own = {"sec-fetch-site": "same-origin", "content-type": "text/plain"}
    assert ask(proxy, "POST", "/v1/chat/completions", **own, origin=proxy.root).status_code == 200
    assert ask(proxy, "GET", "/v1/models", **{"sec-fetch-site": "same-origin"}).status_code == 200
    assert local.completions() == before + 1


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_a_listed_web_ui_is_still_served(served: tuple[Running, RunningRouter], site: str) -> None:
    """A page in `server.allowed_origins` calls with `fetch`, which sends its Origin."""
    local, proxy = served
    before = local.completions()
    page = {"sec-fetch-site": site, "sec-fetch-mode": "cors", "origin": LISTED}
    answer = ask(proxy, "POST", "/v1/chat/completions", **page, **{"content-type": "text/plain"})
    assert answer.status_code == 200, answer.text
    assert ask(proxy, "GET", "/v1/models", **page).status_code == 200
    assert local.completions() == before + 1
    # a listed Origin, not the router's own: the browser's word that the page is another
    # site's outweighs an Origin naming the router
    own = {**page, "origin": proxy.root}
    assert ask(proxy, "GET", "/v1/models", **own).status_code == 403


def test_api_clients_send_no_sec_fetch_site_and_are_served(
    served: tuple[Running, RunningRouter],
) -> None:
    _, proxy = served
    sdk = openai.OpenAI(base_url=proxy.url, api_key="none", max_retries=0)
    reply = sdk.chat.completions.create(model="local", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content
    assert httpx.get(f"{proxy.root}/metrics", trust_env=False).status_code == 200
