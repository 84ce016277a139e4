"""The objects `kubectl kustomize` built, and the pod-level views manifests_test.py checks.

Contract: Objects holds plain dicts as yaml.safe_load gives them, each remembered with the
kustomization directory it came from. `one(kind, name)` is the object of that kind whose name
is `name` or, for a generated ConfigMap, `name-<hash>` (kustomize's suffix), else None; `all`
lists a kind. pod_specs yields (where, pod spec) for every DaemonSet, Deployment, Job and Pod.
containers_of is init containers then containers; argv_of is command + args; env_of is the
container's literal env values (valueFrom entries left out).
"""
import re

WORKLOADS = {"DaemonSet", "Deployment", "StatefulSet", "Job"}


class Objects:
    def __init__(self):
        self.items = []  # (kustomization directory, object)

    def add(self, directory, docs):
        self.items.extend((directory, d) for d in docs)

    def all(self, kind):
        return [o for _, o in self.items if o.get("kind") == kind]

    def one(self, kind, name):
        if name is None:
            return None
        for o in self.all(kind):
            actual = o["metadata"]["name"]
            if actual == name or (kind == "ConfigMap" and re.fullmatch(
                    re.escape(name) + r"-[a-z0-9]{10}", actual)):
                return o
        return None


def pod_specs(objects):
    for directory, o in objects.items:
        where = f"{directory}: {o.get('kind')} {o.get('metadata', {}).get('name')}"
        if o.get("kind") in WORKLOADS:
            yield where, o["spec"]["template"]["spec"]
        elif o.get("kind") == "Pod":
            yield where, o["spec"]


def containers_of(spec):
    return list(spec.get("initContainers", [])) + list(spec.get("containers", []))


def argv_of(container):
    return [str(w) for w in container.get("command", []) + container.get("args", [])]


def env_of(container):
    return {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}
