"""manifests_test.py's checks of the token command, node_args.py, the example job and its
launch_ranks.sh (see manifests_test.py for the whole list). Each function records its checks in
trnsim_checks' tally.
"""
import json
import os
import re
import subprocess
import sys

from trnsim_checks import expect, expect_eq
from k8s_objects import pod_specs, containers_of, env_of, argv_of

DEVICE_RESOURCES = {"aws.amazon.com/neuron", "aws.amazon.com/neurondevice",
                    "aws.amazon.com/neuroncore"}
NATIVE_RESOURCES = {"cpu", "memory", "ephemeral-storage"}
JOB_DIR = "deploy/kubernetes/examples/allreduce-job"


def documented_secret(kubectl, source, env):
    """Runs docs/cluster.md's `kubectl ... create secret` command client-side; the Secret."""
    with open(os.path.join(source, "docs/cluster.md")) as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines)
                  if l.strip().startswith("kubectl -n trnsim-system create secret")), None)
    if not expect(start is not None, "docs/cluster.md shows the token Secret's command"):
        return None
    command = ""
    for line in lines[start:]:
        command += line.strip().rstrip("\\") + " "
        if not line.rstrip().endswith("\\"):
            break
    command = command.replace("kubectl", kubectl, 1) + " --dry-run=client -o json"
    out = subprocess.run(["sh", "-c", command], env=env, capture_output=True, text=True)
    if not expect(out.returncode == 0, f"the documented token command runs: {out.stderr.strip()}"):
        return None
    secret = json.loads(out.stdout)
    expect_eq(secret.get("kind"), "Secret", "the documented command makes a Secret")
    return secret


def run_node_args(node_args, config_dir, out_path, labels, demo, workdir):
    node = os.path.join(workdir, "node.json")
    with open(node, "w") as f:
        json.dump({"metadata": {"name": "node-a", "labels": labels}}, f)
    for stale in (out_path, out_path + ".lnc"):
        if os.path.exists(stale):
            os.remove(stale)
    p = subprocess.run([sys.executable, node_args, "--config", config_dir, "--out", out_path,
                        "--node-json", node, "--instances-from", f"{demo} --instances",
                        "--lnc-out", out_path + ".lnc"],
                       capture_output=True, text=True, timeout=60)
    written = open(out_path).read().strip() if os.path.exists(out_path) else None
    return p.returncode, written, p.stderr


def check_node_args(objects, node_args, demo, known, workdir):
    """node_args.py with the built ConfigMap's data as its config, on fake Nodes."""
    config = objects.one("ConfigMap", "trnsim-node-config")
    if not expect(config is not None, "ConfigMap trnsim-node-config is built"):
        return
    config_dir = os.path.join(workdir, "node-config")
    os.makedirs(config_dir, exist_ok=True)
    for key, value in config["data"].items():
        with open(os.path.join(config_dir, key), "w") as f:
            f.write(value)
    data = config["data"]
    itype, lnc, us = data["instance-type-label"], data["lnc-label"], data["ultraserver-label"]
    out = os.path.join(workdir, "neurond.args")
    good = [
        ({}, f"--instance {data['default-instance-type']} --lnc {data['default-lnc']}"),
        ({itype: "trn2.3xlarge", lnc: "1"}, "--instance trn2.3xlarge --lnc 1"),
        ({itype: "trn2u.48xlarge", us: "us-1"}, "--instance trn2u.48xlarge --lnc 2 "
                                                "--ultraserver us-1"),
    ]
    for labels, want in good:
        code, written, err = run_node_args(node_args, config_dir, out, labels, demo, workdir)
        expect_eq((code, written), (0, want), f"node_args.py on labels {labels} ({err.strip()})")
        lnc_file = out + ".lnc"
        lnc_written = open(lnc_file).read().strip() if os.path.exists(lnc_file) else None
        expect_eq(lnc_written, want.split("--lnc ")[1].split()[0],
                  f"node_args.py --lnc-out on labels {labels}")
        if code == 0 and "neurond" in known:
            for option in re.findall(r"--[a-z-]+", written):
                expect(option in known["neurond"], f"neurond accepts node_args.py's {option}")
    refused = [
        ({itype: "trn2u.48xlarge"}, us),
        ({itype: "trn2.48xlarge", us: "us-1"}, us),
        ({itype: "trn9.huge"}, "not an instance type"),
        ({lnc: "3"}, lnc),
        ({itype: "trn2.48xlarge;reboot"}, itype),
    ]
    for labels, named in refused:
        code, written, err = run_node_args(node_args, config_dir, out, labels, demo, workdir)
        expect(code == 1 and written is None and named in err,
               f"node_args.py refuses labels {labels} naming {named!r} "
               f"(exit {code}, wrote {written!r}: {err.strip()})")


def check_job(objects, daemon, source, samples):
    jobs = [(w, s) for w, s in pod_specs(objects) if w.startswith(JOB_DIR)]
    job = next((o for d, o in objects.items if d == JOB_DIR and o["kind"] == "Job"), None)
    if not expect(job is not None and len(jobs) == 1, "the example Job is built"):
        return
    _, spec = jobs[0]
    js = job["spec"]
    labels = job["spec"]["template"]["metadata"]["labels"]
    expect_eq(js.get("completionMode"), "Indexed", "example Job is an Indexed Job")
    container = spec["containers"][0]
    env = env_of(container)
    expect_eq((js.get("completions"), js.get("parallelism")), (int(env.get("PODS", 0)),) * 2,
              "completions = parallelism = PODS (every rank runs at once)")
    expect(spec.get("hostNetwork") is True, "example pods on the host network (root address)")
    expect_eq(spec.get("dnsPolicy"), "ClusterFirstWithHostNet", "example pods resolve cluster DNS")
    anti = (spec.get("affinity", {}).get("podAntiAffinity", {})
            .get("requiredDuringSchedulingIgnoredDuringExecution", []))
    expect(any(t.get("topologyKey") == "kubernetes.io/hostname" and
               all(labels.get(k) == v for k, v in t["labelSelector"]["matchLabels"].items())
               for t in anti), "one example pod per node (required anti-affinity on hostname)")
    service = next((o for d, o in objects.items if d == JOB_DIR and o["kind"] == "Service"),
                   None)
    if expect(service is not None, "the example's headless Service is built"):
        expect_eq(service["spec"].get("clusterIP"), "None", "the example's Service is headless")
        expect_eq(spec.get("subdomain"), service["metadata"]["name"], "pods' subdomain")
        expect(all(labels.get(k) == v for k, v in service["spec"]["selector"].items()),
               "the headless Service selects the job's pods")
        expect_eq(env.get("ROOT_HOST"),
                  f"{job['metadata']['name']}-0.{service['metadata']['name']}",
                  "ROOT_HOST is pod 0's DNS name")
    if daemon:
        expect_eq(env.get("ROOT_PORT"), daemon["port"], "ROOT_PORT is neurond's cluster port")
    resources = container.get("resources", {})
    limits, requests = resources.get("limits", {}), resources.get("requests", {})
    extended = {k for k in list(limits) + list(requests) if k not in NATIVE_RESOURCES}
    expect(extended and extended <= DEVICE_RESOURCES,
           f"the job requests only the device plugin's resources ({sorted(extended)})")
    for k in extended:
        expect(k in limits and requests.get(k, limits[k]) == limits[k],
               f"{k} is in limits (and requests, if given, equal)")
    # The program and the NEFF are what the image holds.
    with open(os.path.join(source, "deploy/kubernetes/image/Dockerfile")) as f:
        dockerfile = f.read()
    copied = re.findall(r"^COPY --from=\S+ \S+ (\S+)$", dockerfile, re.M)
    expect(env.get("RANK_PROGRAM") in copied, f"RANK_PROGRAM is the image's {copied}")
    neff = env.get("NEFF", "")
    expect(neff.startswith("/opt/trnsim/share/trnsim/neff/"), "NEFF is a packaged sample")
    try:
        with open(samples) as f:
            manifest = {s["neff"]: s for s in json.load(f)}
    except OSError as e:
        expect(False, f"the sample NEFFs' manifest ({e}; build trnsim_sample_neffs)")
        return
    sample = manifest.get(os.path.basename(neff))
    if expect(sample is not None, f"{os.path.basename(neff)} is a sample NEFF"):
        config = next(o for o in [objects.one("ConfigMap", "trnsim-node-config")] if o)
        expect_eq(str(sample["lnc"]), config["data"]["default-lnc"],
                  "the job's NEFF is built for the DaemonSet's default LNC")


def run_launch(source, workdir, visible, index, extra=None):
    record = os.path.join(workdir, "ranks.txt")
    rank = os.path.join(workdir, "fake_rank.sh")
    with open(rank, "w") as f:
        f.write('#!/bin/sh\necho "$RANK $LOCAL_RANK $WORLD_SIZE $NEURON_RT_VISIBLE_CORES '
                '$NEURON_RT_ROOT_COMM_ID $*" >> "$RECORD"\n'
                '[ "$RANK" != "$FAIL_RANK" ]\n')
    os.chmod(rank, 0o755)
    if os.path.exists(record):
        os.remove(record)
    env = {"PATH": "/usr/bin:/bin", "RECORD": record, "PODS": "2", "ROOT_HOST": "localhost",
           "ROOT_PORT": "62182", "RANK_PROGRAM": rank, "NEFF": "x.neff",
           "JOB_COMPLETION_INDEX": str(index), "FAIL_RANK": "none", "ROOT_WAIT_S": "4"}
    if visible is not None:
        env["NEURON_RT_VISIBLE_CORES"] = visible
    env.update(extra or {})
    try:
        p = subprocess.run(["sh", os.path.join(source, JOB_DIR, "launch_ranks.sh")], env=env,
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None, [], "launch_ranks.sh did not end within 60 s"
    lines = sorted(open(record).read().splitlines()) if os.path.exists(record) else []
    return p.returncode, lines, p.stderr


def check_launch_ranks(source, workdir):
    root = "127.0.0.1:62182"  # localhost's IPv4 address
    code, lines, err = run_launch(source, workdir, "4-7", 1)
    expect_eq((code, lines), (0, [f"{r} {r - 4} 8 {r} {root} x.neff run" for r in range(4, 8)]),
              f"launch_ranks: pod 1 of 2 with cores 4-7 runs ranks 4-7 of 8 ({err.strip()})")
    code, lines, err = run_launch(source, workdir, "0-1,8", 0)
    expect_eq((code, lines), (0, [f"0 0 6 0 {root} x.neff run", f"1 1 6 1 {root} x.neff run",
                                  f"2 2 6 8 {root} x.neff run"]),
              f"launch_ranks: cores 0-1,8 are ranks 0-2 of 6 ({err.strip()})")
    code, lines, _ = run_launch(source, workdir, "0-3", 0, {"FAIL_RANK": "2"})
    expect_eq((code, len(lines)), (1, 4), "launch_ranks: a failing rank fails the pod, after all ran")
    for visible in ("3-1", "a,b", "1-2-3"):
        code, lines, err = run_launch(source, workdir, visible, 0)
        expect((code, lines) == (2, []) and "NEURON_RT_VISIBLE_CORES" in err,
               f"launch_ranks refuses cores {visible!r} (exit {code}: {err.strip()})")
    code, lines, err = run_launch(source, workdir, None, 0)
    expect((code, lines) == (2, []) and "trnsim-device-plugin" in err,
           f"launch_ranks without NEURON_RT_VISIBLE_CORES names the plugin ({err.strip()})")
    code, lines, err = run_launch(source, workdir, "0", 0,
                                  {"ROOT_HOST": "no-such-host.invalid", "ROOT_WAIT_S": "0"})
    expect((code, lines) == (1, []) and "did not resolve" in err,
           f"launch_ranks fails when the root never resolves (exit {code}: {err.strip()})")
