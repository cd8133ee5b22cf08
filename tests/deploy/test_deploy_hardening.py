"""What the deploy files must hold beyond parsing: room for a rollout, the Deployment's
hardening on every pod, bounded jobs and logs, and a build context without the checkout's
junk. Each test is a problem a review of deploy/ found."""

from __future__ import annotations

import re
import subprocess
from typing import Any

import yaml

from router.config import load, parse
from router.config_sections import ShadowSettings
from tests.deploy.manifests import DEPLOY, docs, manifests, pod_specs
from tests.harness import REPO

NODE_CPU = 1.8  # a 2-vCPU node's allocatable CPU is about 1.9 cores


def quantity(value: str | int | float) -> float:
    """A Kubernetes quantity in base units (cores, bytes): `100m`, `0.5`, `256Mi`, `1G`."""
    text = str(value)
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "k": 1e3, "M": 1e6, "G": 1e9}
    for suffix, factor in sorted(units.items(), key=lambda u: -len(u[0])):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * factor
    return float(text)


def deployment() -> dict[str, Any]:
    (found,) = [d for d in manifests() if d["kind"] == "Deployment"]
    return found


def cronjobs() -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in manifests() if d["kind"] == "CronJob"}


def test_a_rollout_fits_a_two_core_node() -> None:
    """3 replicas x 500m with maxSurge 1 asked for 2 cores during a rollout: on a 2-vCPU
    node the surge pod stayed Pending and the rollout never finished. The router uses
    0.2-0.7 ms of CPU a request."""
    spec = deployment()["spec"]
    surge = spec["strategy"]["rollingUpdate"]["maxSurge"]
    assert isinstance(surge, int), "a percentage surge: count the pods by hand"
    (container,) = spec["template"]["spec"]["containers"]
    resources = container["resources"]
    cpu = quantity(resources["requests"]["cpu"])
    assert (spec["replicas"] + surge) * cpu <= NODE_CPU
    # the limit leaves room above the request for the shadow's held jobs (a few times
    # shadow.queue_bytes once parsed: README) besides ledger merges
    headroom = quantity(resources["limits"]["memory"]) - quantity(resources["requests"]["memory"])
    assert headroom >= 4 * ShadowSettings().queue_bytes


def test_every_pod_has_the_deployments_hardening() -> None:
    """The CronJobs' pods ran without seccomp, with privilege escalation, a writable root and
    every capability: a namespace enforcing Pod Security "restricted" rejected them, and the
    canary (which runs model-written code) silently never ran."""
    pod = deployment()["spec"]["template"]["spec"]
    (router,) = pod["containers"]
    assert router["securityContext"]["readOnlyRootFilesystem"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    jobs = cronjobs()
    assert {"smf-router-canary", "smf-router-ledger-compact"} <= set(jobs)
    for spec in pod_specs():  # the Deployment's and every CronJob's
        assert spec["automountServiceAccountToken"] is False  # none calls the Kubernetes API
        assert pod["securityContext"].items() <= spec["securityContext"].items()
        for container in spec["containers"]:
            assert container["securityContext"] == router["securityContext"], container["name"]
            resources = container["resources"]
            assert {"cpu", "memory"} <= resources["requests"].keys(), container["name"]
            assert "memory" in resources["limits"], container["name"]


def test_read_only_pods_can_write_where_their_commands_write() -> None:
    """With a read-only root, a path a command writes must be a volume: /tmp, where the
    sandbox makes each program's directory (tempfile), and the image's working directory,
    where DuckDB spills (`.tmp`)."""
    text = (DEPLOY / "Dockerfile").read_text()
    workdir = re.findall(r"^WORKDIR (\S+)", text, re.M)[-1]
    for spec in pod_specs():
        for container in spec["containers"]:
            if not container["securityContext"].get("readOnlyRootFilesystem"):
                continue
            writable = {m["mountPath"] for m in container["volumeMounts"] if not m.get("readOnly")}
            assert {"/tmp", workdir} <= writable, container["name"]


def schedule_interval_s(schedule: str) -> int:
    """The time between two runs of the schedules used here: `*/N * * * *`, `M H * * *`."""
    minute, hour, *rest = schedule.split()
    assert rest == ["*", "*", "*"], schedule
    if hour == "*" and (every := re.fullmatch(r"\*/(\d+)", minute)):
        return int(every[1]) * 60
    assert minute.isdigit() and hour.isdigit(), schedule
    return 24 * 3600


def test_every_cronjob_run_ends_before_the_next_is_due() -> None:
    """With concurrencyPolicy Forbid, a compaction hung on a stalled NFS mount (it had no
    activeDeadlineSeconds) held back every later night's run."""
    for name, job in cronjobs().items():
        deadline = job["spec"]["jobTemplate"]["spec"].get("activeDeadlineSeconds")
        assert deadline is not None, name
        assert 0 < deadline < schedule_interval_s(job["spec"]["schedule"]), name


def test_every_compose_service_rotates_its_logs() -> None:
    """Docker's default json-file driver never rotates: the router's JSON line per request
    grew its log by ~10 GB a year at 50k requests a day."""
    (compose,) = docs(DEPLOY / "compose.yaml")
    for name, service in compose["services"].items():
        logging = service.get("logging")
        assert logging, f"{name}: no logging"
        rotates = logging["driver"] == "local" or (
            logging["driver"] == "json-file" and "max-size" in logging.get("options", {})
        )
        assert rotates, f"{name}: {logging}"


def test_compose_keeps_every_stateful_service_on_a_named_volume() -> None:
    """Grafana's /var/lib/grafana (users, the admin password, dashboards saved in the UI)
    had no volume: a recreated container (an `up` after a new image) lost it."""
    (compose,) = docs(DEPLOY / "compose.yaml")
    state = {
        "router": "/var/lib/smf-router",
        "prometheus": "/prometheus",
        "grafana": "/var/lib/grafana",
    }
    for name, path in state.items():
        mounts = dict(reversed(v.split(":")[:2]) for v in compose["services"][name]["volumes"])
        assert mounts.get(path) in compose["volumes"], f"{name}: {path} on no named volume"


def excluded(path: str, patterns: list[str]) -> bool:
    """Whether .dockerignore's `patterns` leave `path` (relative, with `/`) out of the build
    context: the last pattern matching it or a directory above it decides, `!` re-includes
    (Docker's rules, for the patterns used here: `*`, `?`, `[...]`, `**`)."""
    parts = path.split("/")
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    out = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        body = pattern.lstrip("!").strip("/")
        regex = re.escape(body).replace(r"\*\*/", "(.*/)?").replace(r"\*\*", ".*")
        regex = regex.replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
        regex = re.sub(r"\\\[(.*?)\\\]", r"[\1]", regex)
        if any(re.fullmatch(regex, c) for c in candidates):
            out = not negate
    return out


def test_dockerignore_keeps_the_checkout_out_and_the_copied_sources_in() -> None:
    """There was none: `docker build` sent .venv, var/ (ledgers), test artifacts and .git
    to the builder."""
    lines = (REPO / ".dockerignore").read_text().splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    for junk in (".venv/bin/python", "var/ledger/x.parquet", "test-artifacts/a", ".git/HEAD"):
        assert excluded(junk, patterns), junk
    assert excluded("router/ledger/__pycache__/writer.cpython-311.pyc", patterns)
    text = (DEPLOY / "Dockerfile").read_text()
    sources = [
        source
        for found in re.findall(r"^COPY (?!--from)(.*) \S+$", text, re.M)
        for source in found.split()
    ]
    tracked = subprocess.run(
        ["git", "ls-files", "--", *sources], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    assert len(tracked) > len(sources)  # the directories' files, not only their names
    assert [p for p in tracked if excluded(p, patterns)] == []


def test_the_example_configs_litellm_cloud_backend_loads() -> None:
    """With the example file, SMF_CLOUD_MODEL=anthropic/... went as is to api.openai.com
    (a `kind: openai` backend), unlike the router without a file; the comment now shows
    the `kind: litellm` backend another provider needs, which must load as written."""
    text = (DEPLOY / "router.example.yaml").read_text()
    block = re.search(r"^  #   - name: cloud\n(?:  #     .*\n)+", text, re.M)
    assert block, "the kind: litellm example"
    config = load(DEPLOY / "router.example.yaml", env={}).model_dump(mode="json")
    (litellm,) = yaml.safe_load(re.sub(r"^  #", "", block[0], flags=re.M))
    config["backends"] = [b for b in config["backends"] if b["name"] != "cloud"] + [litellm]
    cloud = parse(config, source="example").backend("cloud")
    assert cloud.kind == "litellm" and cloud.model.startswith("anthropic/")


def test_the_systemd_steps_work_on_ubuntu_24_04() -> None:
    """The steps ran `python3.11`, which Ubuntu 24.04 (DGX OS) does not package; and the
    unit's ordering after time-sync.target waits for nothing unless a wait service is
    enabled, which the steps did not do."""
    readme = (DEPLOY / "README.md").read_text()
    (steps,) = re.findall(r"## Desk box \(systemd\)\n\n```sh\n(.*?)```", readme, re.S)
    assert "python3.11" not in steps
    unit = (DEPLOY / "systemd" / "smf-router.service").read_text()
    after = re.search(r"^After=(.*)$", unit, re.M)
    assert after is not None and "time-sync.target" in after[1]
    assert "systemctl enable systemd-time-wait-sync.service" in steps


def test_the_readme_says_how_to_upgrade_and_runs_python3() -> None:
    """The systemd install is a copy (`pip install .`): there were no upgrade steps, and a
    `git pull` alone changed nothing that ran. Debian and Ubuntu need python3-venv before
    `python3 -m venv`; they have no `python` command; `sudo $EDITOR` edits as root with
    root's editor settings."""
    readme = (DEPLOY / "README.md").read_text()
    (steps,) = re.findall(r"## Desk box \(systemd\)\n\n```sh\n(.*?)```", readme, re.S)
    assert steps.index("apt install python3-venv") < steps.index("python3 -m venv")
    assert "sudoedit /etc/smf-router/router.yaml" in steps and "$EDITOR" not in readme
    (upgrade,) = re.findall(r"\n## Upgrading\n(.*?)\n## ", readme, re.S)
    pulled = upgrade.index("git pull")
    assert pulled < upgrade.index(".venv/bin/pip install -c constraints.txt .")
    assert upgrade.index("pip install") < upgrade.index("sudo systemctl restart smf-router")
    assert "docker compose -f deploy/compose.yaml up -d" in upgrade
    for path in (DEPLOY / "README.md", DEPLOY / "router.example.yaml", REPO / "README.md"):
        assert not re.search(r"(?<![\w/.])python -c", path.read_text()), path
