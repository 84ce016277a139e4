#!/usr/bin/env python3
"""deploy/kubernetes held to the programs it runs, offline (no cluster).

  manifests_test.py --source ROOT --version V --samples MANIFEST.json --workdir DIR
                    --binary NAME=PATH ...     (neurond, neuron-monitor, neuron-ls, trnsim-demo,
                                                and trnsim-device-plugin once it is built)

What kubectl can check without a server (KUBECONFIG an empty file): `kubectl kustomize` builds
each kustomization (the base, prometheus-operator/, examples/allreduce-job/) - YAML syntax,
every resource file and generator file found, names and references rewritten - and
`kubectl create secret ... --dry-run=client -o json` runs the token command of docs/cluster.md.
`kubectl apply/create --dry-run=client -f` need the server's API discovery (to map a kind to a
resource) and schema validation its OpenAPI document, so they cannot run here. What the test
checks on the built objects instead:

  flags       every option given to a trnsim program (command lines, shell scripts, probes, and
              the options node_args.py writes for neurond) is one its --help lists; a program
              path under /opt/trnsim/bin that is not a known program fails
  wiring      volumes mounted exist and every volume is mounted; ConfigMaps, Secret, service
              account, roles, selectors, named ports and the ServiceMonitor resolve; the daemon
              socket, token and cluster port agree between neurond, the device plugin,
              neuron-monitor, the host paths and the example job
  RBAC        no wildcards, no write verbs, no secrets
  example     Indexed Job, completions = parallelism = PODS, one pod per node, the headless
              Service, the extended resources the device plugin offers, a sample NEFF that exists
              with the LNC the DaemonSet sets, the rank program the image builds
  image       every container runs trnsim:V (the project version)
  scripts     node_args.py on fake Nodes (the ConfigMap's own data as its config) and
              launch_ranks.sh with a stand-in rank program: options, ranks, refusals

Prints "FAIL ..." per failed check and "N passed, M failed"; exit 1 on any failure. No kubectl
or no PyYAML is a failure naming scripts/install-deps.sh.
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../python"))
from trnsim_checks import expect, expect_eq, failures, summary  # noqa: E402
from k8s_objects import Objects, pod_specs, containers_of, env_of, argv_of  # noqa: E402

KUSTOMIZATIONS = ["deploy/kubernetes", "deploy/kubernetes/prometheus-operator",
                  "deploy/kubernetes/examples/allreduce-job"]
PENDING_PROGRAMS = {"trnsim-device-plugin"}  # checked only when its binary is passed
SHELL_OPERATORS = {";", "&&", "||", "|", "&", ">", "<", ">>", "2>&1", "(", ")"}
WRITE_VERBS = {"create", "update", "patch", "delete", "deletecollection", "*"}


def kubectl_env(workdir):
    """An environment whose KUBECONFIG is an empty file: kubectl has no server to reach."""
    config = os.path.join(workdir, "kubeconfig")
    open(config, "w").close()
    return dict(os.environ, KUBECONFIG=config)


def build_kustomizations(kubectl, source, env):
    import yaml
    objects = Objects()
    for directory in KUSTOMIZATIONS:
        out = subprocess.run([kubectl, "kustomize", os.path.join(source, directory)], env=env,
                             capture_output=True, text=True)
        if not expect(out.returncode == 0, f"kubectl kustomize {directory}: {out.stderr.strip()}"):
            continue
        docs = [d for d in yaml.safe_load_all(out.stdout) if d]
        expect(docs, f"kubectl kustomize {directory} built objects")
        objects.add(directory, docs)
    return objects


def listed_resources(source):
    """Every file the kustomizations name (resources and generator files)."""
    import yaml
    named = set()
    for directory in KUSTOMIZATIONS:
        with open(os.path.join(source, directory, "kustomization.yaml")) as f:
            k = yaml.safe_load(f)
        for r in k.get("resources", []):
            named.add(os.path.normpath(os.path.join(directory, r)))
        for g in k.get("configMapGenerator", []):
            for f in g.get("files", []):
                named.add(os.path.normpath(os.path.join(directory, f.split("=")[-1])))
    return named


def check_every_file_built(source):
    named = listed_resources(source)
    for path in sorted(glob.glob(os.path.join(source, "deploy/kubernetes/**/*.yaml"),
                                 recursive=True)):
        rel = os.path.relpath(path, source)
        if os.path.basename(rel) != "kustomization.yaml":
            expect(rel in named, f"{rel} is a resource of a kustomization (so it is validated)")


# ---- program options ------------------------------------------------------------------------

def help_options(argv):
    out = subprocess.run(argv + ["--help"], capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin"})
    if not expect(out.returncode == 0, f"{' '.join(argv)} --help exits 0 ({out.stderr.strip()})"):
        return set()
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", out.stdout))


def invocations(words, programs):
    """(program, [options]) for every known program named in an argv or a shell script; an
    argv word holding spaces (a command passed as one argument) is read as a script too."""
    found = []
    def scan(tokens):
        for i, word in enumerate(tokens):
            if " " in word:  # a command passed as one argument
                scan(shell_words(word))
                continue
            name = os.path.basename(word)
            if name in programs or word.startswith("/opt/trnsim/bin/"):
                options = []
                for t in tokens[i + 1:]:
                    if t in SHELL_OPERATORS:
                        break
                    if t.startswith("--"):
                        options.append(t.split("=")[0])
                found.append((name, options))
    if len(words) >= 3 and os.path.basename(words[0]) == "sh" and words[1] == "-c":
        scan(shell_words(words[2]))
    else:
        scan(words)
    return found


def shell_words(script):
    lexer = shlex.shlex(script, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return list(lexer)


def check_options(name, options, known, where):
    if name not in known:
        expect(name in PENDING_PROGRAMS, f"{where}: {name} is a trnsim program")
        if name in PENDING_PROGRAMS:
            print(f"note: {name} not built here; its options in {where} are unchecked")
        return
    for option in options:
        expect(option in known[name], f"{where}: {name} accepts {option}")


def check_program_options(objects, known):
    for where, spec in pod_specs(objects):
        for c in containers_of(spec):
            argv = argv_of(c)
            for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
                exec_ = (c.get(probe) or {}).get("exec")
                if exec_:
                    for name, options in invocations(exec_["command"], known):
                        check_options(name, options, known, f"{where}/{c['name']} {probe}")
            for name, options in invocations(argv, known):
                check_options(name, options, known, f"{where}/{c['name']}")


# ---- wiring ---------------------------------------------------------------------------------

def labels_match(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def check_volumes(objects):
    for where, spec in pod_specs(objects):
        volumes = {v["name"]: v for v in spec.get("volumes", [])}
        mounted = set()
        for c in containers_of(spec):
            for m in c.get("volumeMounts", []):
                expect(m["name"] in volumes, f"{where}/{c['name']}: volume {m['name']} exists")
                mounted.add(m["name"])
        for name, v in volumes.items():
            expect(name in mounted, f"{where}: volume {name} is mounted by a container")
            sources = [v.get("configMap")] + [s.get("configMap") for s in
                                              v.get("projected", {}).get("sources", [])]
            for cm in filter(None, sources):
                if cm["name"] == "kube-root-ca.crt":  # made by Kubernetes in every namespace
                    continue
                data = objects.one("ConfigMap", cm["name"])
                if expect(data is not None, f"{where}: ConfigMap {cm['name']} is built"):
                    for item in cm.get("items", []):
                        expect(item["key"] in data.get("data", {}),
                               f"{where}: ConfigMap {cm['name']} has key {item['key']}")


def host_path_of(spec, container, path):
    """The host path a container path lies on through a hostPath volume, or None."""
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    for m in container.get("volumeMounts", []):
        mount = m["mountPath"].rstrip("/")
        host = volumes.get(m["name"], {}).get("hostPath")
        if host and (path == mount or path.startswith(mount + "/")):
            return host["path"].rstrip("/") + path[len(mount):]
    return None


def option_value(argv_words, option):
    for i, w in enumerate(argv_words):
        if w == option and i + 1 < len(argv_words):
            return argv_words[i + 1]
        if w.startswith(option + "="):
            return w.split("=", 1)[1]
    return None


def check_daemonset(objects, secret):
    ds = objects.one("DaemonSet", "trnsim-node")
    if not expect(ds is not None, "DaemonSet trnsim-node is built"):
        return None
    spec = ds["spec"]["template"]["spec"]
    labels = ds["spec"]["template"]["metadata"]["labels"]
    expect(labels_match(ds["spec"]["selector"]["matchLabels"], labels),
           "DaemonSet selector matches its pod labels")
    expect(spec.get("hostNetwork") is True, "DaemonSet uses the host network (cluster address)")
    expect_eq(spec.get("dnsPolicy"), "ClusterFirstWithHostNet", "DaemonSet DNS on hostNetwork")
    expect(objects.one("ServiceAccount", spec.get("serviceAccountName")) is not None,
           "DaemonSet's service account is built")
    by_name = {c["name"]: c for c in containers_of(spec)}
    for name in ("install-token", "node-config", "neurond", "device-plugin", "neuron-monitor"):
        expect(name in by_name, f"DaemonSet has container {name}")
    if not all(n in by_name for n in ("neurond", "device-plugin", "neuron-monitor")):
        return None
    neurond = shell_words(argv_of(by_name["neurond"])[2])
    plugin = shell_words(argv_of(by_name["device-plugin"])[2])
    listen = option_value(neurond, "--listen") or ""
    token = option_value(neurond, "--token-file")
    expect(listen.startswith("unix:"), f"neurond listens on a Unix socket ({listen})")
    socket = listen[len("unix:"):]
    for c in ("neurond", "neuron-monitor"):
        env = env_of(by_name[c])
        expect_eq(env.get("TRNSIM_DAEMON"), listen, f"{c}: TRNSIM_DAEMON is neurond's socket")
        expect_eq(env.get("TRNSIM_TOKEN_FILE"), token, f"{c}: TRNSIM_TOKEN_FILE is neurond's")
    expect_eq(option_value(plugin, "--daemon"), listen, "device plugin --daemon")
    expect_eq(option_value(plugin, "--container-daemon-address"), listen,
              "device plugin gives containers the socket at the same path")
    expect_eq(option_value(plugin, "--token-file"), token, "device plugin --token-file")
    for c in ("neurond", "device-plugin", "neuron-monitor"):
        expect_eq(host_path_of(spec, by_name[c], socket), socket,
                  f"{c}: the socket's directory is the same host path")
    expect_eq(option_value(plugin, "--daemon-socket-host-path"),
              host_path_of(spec, by_name["neurond"], socket), "device plugin's socket host path")
    expect_eq(host_path_of(spec, by_name["neurond"], token), token,
              "the token is on the host at the same path (the plugin mounts it into jobs)")
    kubelet_dir = option_value(plugin, "--kubelet-dir")
    expect_eq(host_path_of(spec, by_name["device-plugin"], kubelet_dir), kubelet_dir,
              "device plugin sees kubelet's device-plugin directory")
    # node-config writes neurond's options where neurond reads them: one volume, one path.
    out = option_value(argv_of(by_name["node-config"]), "--out") or ""
    read = re.search(r"< *(\S+)", argv_of(by_name["neurond"])[2])
    expect_eq(read and read.group(1), out, "neurond reads the file node-config writes")
    mounts = [{m["mountPath"]: m["name"] for m in by_name[c].get("volumeMounts", [])}
              for c in ("node-config", "neurond")]
    shared = [m.get(os.path.dirname(out)) for m in mounts]
    expect(shared[0] is not None and shared[0] == shared[1],
           f"node-config and neurond mount one volume at {os.path.dirname(out)}")
    lnc_out = option_value(argv_of(by_name["node-config"]), "--lnc-out") or ""
    read = re.search(r"read -r lnc < *(\S+)", argv_of(by_name["device-plugin"])[2])
    expect_eq(read and read.group(1), lnc_out, "device plugin reads the LNC node-config writes")
    install = argv_of(by_name["install-token"])
    expect_eq(install[-1], token, "install-token writes the token neurond reads")
    secret_volume = next((v for v in spec["volumes"] if "secret" in v), None)
    if expect(secret_volume is not None and secret is not None, "the token Secret is mounted"):
        expect_eq(secret_volume["secret"]["secretName"], secret["metadata"]["name"],
                  "the Secret volume is the one the documented command creates")
        expect_eq(secret["metadata"]["namespace"], ds["metadata"]["namespace"],
                  "the documented Secret is in the DaemonSet's namespace")
        mount = next(m["mountPath"] for m in by_name["install-token"]["volumeMounts"]
                     if m["name"] == secret_volume["name"])
        expect(os.path.relpath(install[-2], mount) in secret.get("data", {}),
               "install-token copies a key the Secret has")
    cluster = option_value(neurond, "--cluster-listen") or ""
    port = cluster.rpartition(":")[2]
    expect("--allow-remote" in neurond, "neurond --allow-remote for a non-loopback cluster port")
    ports = {p["name"]: p["containerPort"] for p in by_name["neurond"].get("ports", [])}
    expect_eq(str(ports.get("cluster")), port, "neurond's port 'cluster' is --cluster-listen's")
    for c in by_name.values():
        named = {p["name"] for p in c.get("ports", [])}
        for probe in ("readinessProbe", "livenessProbe"):
            p = c.get(probe) or {}
            target = (p.get("httpGet") or p.get("tcpSocket") or {}).get("port")
            if isinstance(target, str):
                expect(target in named, f"{c['name']} {probe}: port {target} is named")
    service = objects.one("Service", "trnsim-neuron-monitor")
    if expect(service is not None, "metrics Service is built"):
        expect(labels_match(service["spec"]["selector"], labels), "metrics Service selects nodes")
        monitor_ports = {p["name"] for p in by_name["neuron-monitor"].get("ports", [])}
        for p in service["spec"]["ports"]:
            expect(p["targetPort"] in monitor_ports, f"metrics Service port {p['name']} targets "
                                                     "a neuron-monitor port")
        monitor = shell_words(argv_of(by_name["neuron-monitor"])[2])
        expect_eq(str(option_value(monitor, "--prometheus-port")),
                  str(by_name["neuron-monitor"]["ports"][0]["containerPort"]),
                  "neuron-monitor serves on its declared port")
    return {"port": port, "labels": labels}


def check_service_monitor(objects):
    sm = objects.one("ServiceMonitor", "trnsim-neuron-monitor")
    service = objects.one("Service", "trnsim-neuron-monitor")
    if not expect(sm is not None and service is not None, "ServiceMonitor and Service built"):
        return
    expect(labels_match(sm["spec"]["selector"]["matchLabels"], service["metadata"]["labels"]),
           "ServiceMonitor selects the metrics Service")
    expect(service["metadata"]["namespace"] in sm["spec"]["namespaceSelector"]["matchNames"],
           "ServiceMonitor looks in the Service's namespace")
    names = {p["name"] for p in service["spec"]["ports"]}
    for e in sm["spec"]["endpoints"]:
        expect(e["port"] in names, f"ServiceMonitor endpoint port {e['port']} is a Service port")


def check_rbac(objects):
    for role in objects.all("ClusterRole") + objects.all("Role"):
        for rule in role.get("rules", []):
            where = f"{role['kind']} {role['metadata']['name']}"
            expect("*" not in rule.get("resources", []) and "*" not in rule.get("apiGroups", []),
                   f"{where}: no wildcard resources")
            expect(not set(rule.get("verbs", [])) & WRITE_VERBS, f"{where}: read-only verbs")
            expect("secrets" not in rule.get("resources", []), f"{where}: no secrets")
    for binding in objects.all("ClusterRoleBinding"):
        expect(objects.one(binding["roleRef"]["kind"], binding["roleRef"]["name"]) is not None,
               f"{binding['metadata']['name']}: its role is built")
        for s in binding["subjects"]:
            sa = objects.one("ServiceAccount", s["name"])
            expect(sa is not None and sa["metadata"]["namespace"] == s["namespace"],
                   f"{binding['metadata']['name']}: subject {s['name']} is built")


def check_images(objects, version):
    for where, spec in pod_specs(objects):
        for c in containers_of(spec):
            expect_eq(c.get("image"), f"trnsim:{version}", f"{where}/{c['name']} image")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--samples", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--binary", action="append", default=[])
    options = parser.parse_args()
    os.makedirs(options.workdir, exist_ok=True)
    kubectl = __import__("shutil").which("kubectl")
    if not kubectl:
        failures.append("no kubectl")
        print("FAIL no kubectl on PATH: run scripts/install-deps.sh (Debian's kubernetes-client)")
        return summary()
    try:
        import yaml  # noqa: F401
    except ImportError:
        failures.append("no PyYAML")
        print("FAIL no Python yaml module: run scripts/install-deps.sh (python3-yaml)")
        return summary()
    import example_checks
    env = kubectl_env(options.workdir)
    objects = build_kustomizations(kubectl, options.source, env)
    check_every_file_built(options.source)
    secret = example_checks.documented_secret(kubectl, options.source, env)
    known = {}
    for pair in options.binary:
        name, path = pair.split("=", 1)
        known[name] = help_options([path])
    node_args = os.path.join(options.source, "deploy/kubernetes/node_args.py")
    known["node_args.py"] = help_options([sys.executable, node_args])
    check_program_options(objects, known)
    check_volumes(objects)
    daemon = check_daemonset(objects, secret)
    check_service_monitor(objects)
    check_rbac(objects)
    check_images(objects, options.version)
    bins = {p.split("=", 1)[0]: p.split("=", 1)[1] for p in options.binary}
    example_checks.check_node_args(objects, node_args, bins["trnsim-demo"], known,
                                   options.workdir)
    example_checks.check_job(objects, daemon, options.source, options.samples)
    example_checks.check_launch_ranks(options.source, options.workdir)
    return summary(require_checks=True)


if __name__ == "__main__":
    sys.exit(main())
