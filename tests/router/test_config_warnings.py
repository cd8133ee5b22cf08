"""Configs that load but are warned of, by `config check` and at start (`Config.warnings`,
`router.config_warnings`); an unset key variable's warning is in test_backend_keys.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from classifier.intent import INTENTS
from router.cli import app
from router.config import load
from router.default_config import demo
from tests.agent_docs import agent_pages
from tests.harness import REPO
from tests.router.config_files import GOOD, config_check, write

RESPONSES_ONLY = GOOD.replace("model: gpt-4o", "model: gpt-4o\n    apis: [responses]")
LEFTOVER = (
    "shadow:\n  targets: {coding: cloud}\n  judge_backend: cloud\n  allow_cloud_targets: true\n"
)
TEXTS_KEPT = "prompt texts (and records) are kept until `smf-router ledger compact --config` runs"


def _check(path: Path) -> list[str]:
    result = CliRunner().invoke(
        app, ["config", "check", "--config", str(path)], env={"CLOUD_KEY": "sk-x"}
    )
    assert result.exit_code == 0, result.output
    return [line for line in result.stderr.splitlines() if line.startswith("warning:")]


def test_a_shadow_backend_that_does_not_speak_chat_is_a_warning_while_shadowing_is_off(
    tmp_path: Path,
) -> None:
    """A `shadow.targets` entry or judge that does not speak chat was refused with shadowing
    off (no rate above 0), so a harmless leftover stopped `serve` and a reload after an
    upgrade (found in review). It loads, and `config check` names it."""
    said = _check(write(tmp_path, RESPONSES_ONLY + LEFTOVER))
    assert [w.split(":")[1].strip() for w in said] == [
        "shadow.targets.coding",
        "shadow.judge_backend",
    ]
    assert all("harmless while no shadow rate is above 0" in w for w in said)
    assert _check(write(tmp_path, GOOD + LEFTOVER)) == []  # speaking chat: nothing to say


def test_a_cloud_shadow_target_without_allow_cloud_targets_is_warned_of(tmp_path: Path) -> None:
    """`shadow.targets: {coding: cloud}` with `allow_cloud_targets` off loaded without a
    word, and the shadow dropped every coding sample as `not_allowed` (found in review).
    A local target, or the setting on, says nothing."""
    targets = "shadow:\n  rates: {coding: 0.5}\n  targets: {coding: cloud, math: local}\n"
    said = _check(write(tmp_path, GOOD + targets))
    assert len(said) == 1, said
    assert "shadow.targets.coding: backend 'cloud' is on the cloud tier" in said[0]
    assert "every sample for coding is dropped (not_allowed)" in said[0]
    allowed = GOOD + targets + "  allow_cloud_targets: true\n"
    assert _check(write(tmp_path, allowed)) == []
    logged = load(write(tmp_path, GOOD + targets), env={}).warnings()  # as `serve` logs them
    assert [w for w in logged if w.startswith("shadow.")] == [said[0].removeprefix("warning: ")]


@pytest.mark.parametrize(
    ("ledger", "warned"),
    [
        ("  store_text: true\n  housekeeping: false\n", True),
        ("  store_text: true\n", False),  # the hourly housekeeping applies text retention
        ("  housekeeping: false\n", False),  # no texts to keep
    ],
)
def test_texts_kept_without_housekeeping_are_warned_of(
    tmp_path: Path, ledger: str, warned: bool
) -> None:
    """`ledger.housekeeping: false` stops text retention too: with `store_text` on and no
    `smf-router ledger compact --config` job, prompts were kept for ever without a word
    (found in review). `config check` says so, and `serve` and a reload log
    `Config.warnings` as they start."""
    path = write(tmp_path, GOOD + f"ledger:\n  path: {tmp_path / 'ledger'}\n" + ledger)
    said = _check(path)
    assert any(TEXTS_KEPT in w for w in said) is warned, said
    logged = load(path, env={"CLOUD_KEY": "sk-x"}).warnings()
    assert any(TEXTS_KEPT in w for w in logged) is warned


def _shadow_said(
    tmp_path: Path, shadow: str, backends: str = "", other: str = "", base: str = GOOD
) -> list[str]:
    """The shadow warnings the real `smf-router config check` prints for `base` (plus
    `backends`, appended to its list, and `other` sections) with this `shadow:` section."""
    text = base.replace("auth:\n", backends + "auth:\n") + other + "shadow:\n" + shadow
    done = config_check(write(tmp_path, text))
    assert done.returncode == 0, done.stderr
    return [
        line.removeprefix("warning: ")
        for line in done.stderr.splitlines()
        if line.startswith("warning: shadow.")
    ]


LOCAL2 = "  - name: local2\n    tier: local\n    base_url: http://127.0.0.1:8889/v1\n    model: m\n"


def test_a_shadow_rate_its_first_backend_can_never_be_sampled_at_is_warned_of(
    tmp_path: Path,
) -> None:
    """Common setups sampled nothing and `config check`, `serve` and a reload said nothing
    (found in review): `rates: {coding: 1.0}` alone (coding is served locally first, its
    default target is the cloud, and `allow_cloud_targets` is off: every sample
    `not_allowed`), and a `targets` entry naming the route's first backend (`no_target`)."""
    said = _shadow_said(tmp_path, "  rates: {coding: 1.0}\n")
    assert len(said) == 1, said
    assert said[0].startswith(
        "shadow.rates.coding: coding is served by backend 'local' first (routes.coding), and"
        " its shadow target 'cloud' is on the cloud tier"
    )
    assert "dropped (not_allowed); set allow_cloud_targets: true, or a shadow.targets" in said[0]
    logged = load(write(tmp_path, GOOD + "shadow:\n  rates: {coding: 1.0}\n"), env={}).warnings()
    assert [w for w in logged if w.startswith("shadow.")] == said  # as `serve` logs them

    said = _shadow_said(
        tmp_path, "  rates: {tool_calling: 0.5}\n  targets: {tool_calling: local}\n"
    )
    assert len(said) == 1, said
    assert said[0].startswith(
        "shadow.targets.tool_calling: backend 'local' is the first backend of routes.tool_calling"
    )
    assert "dropped (no_target); name another backend there" in said[0]

    # a route rate counts too; the default target is the other tier's, whatever local2 is
    said = _shadow_said(tmp_path, "  route_rates: {instruction: 0.1}\n", LOCAL2)
    assert [w.split(":")[0] for w in said] == ["shadow.route_rates.instruction"], said


def test_a_shadow_rate_with_no_backend_on_the_other_tier_is_warned_of(tmp_path: Path) -> None:
    """Both backends local: math is served by `cloud` (local here) first, and the default
    target is on the other tier, of which there is none: every sample `no_target`."""
    only_local = GOOD.replace("tier: cloud", "tier: local")
    assert _shadow_said(tmp_path, "  rates: {math: 1.0}\n", base=only_local) == [
        "shadow.rates.math: math is served by backend 'cloud' first (routes.math), and there"
        " is no backend on the other tier to replay it on, so every sample for math that"
        " 'cloud' serves is dropped (no_target); add a shadow.targets entry for math naming"
        " another backend"
    ]


def test_a_shadow_judge_that_can_never_be_a_third_backend_is_warned_of(tmp_path: Path) -> None:
    """With two backends, `judge_backend: local` is the live or the shadow backend of every
    sample, and the shadow skips such a judge: no comparison was ever judged, silently
    (found in review)."""
    said = _shadow_said(tmp_path, "  rates: {math: 0.2}\n  judge_backend: local\n")
    assert said == [
        "shadow.judge_backend: backend 'local' is the live or the shadow backend of every"
        " request the shadow can sample (cloud -> local), and the judge must be a third"
        " backend, so no comparison is ever judged; name a backend that is neither, or add one"
    ]


def test_a_shadow_that_can_sample_and_judge_is_not_warned_of(tmp_path: Path) -> None:
    """Math goes to the cloud first and is replayed locally; coding to `local2` by its
    `targets` entry; the judge `local2` is third for math: nothing to say. Nor for coding
    replayed on the cloud once `allow_cloud_targets` is on."""
    shadow = (
        "  rates: {math: 0.2, coding: 0.5}\n  targets: {coding: local2}\n  judge_backend: local2\n"
    )
    assert _shadow_said(tmp_path, shadow, LOCAL2) == []
    assert _shadow_said(tmp_path, "  rates: {coding: 1.0}\n  allow_cloud_targets: true\n") == []


AGENTS = """routes:
  agents: [local, cloud]
  coding: [local, cloud]
  tool_calling: [local, cloud]
  instruction: [local, cloud]
  math: [cloud, local]
  reasoning: [cloud, local]
  prose: [cloud, local]
  writing: [cloud, local]
"""  # the operator's own route beside the intents' (as they are by default)
JUDGE = LOCAL2.replace("local2", "judge").replace("tier: local", "tier: cloud")


def test_a_route_rate_for_a_backend_or_a_custom_route_that_never_samples_is_warned_of(
    tmp_path: Path,
) -> None:
    """`route_rates: {local: 1}` (requests pinned with `model: local`) and `{agents: 1}` (a
    route of the operator's own) are replayed on the cloud, with `allow_cloud_targets` off:
    every sample `not_allowed`, and `config check` said nothing (found in review): only the
    intents' own routes were walked. Allowed, they sample: nothing to say."""
    said = _shadow_said(tmp_path, "  route_rates: {local: 1.0}\n")
    assert said == [
        "shadow.route_rates.local: a request pinned to backend 'local' (model: local) is served"
        " by it alone, and the shadow can replay none of its requests, whatever their intent"
        " (target 'cloud' is on the cloud tier while shadow.allow_cloud_targets is off:"
        " not_allowed), so every sample is dropped; set allow_cloud_targets: true, or"
        " shadow.targets entries naming a local backend other than 'local'"
    ]
    said = _shadow_said(tmp_path, "  route_rates: {agents: 1.0}\n", other=AGENTS)
    assert len(said) == 1, said
    assert said[0].startswith(
        "shadow.route_rates.agents: route agents is served by backend 'local' first"
        " (routes.agents), and the shadow can replay none of its requests"
    )
    allowed = "  route_rates: {local: 1.0, agents: 1.0}\n  allow_cloud_targets: true\n"
    assert _shadow_said(tmp_path, allowed, other=AGENTS) == []
    # a route served in the cloud first is replayed locally: nothing to say either
    assert _shadow_said(tmp_path, "  route_rates: {cloud: 1.0}\n") == []


def test_a_route_rate_is_not_warned_of_when_only_unread_requests_can_be_replayed(
    tmp_path: Path,
) -> None:
    """A request with nothing the model can read (intent `unknown`) takes any route and has
    no `targets` entry, so on `agents` it goes to the default target, the cloud: with every
    intent's target the route's own first backend, those are still replayed, yet `config
    check` said the route could replay none (found in re-review: only the seven intents were
    walked, `target.intents_on` is what a route can carry). Without `allow_cloud_targets`
    none is replayed, and it says so."""
    targets = "{" + ", ".join(f"{intent}: local" for intent in INTENTS) + "}"
    shadow = f"  route_rates: {{agents: 1.0}}\n  targets: {targets}\n"
    allowed = shadow + "  allow_cloud_targets: true\n"
    assert _shadow_said(tmp_path, allowed, other=AGENTS) == []
    said = _shadow_said(tmp_path, shadow, other=AGENTS)
    assert [w.split(":")[0] for w in said] == ["shadow.route_rates.agents"], said


def test_a_cloud_judge_without_allow_cloud_targets_is_warned_of(tmp_path: Path) -> None:
    """A third backend on the cloud tier judges nothing while `allow_cloud_targets` is off
    (the shadow's rule, `shadow_sampling.judge_for`): no comparison was ever judged, and
    `config check` said nothing (found in review)."""
    shadow = "  rates: {math: 1.0}\n  judge_backend: judge\n"
    assert _shadow_said(tmp_path, shadow, JUDGE) == [
        "shadow.judge_backend: backend 'judge' is on the cloud tier and"
        " shadow.allow_cloud_targets is off, so the shadow never shows it a request and no"
        " comparison is ever judged; set allow_cloud_targets: true or name a local backend"
    ]
    assert _shadow_said(tmp_path, shadow + "  allow_cloud_targets: true\n", JUDGE) == []


@pytest.mark.parametrize(
    ("queue_bytes", "warned"),
    [(64, True), (8 * 1024 * 1024, True), (None, False)],  # None: the default, 64 MiB
)
def test_a_shadow_queue_smaller_than_the_largest_body_is_warned_of(
    tmp_path: Path, queue_bytes: int | None, warned: bool
) -> None:
    """`queue_bytes: 64` dropped every job as `queue_full`, and `config check` said nothing
    (found in review). A queue no larger than `server.max_body_bytes` (8 MiB by default) can
    never hold the largest request with its answer; the defaults say nothing."""
    shadow = "  rates: {math: 1.0}\n"
    if queue_bytes is not None:
        shadow += f"  queue_bytes: {queue_bytes}\n"
    said = _shadow_said(tmp_path, shadow)
    assert said == (
        [
            f"shadow.queue_bytes: {queue_bytes} bytes is no more than server.max_body_bytes"
            " (8388608), and a job holds its body and the live answer, so a request of the"
            " largest size the router takes is never shadowed (dropped: queue_full); set"
            " queue_bytes well above max_body_bytes"
        ]
        if warned
        else []
    )


NATIVE_CLAUDE = """
backends:
  - name: local
    tier: local
    base_url: http://127.0.0.1:8888/v1
    model: laguna
  - name: cloud
    tier: cloud
    base_url: https://api.anthropic.com/v1
    model: claude-sonnet-4-5
    apis: APIS
    KEY
"""
BEARER = "backends.cloud.api_key_env: the key goes as Authorization: Bearer"


@pytest.mark.parametrize(
    ("apis", "key", "warned"),
    [
        ("[messages]", "api_key_env: CLOUD_KEY", True),
        ("[messages]", 'headers: {x-api-key: "${CLOUD_KEY}"}', False),  # the docs' way
        ("[chat, messages]", "api_key_env: CLOUD_KEY", False),  # an OpenAI-style server
    ],
)
def test_a_bearer_key_to_a_messages_only_backend_is_warned_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, apis: str, key: str, warned: bool
) -> None:
    """Anthropic's own API as a `kind: openai` backend with `api_key_env` got its key as
    `Authorization: Bearer`, which Anthropic's API has refused for an API key: every request
    a 502, and `config check` said nothing (found in review). It names the field and the
    header to send the key in instead, never the key."""
    monkeypatch.setenv("CLOUD_KEY", "sk-ant-secret")
    text = NATIVE_CLAUDE.replace("APIS", apis).replace("KEY", key)
    checked = config_check(write(tmp_path, text))
    assert checked.returncode == 0, checked.stderr
    said = [line for line in checked.stderr.splitlines() if line.startswith("warning:")]
    assert said == (
        [
            f"warning: {BEARER}, and this backend speaks only messages (apis: [messages]),"
            " as Anthropic's own API does, which takes an API key in x-api-key and has"
            " refused one sent as Bearer (401: Invalid bearer token); for Anthropic's API"
            ' drop api_key_env and send the key as headers: {x-api-key: "${CLOUD_KEY}"}'
        ]
        if warned
        else []
    )
    assert "sk-ant-secret" not in checked.stdout + checked.stderr


def test_the_shipped_configs_are_not_warned_of_a_bearer_key(tmp_path: Path) -> None:
    """The example file, the demo and every config in the docs send no Bearer key to a
    backend that speaks only messages."""
    docs = [
        block
        for doc in [REPO / "README.md", *agent_pages()]
        for block in re.findall(r"```yaml\n(.*?)```", doc.read_text("utf-8"), re.S)
        if block.startswith("backends:")
    ]
    env = {"ANTHROPIC_API_KEY": "sk-ant-doc"}
    configs = [demo("http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1")]
    configs.append(load(REPO / "deploy" / "router.example.yaml", env=env))
    configs += [load(write(tmp_path, block), env=env) for block in docs]
    assert len(configs) >= 5
    for loaded in configs:
        assert not [w for w in loaded.warnings() if "the key goes as Authorization: Bearer" in w]
