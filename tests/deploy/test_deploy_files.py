"""Every file in deploy/ parses and says what its tool requires; real checkers where present."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from router.api import browsers
from router.canary_schedule import STOP_WAIT_S
from router.config import load, parse
from tests.deploy.manifests import DEPLOY, K8S, docs, manifests, pod_specs
from tests.harness import REPO, VENV_BIN

YAMLS = sorted([*DEPLOY.rglob("*.yaml"), *DEPLOY.rglob("*.yml")])


@pytest.mark.parametrize("path", YAMLS, ids=lambda p: str(p.relative_to(DEPLOY)))
def test_every_yaml_file_parses(path: Path) -> None:
    assert docs(path), f"{path} is empty"


def test_example_config_loads_through_the_config_model() -> None:
    config = load(DEPLOY / "router.example.yaml", env={})
    assert {b.name for b in config.backends} == {"local", "cloud"}
    assert config.resilience.enabled and config.backend("local").max_concurrency == 32
    assert config.ledger.path == "/var/lib/smf-router/ledger"


def test_example_config_mentions_every_section_of_the_model() -> None:
    text = (DEPLOY / "router.example.yaml").read_text()
    config = load(DEPLOY / "router.example.yaml", env={})
    for section in ("server", "ledger", "resilience", "auth", "classifier", "canary", "shadow"):
        assert re.search(rf"^{section}:", text, re.M), section
    for name in config.resilience.model_fields:
        assert re.search(rf"^\s+{name}:", text, re.M), f"resilience.{name} is undocumented"


def test_kubernetes_configmap_holds_a_valid_config() -> None:
    (configmap,) = docs(K8S / "configmap.yaml")
    config = parse(yaml.safe_load(configmap["data"]["router.yaml"]), source="configmap")
    # the compaction CronJob compacts and applies retention once per cluster, not each replica
    assert not config.ledger.housekeeping


REQUIRED_SPEC: dict[str, tuple[str, ...]] = {
    "Deployment": ("selector", "template"),
    "Service": ("ports", "selector"),
    "PodDisruptionBudget": ("selector",),
    "HorizontalPodAutoscaler": ("scaleTargetRef", "maxReplicas"),
    "CronJob": ("schedule", "jobTemplate"),
    "PersistentVolumeClaim": ("accessModes", "resources"),
}


def test_manifests_have_the_fields_kubernetes_requires() -> None:
    kinds = set()
    for doc in manifests():
        assert doc.get("apiVersion") and doc.get("kind"), doc
        assert re.fullmatch(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?", doc["metadata"]["name"])
        kinds.add(doc["kind"])
        for key in REQUIRED_SPEC.get(doc["kind"], ()):
            assert key in doc["spec"], f"{doc['kind']} {doc['metadata']['name']}: spec.{key}"
    assert kinds >= set(REQUIRED_SPEC) | {"ConfigMap"}


def test_pods_are_complete_and_mount_what_they_declare() -> None:
    for spec in pod_specs():
        volumes = {v["name"] for v in spec.get("volumes", [])}
        for container in spec["containers"]:
            assert container["name"] and container["image"]
            for mount in container.get("volumeMounts", []):
                assert mount["name"] in volumes
    claims = {
        v["persistentVolumeClaim"]["claimName"]
        for spec in pod_specs()
        for v in spec["volumes"]
        if "persistentVolumeClaim" in v
    }
    pvcs = {d["metadata"]["name"]: d for d in manifests() if d["kind"] == "PersistentVolumeClaim"}
    assert claims == set(pvcs)
    assert all(p["spec"]["accessModes"] == ["ReadWriteMany"] for p in pvcs.values())


def test_deployment_replicas_probes_and_grace_outlast_the_drain() -> None:
    (deployment,) = [d for d in manifests() if d["kind"] == "Deployment"]
    (configmap,) = docs(K8S / "configmap.yaml")
    drain = parse(yaml.safe_load(configmap["data"]["router.yaml"])).server.drain_s
    assert deployment["spec"]["replicas"] >= 2
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    pod = deployment["spec"]["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] > drain
    (container,) = pod["containers"]
    assert {"readinessProbe", "livenessProbe"} <= container.keys()
    for service in (d for d in manifests() if d["kind"] in ("Service", "PodDisruptionBudget")):
        selector = service["spec"]["selector"]
        selector = selector.get("matchLabels", selector)
        assert selector.items() <= labels.items()


def test_systemd_unit_is_hardened_and_outlasts_the_drain() -> None:
    text = (DEPLOY / "systemd" / "smf-router.service").read_text()
    keys = dict(re.findall(r"^(\w+)=(.*)$", text, re.M))
    drain = load(DEPLOY / "router.example.yaml", env={}).server.drain_s
    # with canary.enabled, the run under way writes its rows beside the drain (README)
    assert int(keys["TimeoutStopSec"]) > max(drain, STOP_WAIT_S)
    assert keys["User"] == "smf-router" and keys["StateDirectory"] == "smf-router"
    assert keys["NoNewPrivileges"] == "yes" and keys["ProtectSystem"] == "strict"
    assert keys["ExecReload"].endswith("-HUP $MAINPID")
    # numpy's OpenBLAS calls mbind at import and the eval sandbox calls setrlimit (both in
    # @resources): denied, the unit killed the router at start (found in review, by running
    # it under a seccomp filter that kills on mbind). A denied call must fail with EPERM.
    denied = [v for k, v in re.findall(r"^(\w+)=~(.*)$", text, re.M) if k == "SystemCallFilter"]
    assert not any("@resources" in d for d in denied)
    assert keys["SystemCallErrorNumber"] == "EPERM"
    assert "time-sync.target" in keys["After"]  # day partitions and retention use the clock
    # READY=1 once it listens: a reload asked for while it starts waits (a SIGHUP before the
    # router could take it ended it, and on-failure took that for a clean exit)
    assert (keys["Type"], keys["NotifyAccess"]) == ("notify", "main")
    # a bad config exits 2 in a second: restarting every 2 s never reached systemd's limit
    assert keys["RestartPreventExitStatus"] == "2"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze absent")
def test_systemd_analyze_verify(tmp_path: Path) -> None:
    text = (DEPLOY / "systemd" / "smf-router.service").read_text()
    # verify checks that ExecStart exists: point it at this checkout's console script.
    unit = tmp_path / "smf-router.service"
    unit.write_text(text.replace("/opt/smf-router/.venv/bin", str(VENV_BIN)))
    result = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    problems = [line for line in result.stderr.splitlines() if str(unit) in line]
    assert result.returncode == 0 and not problems, result.stderr


def test_dockerfile_is_slim_non_root_exec_form_with_healthcheck() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim\s*$", text, re.M)
    user = re.findall(r"^USER (\S+)", text, re.M)
    assert user and not user[-1].startswith(("root", "0"))
    (entry,) = re.findall(r"^ENTRYPOINT (.*)$", text, re.M)
    assert json.loads(entry)[:2] == ["smf-router", "serve"]  # exec form: signals reach it
    assert re.search(r"^HEALTHCHECK .*\n\s+CMD \[", text, re.M)
    assert "LITELLM_LOCAL_MODEL_COST_MAP=True" in text
    copied = [
        source
        for sources in re.findall(r"^COPY (?!--from)(.*) \S+$", text, re.M)
        for source in sources.split()
    ]
    for source in copied:
        assert (REPO / source).exists(), source
    # the wheel's license-files: setuptools will refuse a build without them (2027-02-18)
    assert set(
        tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["license-files"]
    ) <= set(copied)


def test_compose_services_and_mounts_exist() -> None:
    (compose,) = docs(DEPLOY / "compose.yaml")
    services = compose["services"]
    assert {"router", "prometheus", "grafana", "otel-collector"} <= set(services)
    for name, service in services.items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{name}: {source}"
    assert "./prometheus:/etc/prometheus:ro" in services["prometheus"]["volumes"]
    grace = re.fullmatch(r"(\d+)s", services["router"]["stop_grace_period"])
    drain = load(DEPLOY / "router.example.yaml", env={}).server.drain_s
    assert grace is not None and int(grace[1]) > max(drain, STOP_WAIT_S)  # as the unit's
    prometheus = docs(DEPLOY / "prometheus" / "prometheus.yml")[0]
    targets = [
        t
        for job in prometheus["scrape_configs"]
        for c in job["static_configs"]
        for t in c["targets"]
    ]
    assert "router:4000" in targets  # the compose service name and port


def test_compose_forwards_every_variable_the_example_config_reads() -> None:
    """router.example.yaml reads ${SMF_CLOUD_URL:-...} and ${SMF_CLOUD_MODEL:-gpt-4o}, and
    its comments name ANTHROPIC_API_KEY, but compose passed none of them: set in the shell
    or `.env`, they never reached the router, which went on with the defaults (found in
    review). Each must be forwarded, or set by the image."""
    text = (DEPLOY / "router.example.yaml").read_text()
    read = set(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)", text))
    read |= set(re.findall(r"api_key_env: *([A-Za-z_][A-Za-z0-9_]*)", text))  # comments too
    assert {"SMF_LOCAL_URL", "SMF_CLOUD_URL", "SMF_CLOUD_MODEL", "OPENAI_API_KEY"} <= read
    assert "ANTHROPIC_API_KEY" in read
    (compose,) = docs(DEPLOY / "compose.yaml")
    environment = compose["services"]["router"]["environment"]
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    image = set(re.findall(r"(?:^ENV |\\\n) *([A-Z_][A-Z0-9_]*)=", dockerfile, re.M))
    assert "SMF_LEDGER_DIR" in image  # the one the image sets
    for name in sorted(read - image):
        assert name in environment, f"compose does not forward {name}"
        # `${VAR:-...}`: unset, compose says nothing and the config takes its default
        assert re.fullmatch(rf"\$\{{{name}:-[^}}]*\}}", environment[name]), environment[name]


def published_host_ips(service: dict[str, Any]) -> list[str]:
    """The host address of each published port, in short ("127.0.0.1:4000:4000") or long
    syntax; "" for a port published on every interface ("4000:4000", "4000")."""
    out = []
    for port in service.get("ports", []):
        if isinstance(port, dict):
            out.append(port.get("host_ip", ""))
        else:
            parts = str(port).rsplit(":", 2)  # [ip:]host:container; an IPv6 ip keeps its ':'
            out.append(parts[0].strip("[]") if len(parts) == 3 else "")
    return out


def test_compose_router_keeps_its_host_name_across_recreated_containers() -> None:
    """The canary's run starts name their writer by host name (`router_name`), and a router
    honours its own starts alone. Left to Docker, the host name is the container's id, and a
    recreated container (a new build, an edited file) was another router to its starts.

    The keyless router answers a Host that is its machine's name (`browsers.LOCAL_NAMES`):
    `smf-router` was a fixed single-label name a DNS-rebinding page could take for its own
    (found in review). A `*.localhost` name never leaves the machine, so it passes the Host
    check as it is, and a page cannot be served under it."""
    (compose,) = docs(DEPLOY / "compose.yaml")
    hostname = compose["services"]["router"].get("hostname")
    assert isinstance(hostname, str) and hostname, "the router service sets no hostname"
    label, dot, rest = hostname.lower().partition(".")
    assert label and dot and rest == "localhost", f"{hostname}: not a <name>.localhost name"
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/chat/completions",
        "server": ("172.18.0.2", 4000),
        "headers": [(b"host", f"{hostname}:4000".encode())],
    }
    example = load(DEPLOY / "router.example.yaml", env={}).server.allowed_hosts
    assert browsers.refusal(scope, allowed_hosts=example, keyless=True) is None


def test_compose_publishes_ports_on_loopback_only() -> None:
    """The example config has no router keys: published on every interface, anyone on the
    LAN could spend the cloud key through the router (found in review). Prometheus and the
    collector have no authentication either."""
    (compose,) = docs(DEPLOY / "compose.yaml")
    published = {name: published_host_ips(service) for name, service in compose["services"].items()}
    assert published["router"] == ["127.0.0.1"]
    assert {ip for ips in published.values() for ip in ips} == {"127.0.0.1"}


def test_otel_collector_pipelines_name_defined_components() -> None:
    (config,) = docs(DEPLOY / "otel" / "collector.yaml")
    for pipeline in config["service"]["pipelines"].values():
        for kind in ("receivers", "processors", "exporters"):
            for name in pipeline.get(kind, []):
                assert name in config[kind], f"{kind}: {name}"


def test_kubernetes_pods_are_scraped_under_the_job_the_alerts_select() -> None:
    """The pods were found through prometheus.io annotations, which put them in the
    cluster's generic job (usually `kubernetes-pods`), while SmfRouterDown selects
    job="smf-router": on Kubernetes it never fired (found in review)."""
    alerts = (DEPLOY / "prometheus" / "alerts.yml").read_text()
    jobs = set(re.findall(r'job="([^"]+)"', alerts))
    assert jobs == {"smf-router"}
    (deployment,) = [d for d in manifests() if d["kind"] == "Deployment"]
    pod = deployment["spec"]["template"]
    labels = pod["metadata"]["labels"]
    ports = {p["name"] for c in pod["spec"]["containers"] for p in c.get("ports", [])}
    assert not [a for a in pod["metadata"].get("annotations", {}) if a.startswith("prometheus.io")]

    (config,) = docs(DEPLOY / "prometheus" / "kubernetes.yml")
    (job,) = [j for j in config["scrape_configs"] if j["job_name"] in jobs]
    rules = [r for r in job["relabel_configs"] if r.get("action") == "keep"]
    keep = {r["source_labels"][0]: r["regex"] for r in rules}
    name = keep["__meta_kubernetes_pod_label_app_kubernetes_io_name"]
    assert re.fullmatch(name, labels["app.kubernetes.io/name"])
    assert [p for p in ports if re.fullmatch(keep["__meta_kubernetes_pod_container_port_name"], p)]
    (sd,) = job["kubernetes_sd_configs"]
    namespace = deployment["metadata"]["namespace"]
    assert sd["role"] == "pod" and sd["namespaces"]["names"] == [namespace]

    (monitor,) = docs(K8S / "operator" / "podmonitor.yaml")
    assert labels[monitor["spec"]["jobLabel"]] in jobs  # the Operator's job label
    assert monitor["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert {e["port"] for e in monitor["spec"]["podMetricsEndpoints"]} <= ports
    assert monitor["metadata"]["namespace"] == namespace


def _promtool_check_config(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["promtool", "check", "config", str(path)], capture_output=True, text=True, timeout=60
    )


def _without_kubernetes_discovery(config: dict[str, Any], home: Path) -> dict[str, Any]:
    """`config` with each job's `kubernetes_sd_configs` swapped for a static target, and its
    rule files named from `home` (where promtool would have looked for them): everything
    else, relabelling and rules included, is as the file has it."""
    swapped = 0
    for job in config["scrape_configs"]:
        if job.pop("kubernetes_sd_configs", None) is not None:
            job["static_configs"] = [{"targets": ["127.0.0.1:8080"]}]
            swapped += 1
    assert swapped, "no job discovers pods: check the real file alone"
    config["rule_files"] = [str(home / name) for name in config.get("rule_files", [])]
    return config


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool absent")
def test_promtool_accepts_the_kubernetes_scrape_config(tmp_path: Path) -> None:
    """Debian's promtool (the one CI installs) is built without Kubernetes discovery and
    refuses the file at `kubernetes_sd_configs`, so the whole check was skipped there: a
    rule file that does not exist passed (found in review). The rest of the file is checked
    by every promtool; the file itself by one that knows Kubernetes."""
    source = DEPLOY / "prometheus" / "kubernetes.yml"
    real = _promtool_check_config(source)
    if "field kubernetes_sd_configs not found" not in real.stdout + real.stderr:
        assert real.returncode == 0, real.stdout + real.stderr
    (config,) = docs(source)
    static = tmp_path / "kubernetes-static.yml"
    static.write_text(yaml.safe_dump(_without_kubernetes_discovery(config, source.parent)))
    result = _promtool_check_config(static)
    assert result.returncode == 0, result.stdout + result.stderr
    for name in config["rule_files"]:  # promtool checked the rules the file names
        assert f"Checking {name}" in result.stdout, result.stdout


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool absent")
def test_promtool_accepts_the_prometheus_config_compose_mounts() -> None:
    result = subprocess.run(
        ["promtool", "check", "config", str(DEPLOY / "prometheus" / "prometheus.yml")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_canary_job_is_not_retried_when_nothing_was_measured() -> None:
    """`canary run` exits NOTHING_GRADED when every backend was unreachable; with
    `backoffLimit: 1` Kubernetes ran a second all-errors round at once, moving the case
    rotation on again."""
    from router.canary_cli import NOTHING_GRADED

    job = next(
        doc
        for doc in yaml.safe_load_all((DEPLOY / "k8s" / "canary-cronjob.yaml").read_text())
        if doc and doc["metadata"]["name"] == "smf-router-canary"
    )["spec"]["jobTemplate"]["spec"]
    assert job["template"]["spec"]["restartPolicy"] == "Never"  # podFailurePolicy needs it
    (rule,) = job["podFailurePolicy"]["rules"]
    assert rule["action"] == "FailJob"
    assert rule["onExitCodes"]["values"] == [NOTHING_GRADED]
    names = [c["name"] for c in job["template"]["spec"]["containers"]]
    assert rule["onExitCodes"]["containerName"] in names


def test_the_compaction_job_retries_a_failure_once() -> None:
    """`ledger compact` exits 1 when it could not delete or compact a day; with the default
    backoffLimit (6) each failing night ran the whole compaction seven times (found in
    re-review)."""
    job = next(
        doc
        for doc in yaml.safe_load_all((DEPLOY / "k8s" / "canary-cronjob.yaml").read_text())
        if doc and doc["metadata"]["name"] == "smf-router-ledger-compact"
    )["spec"]["jobTemplate"]["spec"]
    assert job["backoffLimit"] == 1
