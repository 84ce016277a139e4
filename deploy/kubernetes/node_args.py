#!/usr/bin/env python3
"""The neurond options of this node, from its Node object's labels (init container `node-config`).

  node_args.py --config DIR --out FILE [--node NAME | --node-json FILE] [--instances-from CMD]
               [--lnc-out FILE]

Kubernetes gives a pod no way to read its node's labels (the downward API has no node labels),
so this init container asks the API server for its own Node (NAME from the downward API's
spec.nodeName; the pod's projected service-account token and kube-root-ca.crt) and writes the
options for neurond to FILE, one line, e.g. `--instance trn2u.48xlarge --lnc 2 --ultraserver us-1`,
and with --lnc-out the LNC alone (the device plugin's NEURON_LOGICAL_NC_CONFIG).

DIR is the mounted ConfigMap trnsim-node-config (kustomization.yaml):
  instance-type-label    the label naming the instance type (trnsim.aws/instance-type)
  default-instance-type  the type of a node without that label (trn2.48xlarge)
  lnc-label, default-lnc the logical-core size label and its default (trnsim.aws/lnc, 2)
  ultraserver-label      the UltraServer id label (trnsim.aws/ultraserver-id): trn2u.48xlarge only

Every value is checked before neurond sees it, so a mislabelled node fails here, in this
container's log, naming the label: the instance type must be one `trnsim-demo --instances`
lists (CMD, when given), LNC 1 or 2, an UltraServer id only on trn2u.48xlarge (and required
there: four such nodes with one id form one UltraServer), every value [A-Za-z0-9._-]+ so the
line is safe for the shell that splits it. --node-json reads a Node object from a file instead
of the API server (what tests/deploy/manifests_test.py does). Exit status 0, or 1 with one line
on stderr.
"""
import argparse
import json
import os
import re
import ssl
import subprocess
import sys
import urllib.request

SAFE = re.compile(r"^[A-Za-z0-9._-]+$")
ULTRASERVER_TYPE = "trn2u.48xlarge"
SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"


class Refused(Exception):
    pass


def read_config(directory):
    config = {}
    for key in ("instance-type-label", "default-instance-type", "lnc-label", "default-lnc",
                "ultraserver-label"):
        path = os.path.join(directory, key)
        try:
            with open(path) as f:
                config[key] = f.read().strip()
        except OSError as e:
            raise Refused(f"config map key {key}: {e.strerror} ({path})")
    return config


def fetch_node(name):
    """GET /api/v1/nodes/NAME with the pod's service-account token (ClusterRole
    trnsim-node-reader: get nodes)."""
    host = os.environ.get("KUBERNETES_SERVICE_HOST")
    port = os.environ.get("KUBERNETES_SERVICE_PORT", "443")
    if not host:
        raise Refused("KUBERNETES_SERVICE_HOST is not set: not in a pod?")
    if ":" in host:  # an IPv6 service address
        host = f"[{host}]"
    with open(os.path.join(SERVICE_ACCOUNT, "token")) as f:
        token = f.read().strip()
    context = ssl.create_default_context(cafile=os.path.join(SERVICE_ACCOUNT, "ca.crt"))
    request = urllib.request.Request(f"https://{host}:{port}/api/v1/nodes/{name}",
                                     headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, context=context, timeout=30) as reply:
            return json.load(reply)
    except OSError as e:  # URLError and HTTPError are OSErrors
        raise Refused(f"cannot read Node {name} from the API server: {e}")


def known_instance_types(command):
    """The first column of `trnsim-demo --instances` after its header line."""
    out = subprocess.run(command, shell=True, capture_output=True, text=True)
    if out.returncode != 0:
        raise Refused(f"`{command}` failed: {out.stderr.strip()}")
    return {line.split()[0] for line in out.stdout.splitlines()[1:] if line.strip()}


def neurond_args(labels, config, known_types):
    """The option list for a node with these labels (raises Refused on a bad value)."""
    def label(key, default=""):
        value = labels.get(config[key], default)
        if value and not SAFE.match(value):
            raise Refused(f"label {config[key]}={value!r}: only [A-Za-z0-9._-] allowed")
        return value

    instance = label("instance-type-label", config["default-instance-type"])
    if known_types is not None and instance not in known_types:
        raise Refused(f"label {config['instance-type-label']}={instance}: not an instance type "
                      f"trnsim emulates ({', '.join(sorted(known_types))})")
    lnc = label("lnc-label", config["default-lnc"])
    if lnc not in ("1", "2"):
        raise Refused(f"label {config['lnc-label']}={lnc}: LNC must be 1 or 2")
    args = ["--instance", instance, "--lnc", lnc]
    ultraserver = label("ultraserver-label")
    if instance == ULTRASERVER_TYPE and not ultraserver:
        raise Refused(f"a {ULTRASERVER_TYPE} node needs the label {config['ultraserver-label']} "
                      "(the id its UltraServer's four nodes share)")
    if ultraserver and instance != ULTRASERVER_TYPE:
        raise Refused(f"label {config['ultraserver-label']}={ultraserver} on a {instance} node: "
                      f"only {ULTRASERVER_TYPE} nodes belong to an UltraServer")
    if ultraserver:
        args += ["--ultraserver", ultraserver]
    return args


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True)
    parser.add_argument("--out", required=True)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--node")
    source.add_argument("--node-json")
    parser.add_argument("--instances-from")
    parser.add_argument("--lnc-out", help="also write the LNC alone to this file")
    options = parser.parse_args()
    try:
        config = read_config(options.config)
        if options.node_json:
            with open(options.node_json) as f:
                node = json.load(f)
        else:
            node = fetch_node(options.node)
        labels = node.get("metadata", {}).get("labels") or {}
        known = known_instance_types(options.instances_from) if options.instances_from else None
        args = neurond_args(labels, config, known)
    except (Refused, OSError, ValueError) as e:
        print(f"node_args: {e}", file=sys.stderr)
        return 1
    with open(options.out, "w") as f:
        f.write(" ".join(args) + "\n")
    if options.lnc_out:  # the device plugin counts cores at this LNC
        with open(options.lnc_out, "w") as f:
            f.write(args[args.index("--lnc") + 1] + "\n")
    print(f"node_args: {node['metadata'].get('name', '?')}: neurond {' '.join(args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
