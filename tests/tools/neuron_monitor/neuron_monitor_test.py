#!/usr/bin/env python3
"""neuron-monitor (tools/neuron_monitor).

  neuron_monitor_test.py schema NEURON_MONITOR NEUROND LIBNRT WORKDIR
      with a neurond of its own (trn2.3xlarge) and a libnrt client holding logical core 1:
      two reports at a 1 s period, each valid against a schema of AWS's report skeleton and
      group names (tools-driver-facts.md §3.3-3.5), the client listed by pid with its core, the
      second report's periods about 1 s
  neuron_monitor_test.py head NEURON_MONITOR WORKDIR
      `neuron-monitor -c period-1s.json | head -n 2`: two lines about a second apart, and
      neuron-monitor ends once head has closed the pipe
  neuron_monitor_test.py errors NEURON_MONITOR WORKDIR
      bad command lines (exit 2), bad config files, an unresolvable --prometheus-address and an
      unreachable daemon (exit 1, one line)

The schema is checked by the small validator of tests/tools/neuron_ls/neuron_ls_schema_test.py.
Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../neuron_ls"))
sys.path.insert(0, os.path.join(HERE, "../../api"))
sys.path.insert(0, os.path.join(HERE, "../../python"))
from neuron_ls_schema_test import validate  # noqa: E402
import neurond_fixture  # noqa: E402
from trnsim_checks import HOLDER, clean_env, expect, summary  # noqa: E402


def obj(required, **properties):
    """An object schema with exactly `required` keys; `properties` refine some of them."""
    props = {k: properties.get(k, {}) for k in required}
    return {"type": "object", "required": required, "additionalProperties": False,
            "properties": props}


NUM = {"type": "number"}
INT = {"type": "integer", "minimum": 0}
STR = {"type": "string"}
ERR = {"type": "string", "pattern": "^$"}
PERIOD = {"type": "number", "minimum": 0}
CPU = obj(["user", "nice", "system", "idle", "io_wait", "irq", "soft_irq"],
          user=NUM, nice=NUM, system=NUM, idle=NUM, io_wait=NUM, irq=NUM, soft_irq=NUM)
HOST_MEM = obj(["application_memory", "constants", "dma_buffers", "tensors"],
               application_memory=INT, constants=INT, dma_buffers=INT, tensors=INT)
NC_MEM = obj(["constants", "model_code", "model_shared_scratchpad", "runtime_memory", "tensors"],
             constants=INT, model_code=INT, model_shared_scratchpad=INT, runtime_memory=INT,
             tensors=INT)
NC = obj(["neuroncore_utilization", "flops", "v3d"], neuroncore_utilization=NUM, flops=NUM,
         v3d={"type": "object"})
LATENCY = {}  # null or {p0..p100}
REPORT = obj(
    ["neuroncore_counters", "execution_stats", "memory_used", "neuron_runtime_vcpu_usage"],
    neuroncore_counters=obj(["period", "neuroncores_in_use", "error"], period=PERIOD,
                            neuroncores_in_use={"type": "object"}, error=ERR),
    execution_stats=obj(
        ["period", "error_summary", "execution_summary", "latency_stats", "error"],
        period=PERIOD,
        error_summary=obj(["generic", "numerical", "transient", "model", "runtime", "hardware"],
                          generic=INT, numerical=INT, transient=INT, model=INT, runtime=INT,
                          hardware=INT),
        execution_summary=obj(["completed", "completed_with_err", "completed_with_num_err",
                               "timed_out", "incorrect_input", "failed_to_queue"],
                              completed=INT, completed_with_err=INT, completed_with_num_err=INT,
                              timed_out=INT, incorrect_input=INT, failed_to_queue=INT),
        latency_stats=obj(["total_latency", "device_latency"]), error=ERR),
    memory_used=obj(
        ["period", "neuron_runtime_used_bytes", "loaded_models", "error"], period=PERIOD,
        neuron_runtime_used_bytes=obj(
            ["host", "neuron_device", "usage_breakdown"], host=INT, neuron_device=INT,
            usage_breakdown=obj(["host", "neuroncore_memory_usage"], host=HOST_MEM,
                                neuroncore_memory_usage={"type": "object"})),
        loaded_models={"type": "array"}, error=ERR),
    neuron_runtime_vcpu_usage=obj(["period", "vcpu_usage", "error"], period=PERIOD,
                                  vcpu_usage=obj(["user", "system"], user=NUM, system=NUM),
                                  error=ERR))
RUNTIME = obj(["pid", "address", "neuron_runtime_tag", "error", "report"], pid=INT, address=STR,
              neuron_runtime_tag=STR, error=ERR, report=REPORT)
SCHEMA = obj(
    ["neuron_runtime_data", "system_data", "instance_info", "neuron_hardware_info"],
    neuron_runtime_data={"type": "array", "items": RUNTIME},
    system_data=obj(
        ["neuron_hw_counters", "vcpu_usage", "memory_info"],
        neuron_hw_counters=obj(["period", "neuron_devices", "error"], period=PERIOD, error=ERR,
                               neuron_devices={"type": "array", "minItems": 1, "items": obj(
                                   ["neuron_device_index", "mem_ecc_corrected",
                                    "mem_ecc_uncorrected", "sram_ecc_uncorrected",
                                    "sram_ecc_corrected"], neuron_device_index=INT,
                                   mem_ecc_corrected=INT, mem_ecc_uncorrected=INT,
                                   sram_ecc_uncorrected=INT, sram_ecc_corrected=INT)}),
        vcpu_usage=obj(["average_usage", "usage_data", "context_switch_count", "error",
                        "period"], average_usage=CPU, usage_data={"type": "object"},
                       context_switch_count=INT, error=ERR, period=PERIOD),
        memory_info=obj(["memory_total_bytes", "memory_used_bytes", "swap_total_bytes",
                         "swap_used_bytes", "error", "period"], memory_total_bytes=INT,
                        memory_used_bytes=INT, swap_total_bytes=INT, swap_used_bytes=INT,
                        error=ERR, period=PERIOD)),
    instance_info=obj(["instance_name", "instance_id", "instance_type",
                       "instance_availability_zone", "instance_availability_zone_id",
                       "instance_region", "ami_id", "subnet_id", "error"],
                      instance_id={"type": "string", "pattern": "^i-[0-9a-f]{17}$"},
                      instance_type=STR, error=ERR),
    neuron_hardware_info=obj(["neuron_device_type", "neuron_device_version", "neuroncore_version",
                              "neuron_device_count", "neuron_device_memory_size",
                              "neuroncore_per_device_count", "logical_neuroncore_config",
                              "error"],
                             neuron_device_type=STR, neuron_device_count=INT,
                             neuron_device_memory_size=INT, neuroncore_per_device_count=INT,
                             logical_neuroncore_config=INT, error=ERR))


def write_config(workdir, text):
    path = os.path.join(workdir, "config.json")
    with open(path, "w") as f:
        f.write(text)
    return path


ONE_SECOND = '{"period": "1s", "neuron_runtimes": [{"tag_filter": ".*", "metrics": [' \
    '{"type": "neuroncore_counters"}, {"type": "memory_used"}, ' \
    '{"type": "neuron_runtime_vcpu_usage"}, {"type": "execution_stats"}]}], ' \
    '"system_metrics": [{"type": "vcpu_usage"}, {"type": "memory_info"}, ' \
    '{"type": "neuron_hw_counters"}]}'


def schema(monitor, neurond, libnrt, workdir):
    # The validator must reject a broken report, or this test could not fail.
    assert validate({"neuron_runtime_data": []}, SCHEMA)
    base = os.path.join(workdir, "neurond")
    address = "unix:" + base + ".sock"
    script = os.path.join(workdir, "holder.py")
    with open(script, "w") as f:
        f.write(HOLDER)
    if neurond_fixture.start(neurond, base, "trn2.3xlarge") != 0:
        expect(False, "neurond started")
        return
    holder = subprocess.Popen([sys.executable, script, libnrt], stdout=subprocess.PIPE,
                              text=True, env=clean_env(TRNSIM_DAEMON=address,
                                                       NEURON_RT_VISIBLE_CORES="1"))
    try:
        expect(holder.stdout.readline().strip() == "0", "client nrt_init")
        proc = subprocess.Popen([monitor, "-c", write_config(workdir, ONE_SECOND)],
                                stdout=subprocess.PIPE, env=clean_env(TRNSIM_DAEMON=address))
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        proc.kill()
        proc.wait()
        reports = [json.loads(line) for line in lines]
        for i, report in enumerate(reports):
            problems = validate(report, SCHEMA)
            expect(not problems, f"report {i}: {problems[:5]}")
            runtimes = report["neuron_runtime_data"]
            expect([r["pid"] for r in runtimes] == [holder.pid],
                   f"report {i}: processes {[r['pid'] for r in runtimes]}, want {holder.pid}")
            if runtimes:
                in_use = runtimes[0]["report"]["neuroncore_counters"]["neuroncores_in_use"]
                expect(list(in_use) == ["1"] and sorted(in_use["1"]["v3d"]) ==
                       ["nc_v3.2", "nc_v3.3"], f"report {i}: cores in use {in_use}")
                expect(runtimes[0]["address"] == address, "address is the daemon's")
            hw = report["neuron_hardware_info"]
            expect([hw["neuron_device_type"], hw["neuron_device_count"],
                    hw["neuroncore_per_device_count"], hw["logical_neuroncore_config"],
                    hw["neuron_device_memory_size"], hw["neuroncore_version"]] ==
                   ["trainium2", 1, 4, 2, 96 << 30, "v3d"], f"hardware info {hw}")
            expect(report["instance_info"]["instance_type"] == "trn2.3xlarge", "instance type")
        period = reports[1]["system_data"]["memory_info"]["period"]
        expect(0.5 < period < 3, f"second report's period {period}, want about 1 s")
    finally:
        holder.kill()
        holder.wait()
        expect(neurond_fixture.stop(base) == 0, "daemon stopped with SIGTERM")


def head(monitor, workdir):
    config = write_config(workdir, '{"period": "1s", "system_metrics": [{"type": "memory_info"}]}')
    start = time.monotonic()
    result = subprocess.run(["sh", "-c", f"'{monitor}' -c '{config}' | head -n 2"],
                            capture_output=True, env=clean_env(), timeout=30)
    took = time.monotonic() - start
    lines = result.stdout.decode().splitlines()
    expect(result.returncode == 0 and len(lines) == 2, f"head -n 2: {result.returncode} {lines}")
    reports = [json.loads(line) for line in lines]
    expect(all("memory_info" in r["system_data"] for r in reports), "memory_info in each report")
    expect(0.8 < reports[1]["system_data"]["memory_info"]["period"] < 3,
           f"second period {reports[1]['system_data']['memory_info']['period']}")
    expect(0.8 < took < 10, f"the pipeline took {took:.1f} s: neuron-monitor did not end")


def errors(monitor, workdir):
    for args in (["--bogus"], ["--verbose", "9"], ["-c"], ["--prometheus-port", "65536"],
                 ["--prometheus-port", "-1"], ["--prometheus-address", "127.0.0.1"]):
        result = subprocess.run([monitor] + args, capture_output=True, env=clean_env(),
                                timeout=30)
        expect(result.returncode == 2 and result.stdout == b"", f"{args}: {result.returncode}")
    bad = ["not json", '{"period": "soon"}', '{"period": 5}', '{"system_metrics": [{"type": "x"}]}',
           '{"neuron_runtimes": [{"tag_filter": "("}]}', '[1]']
    for text in bad:
        result = subprocess.run([monitor, "-c", write_config(workdir, text)], capture_output=True,
                                env=clean_env(), timeout=30)
        err = result.stderr.decode()
        expect(result.returncode == 1 and err.count("\n") == 1 and "config.json" in err,
               f"config {text!r}: {result.returncode} {err!r}")
    result = subprocess.run([monitor, "--prometheus-port", "1", "--prometheus-address",
                             "no-such-host.invalid"], capture_output=True, env=clean_env(),
                            timeout=30)
    err = result.stderr.decode()
    expect(result.returncode == 1 and err.count("\n") == 1 and "no-such-host.invalid" in err,
           f"unresolvable Prometheus address: {result.returncode} {err!r}")
    result = subprocess.run([monitor, "-c", os.path.join(workdir, "missing.json")],
                            capture_output=True, env=clean_env(), timeout=30)
    expect(result.returncode == 1 and b"missing.json" in result.stderr, "missing config file")
    result = subprocess.run([monitor], capture_output=True, timeout=30,
                            env=clean_env(TRNSIM_DAEMON="unix:/nonexistent/monitor.sock"))
    err = result.stderr.decode()
    expect(result.returncode == 1 and err.count("\n") == 1 and "unreachable" in err,
           f"unreachable daemon: {result.returncode} {err!r}")


def main():
    mode, monitor = sys.argv[1], sys.argv[2]
    workdir = sys.argv[-1]
    os.makedirs(workdir, exist_ok=True)
    if mode == "schema":
        schema(monitor, sys.argv[3], sys.argv[4], workdir)
    elif mode == "head":
        head(monitor, workdir)
    elif mode == "errors":
        errors(monitor, workdir)
    return summary(require_checks=True)


if __name__ == "__main__":
    sys.exit(main())
