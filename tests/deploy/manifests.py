"""The deploy/ folder, the YAML documents of a file in it, and the Kubernetes manifests and
the pod specs their Deployments and CronJobs run: what the deploy tests read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.harness import REPO

DEPLOY = REPO / "deploy"
K8S = DEPLOY / "k8s"


def docs(path: Path) -> list[Any]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def manifests() -> list[dict[str, Any]]:
    return [d for path in sorted(K8S.glob("*.yaml")) for d in docs(path)]


def pod_specs() -> list[dict[str, Any]]:
    out = []
    for doc in manifests():
        if doc["kind"] == "Deployment":
            out.append(doc["spec"]["template"]["spec"])
        elif doc["kind"] == "CronJob":
            out.append(doc["spec"]["jobTemplate"]["spec"]["template"]["spec"])
    return out
