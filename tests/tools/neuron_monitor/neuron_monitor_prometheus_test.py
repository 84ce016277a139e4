#!/usr/bin/env python3
"""neuron-monitor's Prometheus endpoint (--prometheus-port) against a live neurond.

  neuron_monitor_prometheus_test.py NEURON_MONITOR NEUROND CC PREFIX BUSY_CLIENT_SRC WORKDIR

Builds busy_client.c (tests/api) against the installed tree PREFIX with CC, starts a neurond of
its own (trn2.3xlarge, tests/api/neurond_fixture.py) and a busy_client executing the
vector_add sample in a loop on core 0 (LNC 1), then `neuron-monitor --prometheus-port 0` at a
1 s period. It finds the endpoint from the monitor's one stderr line and scrapes /metrics until
the client's runtime appears, then a few more times, and checks:
  - the answer: status 200, Content-Type "text/plain; version=0.0.4; charset=utf-8", every line
    a HELP, TYPE or sample line, every sample under its family's TYPE;
  - every metric name of AWS's exporter (tools-driver-facts.md §3.7) present, with the six
    instance labels on every sample and runtime_tag on the runtime ones;
  - instance_info (trn2.3xlarge) and neuron_hardware_info (1 device, 8 cores per device);
  - neuroncore_utilization_ratio in [0, 1] for the client's core, > 0 in some period;
  - execution_latency_seconds p0..p100 in some period, positive and ordered in each;
  - execution_status_total{status_type="completed"} > 0 and never decreasing across scrapes;
  - neuron_runtime_memory_used_bytes{memory_location="neuron_device"} > 0;
  - system_memory_total_bytes = MemTotal of /proc/meminfo in bytes;
  - 404 for another path, 405 for POST, 400 for garbage bytes and the endpoint still answering
    after them;
  - a second monitor on the same port: exit status 1 with one line.
Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import http.client
import os
import re
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../api"))
sys.path.insert(0, os.path.join(HERE, "../../python"))
import neurond_fixture  # noqa: E402
from trnsim_checks import clean_env, expect, summary  # noqa: E402

INSTANCE = "trn2.3xlarge"
NEFF = "vector_add_bf16.neff"
RUNTIME_BOUND_S = 30  # the client's runtime shows up in the metrics
EXTRA_SCRAPES = 3  # scrapes after it did, a period apart
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
CONFIG = '{"period": "1s", "neuron_runtimes": [{"tag_filter": ".*", "metrics": [' \
    '{"type": "neuroncore_counters"}, {"type": "memory_used"}, ' \
    '{"type": "neuron_runtime_vcpu_usage"}, {"type": "execution_stats"}]}], ' \
    '"system_metrics": [{"type": "vcpu_usage"}, {"type": "memory_info"}, ' \
    '{"type": "neuron_hw_counters"}]}'
INSTANCE_LABELS = {"instance_name", "instance_id", "instance_type", "availability_zone", "region",
                   "subnet_id"}
# AWS's exporter's families as exposed (counters with _total, info metrics with _info).
RUNTIME_METRICS = ["neuroncore_utilization_ratio", "neuron_runtime_vcpu_usage_ratio",
                   "neuron_runtime_memory_used_bytes", "neuroncore_memory_usage_constants",
                   "neuroncore_memory_usage_model_code",
                   "neuroncore_memory_usage_model_shared_scratchpad",
                   "neuroncore_memory_usage_runtime_memory", "neuroncore_memory_usage_tensors",
                   "execution_errors_total", "execution_status_total",
                   "execution_latency_seconds"]
SYSTEM_METRICS = ["hardware_ecc_events_total", "system_vcpu_count", "system_vcpu_usage_ratio",
                  "system_memory_total_bytes", "system_memory_used_bytes",
                  "system_swap_total_bytes", "system_swap_used_bytes", "instance_info",
                  "neuron_hardware_info"]
TYPES = {"execution_errors_total": "counter", "execution_status_total": "counter",
         "hardware_ecc_events_total": "counter"}

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')


def parse(text):
    """{family: {"type": t, "samples": [(name, labels, value)]}}; problems listed."""
    families, problems, current = {}, [], None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            current = families.setdefault(name, {"type": kind, "samples": []})
            continue
        m = SAMPLE.match(line)
        if not m:
            problems.append(f"unparsable line {line!r}")
            continue
        name, labels_text, value = m.groups()
        labels = {}
        if labels_text:
            rest = labels_text
            while rest:
                lm = LABEL.match(rest)
                if not lm:
                    problems.append(f"bad labels in {line!r}")
                    break
                labels[lm.group(1)] = lm.group(2)
                rest = rest[lm.end():]
        try:
            number = float(value)
        except ValueError:
            problems.append(f"bad value in {line!r}")
            continue
        family = name if name in families else None
        if family is None or current is None or families[family] is not current:
            problems.append(f"sample {name} outside its family")
            continue
        current["samples"].append((name, labels, number))
    return families, problems


def get(port, path, method="GET"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type"), response.read().decode()
    finally:
        conn.close()


def samples(families, name, **labels):
    family = families.get(name, {"samples": []})
    return [s for s in family["samples"]
            if all(s[1].get(k) == v for k, v in labels.items())]


def mem_total_bytes():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return None


def check_scrape(families, tag):
    for name in RUNTIME_METRICS + SYSTEM_METRICS:
        expect(name in families, f"metric {name} present")
        if name not in families:
            continue
        expect(families[name]["type"] == TYPES.get(name, "gauge"),
               f"{name} type {families[name]['type']}")
        for _, labels, _ in families[name]["samples"]:
            if not INSTANCE_LABELS <= set(labels):
                expect(False, f"{name} sample without the instance labels: {labels}")
                break
        if name in RUNTIME_METRICS:
            expect(samples(families, name, runtime_tag=tag) or name == "execution_latency_seconds",
                   f"{name} has samples of runtime {tag}")
    info = samples(families, "instance_info")
    expect(len(info) == 1 and info[0][1]["instance_type"] == INSTANCE and info[0][2] == 1.0,
           f"instance_info {info}")
    hw = samples(families, "neuron_hardware_info")
    expect(len(hw) == 1 and hw[0][1].get("neuron_device_count") == "1" and
           hw[0][1].get("neuroncore_per_device_count") == "8" and hw[0][2] == 1.0,
           f"neuron_hardware_info {hw}")
    util = samples(families, "neuroncore_utilization_ratio", runtime_tag=tag)
    expect([s[1]["neuroncore"] for s in util] == ["0"] and all(0 <= s[2] <= 1 for s in util),
           f"neuroncore_utilization_ratio in [0, 1]: {util}")
    device = samples(families, "neuron_runtime_memory_used_bytes", runtime_tag=tag,
                     memory_location="neuron_device")
    expect(len(device) == 1 and device[0][2] > 0, f"device memory {device}")
    code = samples(families, "neuroncore_memory_usage_model_code", runtime_tag=tag)
    expect(code and sum(s[2] for s in code) > 0, f"the client's model code in HBM: {code}")
    total = samples(families, "system_memory_total_bytes")
    expect(len(total) == 1 and total[0][2] == mem_total_bytes(),
           f"system_memory_total_bytes {total} vs MemTotal {mem_total_bytes()}")
    vcpus = samples(families, "system_vcpu_count")
    expect(len(vcpus) == 1 and vcpus[0][2] == os.cpu_count(), f"system_vcpu_count {vcpus}")


def busy_figures(families, tag):
    """The client's core utilisation and its latency percentiles in one scrape."""
    util = [s[2] for s in samples(families, "neuroncore_utilization_ratio", runtime_tag=tag)]
    latency = {s[1]["percentile"]: s[2] for s in
               samples(families, "execution_latency_seconds", runtime_tag=tag)}
    return util, latency


def check_busy(scrapes):
    """Over the scrapes (each a period of a client executing in a loop): the core was busy in
    some period, and every period with latencies has all seven, positive and ordered. A single
    period may see no completion on a loaded host, so no one scrape has to show both."""
    order = ["p0", "p1", "p25", "p50", "p75", "p99", "p100"]
    expect(any(u and u[0] > 0 for u, _ in scrapes),
           f"the busy core's utilisation > 0 in some period: {[u for u, _ in scrapes]}")
    with_latency = [lat for _, lat in scrapes if lat]
    expect(len(with_latency) > 0, "execution_latency_seconds in some period")
    for lat in with_latency:
        expect(sorted(lat) == sorted(order) and 0 < lat["p0"] and lat["p100"] < 60 and
               all(lat[a] <= lat[b] for a, b in zip(order, order[1:])),
               f"execution_latency_seconds percentiles: {lat}")


def completed(families, tag):
    found = samples(families, "execution_status_total", runtime_tag=tag, status_type="completed")
    return found[0][2] if found else None


def run(monitor, busy_client, neff_dir, address, workdir):
    env = clean_env(TRNSIM_DAEMON=address, NEURON_LOGICAL_NC_CONFIG="1")
    client = subprocess.Popen([busy_client, os.path.join(neff_dir, NEFF)],
                              env=dict(env, NEURON_RT_VISIBLE_CORES="0"), stdout=subprocess.PIPE,
                              text=True)
    config = os.path.join(workdir, "config.json")
    with open(config, "w") as f:
        f.write(CONFIG)
    proc = None
    try:
        line = client.stdout.readline().strip()
        expect(line == "loaded", f"busy_client loaded its model (said {line!r})")
        proc = subprocess.Popen([monitor, "-c", config, "--prometheus-port", "0"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        line = proc.stderr.readline()
        m = re.fullmatch(r"neuron-monitor: serving Prometheus metrics on "
                         r"http://0\.0\.0\.0:(\d+)/metrics\n", line)
        expect(m is not None, f"the endpoint line {line!r}")
        if m is None:
            return
        port = int(m.group(1))
        tag = str(client.pid)
        history, busy, families = [], [], {}
        deadline = time.monotonic() + RUNTIME_BOUND_S
        while time.monotonic() < deadline and len(history) <= EXTRA_SCRAPES:
            status, content_type, body = get(port, "/metrics")
            families, problems = parse(body)
            if status != 200 or content_type != CONTENT_TYPE or problems:
                expect(False, f"scrape: {status} {content_type!r} {problems[:3]}")
                return
            count = completed(families, tag)
            if count is not None and count > 0:
                history.append(count)
                busy.append(busy_figures(families, tag))
            time.sleep(1.0 if history else 0.3)
        expect(len(history) > EXTRA_SCRAPES,
               f"runtime {tag} with completed executions in {len(history)} scrapes")
        if not history:
            return
        print(f"completed executions across scrapes: {history}")
        expect(all(a <= b for a, b in zip(history, history[1:])), f"never decreasing {history}")
        check_scrape(families, tag)
        check_busy(busy)

        status, _, _ = get(port, "/other")
        expect(status == 404, f"/other: {status}")
        status, _, _ = get(port, "/metrics", method="POST")
        expect(status == 405, f"POST /metrics: {status}")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            raw.sendall(b"\x00\xff garbage \r\n\r\n")
            try:
                reply = raw.recv(4096)
            except OSError as e:
                reply = repr(e).encode()
        expect(reply.startswith(b"HTTP/1.1 400 "), f"garbage answered {reply[:40]!r}")
        status, _, body = get(port, "/metrics?x=1")
        expect(status == 200 and "instance_info" in body and proc.poll() is None,
               f"still serving after garbage: {status}, monitor {proc.poll()}")

        second = subprocess.run([monitor, "-c", config, "--prometheus-port", str(port)], env=env,
                                capture_output=True, text=True, timeout=30)
        expect(second.returncode == 1 and second.stderr.count("\n") == 1 and
               str(port) in second.stderr and second.stdout == "",
               f"port in use: {second.returncode} {second.stderr!r}")
    finally:
        for p in (proc, client):
            if p is not None:
                p.kill()
                p.wait()


def main():
    monitor, neurond, cc, prefix, source, workdir = sys.argv[1:7]
    os.makedirs(workdir, exist_ok=True)
    busy_client = os.path.join(workdir, "busy_client")
    subprocess.run([cc, "-std=c11", "-O2", source, "-I", os.path.join(prefix, "include"),
                    "-L", os.path.join(prefix, "lib"), "-lnrt", "-o", busy_client], check=True)
    os.environ["LD_LIBRARY_PATH"] = os.path.join(prefix, "lib")
    base = os.path.join(workdir, "neurond")
    if neurond_fixture.start(neurond, base, INSTANCE) != 0:
        expect(False, "neurond started")
    else:
        try:
            run(monitor, busy_client, os.path.join(prefix, "share", "trnsim", "neff"),
                "unix:" + base + ".sock", workdir)
        finally:
            expect(neurond_fixture.stop(base) == 0, "daemon stopped with SIGTERM")
    return summary(require_checks=True)


if __name__ == "__main__":
    sys.exit(main())
