#!/usr/bin/env python3
"""neuron-top driven in a real terminal (tmux, 200x60), as a person would use it.

  neuron_top_tmux_test.py errors NEURON_TOP WORKDIR
      an unknown argument exits 2 with a usage hint; a malformed setting, no terminal or an
      unknown TERM exits 1 with one line.
  neuron_top_tmux_test.py local NEURON_TOP WORKDIR
      no daemon: the configured trn2.48xlarge at LNC 1 — title, 16 rows ND0..ND15 of NC0..NC7,
      the only tab [1]:all; a resize to 50x12 and back keeps it drawing; q exits 0.
  neuron_top_tmux_test.py remote NEURON_TOP NEUROND CC PREFIX BUSY_CLIENT_SRC WORKDIR
      a neurond of its own (trn2.3xlarge, unix socket) and two busy_clients (tests/api) executing
      vector_add (LNC 2) in a loop on logical cores 0 and 1: title with the instance type, the
      utilisation grid (ND0, NC0..NC3), tabs [1]:all [2]:<pid> [3]:<pid>; keys 2, d, a switch
      tabs; x expands the tree (ND, NC, categories) and collapses it; Enter toggles the selected
      node; f switches the grid to TFLOPS and back; keys still work while the daemon is stopped
      (SIGSTOP) mid-refresh; once the clients and the daemon are gone
      the status line shows the daemon unreachable and neuron-top keeps running; q exits 0 and
      the pane's process ends.
The screen is polled with capture-pane until what is awaited shows, never with fixed sleeps.
Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../api"))
import neurond_fixture  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../python"))
from trnsim_checks import clean_env, expect, summary  # noqa: E402

WAIT_S = 20  # for anything to show on the screen
NEFF = "vector_add_fp32_lnc2.neff"  # an LNC 2 sample, for the v3d grid


class Tmux:
    """One tmux server of our own (socket in WORKDIR) running neuron-top in a 200x60 pane."""

    def __init__(self, workdir, command, env):
        self.socket = os.path.join(workdir, "tmux.sock")
        self.exit_file = os.path.join(workdir, "exit_status")
        if os.path.exists(self.exit_file):
            os.unlink(self.exit_file)
        self.run("kill-server", check=False)
        assignments = " ".join(f"{k}={shq(v)}" for k, v in env.items())
        # The exit status is written to a file: the pane (and the session) end with the program.
        script = f"env -i {assignments} {command}; echo $? > {shq(self.exit_file)}"
        self.run("new-session", "-d", "-x", "200", "-y", "60", "-s", "top", "sh", "-c", script)

    def run(self, *args, check=True):
        return subprocess.run(["tmux", "-S", self.socket] + list(args), capture_output=True,
                              text=True, check=check, env=dict(os.environ, TERM="xterm"),
                              timeout=30)

    def screen(self):
        out = self.run("capture-pane", "-p", "-t", "top", check=False)
        return out.stdout if out.returncode == 0 else ""

    def keys(self, *keys):
        self.run("send-keys", "-t", "top", *keys)

    def wait_for(self, predicate, what, timeout=WAIT_S):
        """The screen once predicate(screen) holds; a failure (with the last screen) if never."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if predicate(screen):
                expect(True, what)
                return screen
            if time.monotonic() > deadline:
                expect(False, f"{what}; the screen was:\n{screen}")
                return screen
            time.sleep(0.1)

    def alive(self):
        return self.run("has-session", "-t", "top", check=False).returncode == 0

    def wait_exit(self, timeout=WAIT_S):
        """neuron-top's exit status once the pane has ended, or None."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive() and os.path.exists(self.exit_file):
                with open(self.exit_file) as f:
                    return f.read().strip()
            time.sleep(0.1)
        return None

    def close(self):
        self.run("kill-server", check=False)


def shq(text):
    return "'" + text.replace("'", "'\\''") + "'"


def has(pattern):
    return lambda screen: re.search(pattern, screen, re.M) is not None


def lines_matching(screen, pattern):
    return [line for line in screen.splitlines() if re.match(pattern, line)]


def errors(binary, workdir):
    proc = subprocess.run([binary, "--no-such-option"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=30, env=clean_env())
    expect(proc.returncode == 2 and "--no-such-option" in proc.stderr and "--help" in
           proc.stderr and proc.stdout == "",
           f"unknown argument: {proc.returncode} {proc.stderr!r}")
    proc = subprocess.run([binary, "--refresh-period", "0"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=30, env=clean_env())
    expect(proc.returncode == 2, f"--refresh-period 0: {proc.returncode} {proc.stderr!r}")
    proc = subprocess.run([binary], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=30, env=clean_env())
    expect(proc.returncode == 1 and proc.stderr.count("\n") == 1 and
           proc.stderr.startswith("neuron-top: ") and "terminal" in proc.stderr,
           f"no terminal: {proc.returncode} {proc.stderr!r}")
    for env, word in (({"NEURON_LOGICAL_NC_CONFIG": "3"}, "NEURON_LOGICAL_NC_CONFIG"),
                      ({"TRNSIM_DAEMON": "nonsense"}, "daemon address"),
                      ({"TRNSIM_INSTANCE": "trn9.huge"}, "trn9.huge")):
        proc = subprocess.run([binary], capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL, env=clean_env(**env))
        expect(proc.returncode == 1 and proc.stderr.count("\n") == 1 and
               proc.stderr.startswith("neuron-top: ") and word in proc.stderr,
               f"{env}: want exit 1 and one line naming {word!r}: {proc.returncode} "
               f"{proc.stderr!r}")
    # A terminal ncurses does not know (on a pty, so that it is a terminal).
    primary, secondary = pty.openpty()
    proc = subprocess.run([binary], stdin=secondary, stdout=secondary, stderr=subprocess.PIPE,
                          text=True, timeout=30, env=clean_env(TERM="no-such-terminal"))
    os.close(secondary)
    os.close(primary)
    expect(proc.returncode == 1 and proc.stderr.count("\n") == 1 and
           "cannot drive this terminal" in proc.stderr,
           f"unknown TERM: {proc.returncode} {proc.stderr!r}")
    proc = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30,
                          env=clean_env())
    expect(proc.returncode == 0 and "--refresh-period" in proc.stdout, "--help")


def local(binary, workdir):
    env = clean_env(TRNSIM_INSTANCE="trn2.48xlarge", NEURON_LOGICAL_NC_CONFIG="1")
    env["TERM"] = "xterm"
    tmux = Tmux(workdir, shq(binary), env)
    try:
        screen = tmux.wait_for(has(r"^neuron-top \S+ running on i-0[0-9a-f]{16} "
                                   r"\(trn2\.48xlarge\)"), "title of the configured instance")
        screen = tmux.wait_for(has(r"^ND15 "), "a row per device")
        rows = lines_matching(screen, r"ND\d+ ")
        expect([r.split()[0] for r in rows] == [f"ND{d}" for d in range(16)] and
               all(r.count("%]") == 8 for r in rows), f"16 rows of 8 cells: {rows[:2]}")
        expect(re.search(r"^NeuronCore v3 Utilization \(Avg: 0\.00%\)", screen, re.M),
               "v3 at LNC 1, idle")
        header = next((line for line in screen.splitlines() if "NC0" in line), "")
        expect(header.split() == [f"NC{c}" for c in range(8)], f"NC columns: {header!r}")
        expect(">[1]:all<" in screen and "[2]:" not in screen, "only the all tab")
        expect("no processes" in screen, "the status line says where the data comes from")
        tmux.run("resize-window", "-t", "top", "-x", "50", "-y", "12")
        # Redrawn for 50x12, not just cut by tmux: the three bottom lines moved up to rows 9-11.
        tmux.wait_for(lambda s: s.startswith("neuron-top") and len(s.splitlines()) >= 12 and
                      s.splitlines()[9].startswith("Neuron Apps >[1]:all<") and
                      s.splitlines()[11].startswith("the configured instance"), "drawn at 50x12")
        tmux.run("resize-window", "-t", "top", "-x", "200", "-y", "60")
        tmux.wait_for(has(r"^ND15 "), "back at 200x60")
        tmux.keys("q")
        expect(tmux.wait_exit() == "0", "q exits with status 0")
    finally:
        tmux.close()


def remote(binary, neurond, cc, prefix, source, workdir):
    busy_client = os.path.join(workdir, "busy_client")
    subprocess.run([cc, "-std=c11", "-O2", source, "-I", os.path.join(prefix, "include"),
                    "-L", os.path.join(prefix, "lib"), "-lnrt", "-o", busy_client], check=True)
    base = os.path.join(workdir, "neurond")
    address = "unix:" + base + ".sock"
    if not expect(neurond_fixture.start(neurond, base, "trn2.3xlarge") == 0, "neurond started"):
        return
    clients = []
    tmux = None
    daemon_up = True
    try:
        neff = os.path.join(prefix, "share", "trnsim", "neff", NEFF)
        for core in (0, 1):
            env = clean_env(TRNSIM_DAEMON=address, NEURON_LOGICAL_NC_CONFIG="2",
                            NEURON_RT_VISIBLE_CORES=str(core),
                            LD_LIBRARY_PATH=os.path.join(prefix, "lib"))
            proc = subprocess.Popen([busy_client, neff], env=env, stdout=subprocess.PIPE,
                                    text=True)
            clients.append(proc)
            if not expect(proc.stdout.readline().strip() == "loaded",
                          f"client on core {core} loaded"):
                return
        pids = [str(c.pid) for c in clients]
        env = clean_env(TRNSIM_DAEMON=address, NEURON_LOGICAL_NC_CONFIG="2", TERM="xterm")
        tmux = Tmux(workdir, shq(binary), env)
        screen = tmux.wait_for(has(r"^neuron-top \S+ running on i-0[0-9a-f]{16} "
                                   r"\(trn2\.3xlarge\)"), "title with the daemon's instance")
        screen = tmux.wait_for(has(r"\[3\]:\d+"), "a tab per client")
        if not re.search(r"\[3\]:\d+", screen):
            return
        expect(re.search(r"^NeuronCore v3d Utilization \(Avg: \d+\.\d\d%\)", screen, re.M),
               "utilisation panel, v3d at LNC 2")
        header = next((line for line in screen.splitlines() if "NC0" in line), "")
        expect(header.split() == ["NC0", "NC1", "NC2", "NC3"], f"NC columns: {header!r}")
        rows = lines_matching(screen, r"ND\d+ ")
        expect(len(rows) == 1 and rows[0].startswith("ND0") and rows[0].count("%]") == 4,
               f"one device row of four cells: {rows}")
        expect(re.search(r"Neuron Apps >\[1\]:all< +\[2\]:(\d+) +\[3\]:(\d+)", screen) and
               sorted(re.findall(r"\[[23]\]:(\d+)", screen)) == sorted(pids),
               f"tabs [1]:all and the clients {pids}")
        for label in ("vCPU Utilization", "System vCPU Usage", "Runtime vCPU Usage",
                      "Memory Usage Summary", "Host Used Memory", "Device Used Memory",
                      "Memory Usage Details", "q: quit", "1-9: select tab"):
            expect(label in screen, f"{label!r} on the screen")
        expect(re.search(r"^Device Used Memory +Total: [1-9]", screen, re.M),
               "the clients' device memory in the summary")
        def busy_cells(screen):
            rows = lines_matching(screen, r"ND0 ")
            return [float(v) for v in re.findall(r"\[ *(\d+\.\d\d)%\]", rows[0])] if rows else []
        screen = tmux.wait_for(lambda s: sum(v > 0 for v in busy_cells(s)) == 2,
                               "the two clients' cores busy, the others idle")
        cells = busy_cells(screen)
        expect(len(cells) == 4 and cells[0] > 0 and cells[1] > 0 and cells[2] == cells[3] == 0,
               f"utilisation of NC0, NC1 (busy clients) > 0, NC2, NC3 idle: {cells}")
        tab2 = re.search(r"\[2\]:(\d+)", screen).group(1)
        tab3 = re.search(r"\[3\]:(\d+)", screen).group(1)

        tmux.keys("2")
        tmux.wait_for(has(rf">\[2\]:{tab2}<"), "2 selects the first client's tab")
        tmux.keys("d")
        tmux.wait_for(has(rf">\[3\]:{tab3}<"), "d: next tab")
        tmux.keys("a")
        screen = tmux.wait_for(has(rf">\[2\]:{tab2}<"), "a: previous tab")
        expect(re.search(r"^\[\+\] ND 0", screen, re.M) and "NC 0" not in screen,
               "the tree starts collapsed at ND 0")

        tmux.keys("x")
        screen = tmux.wait_for(has(r"^ +\[-\] NC \d"), "x expands the tree")
        expect(re.search(r"^\[-\] ND 0", screen, re.M), "ND 0 expanded")
        for category in ("Tensors", "Constants", "Model Code", "Runtime Memory",
                         "Model Scratchpad"):
            expect(re.search(rf"^ {{4,}}{category} +", screen, re.M), f"category {category}")
        expect(lines_matching(screen, r"ND 1") == [], "one client's tab: its device only")
        model = NEFF[:-len(".neff")]
        expect(re.search(rf"^ +\[[-+]\] {model} +1 ", screen, re.M),
               f"the client's model {model} with its model id 1 under its NC")
        tmux.keys("Enter")  # the selection is the first row, ND 0
        screen = tmux.wait_for(has(r"^\[\+\] ND 0"), "Enter collapses the selected node")
        expect("NC 0" not in screen and not re.search(r"^ +Tensors", screen, re.M),
               "its children hidden")
        tmux.keys("Enter")
        tmux.wait_for(lambda s: re.search(r"^\[-\] ND 0", s, re.M) and
                      re.search(r"^ +Tensors", s, re.M), "Enter expands it again")
        tmux.keys("x")
        tmux.wait_for(lambda s: re.search(r"^\[\+\] ND 0", s, re.M) and
                      not re.search(r"^ +Tensors", s, re.M), "x collapses everything")

        tmux.keys("f")
        screen = tmux.wait_for(has(r"^NeuronCore v3d TFLOPS \(Avg: \d+\.\d+\)"),
                               "f switches the grid to TFLOPS")
        expect(lines_matching(screen, r"ND0 ")[0].count("TF]") == 4, "TFLOPS cells")
        tmux.keys("f")
        tmux.wait_for(has(r"^NeuronCore v3d Utilization"), "f switches back")

        # A daemon that does not answer (stopped) holds up the refresh thread, not the keys.
        with open(base + ".pid") as f:
            daemon_pid = int(f.read())
        os.kill(daemon_pid, signal.SIGSTOP)
        try:
            time.sleep(1.5)  # a refresh is now waiting on the daemon
            tmux.keys("3")
            tmux.wait_for(has(rf">\[3\]:{tab3}<"), "keys work while the daemon does not answer",
                          timeout=5)
        finally:
            os.kill(daemon_pid, signal.SIGCONT)

        # The daemon goes away: the status line says so and neuron-top keeps running.
        for c in clients:
            c.kill()
            c.wait()
        expect(neurond_fixture.stop(base) == 0, "daemon stopped with SIGTERM")
        daemon_up = False
        tmux.wait_for(has(r"^retrying every 1 s: neurond at unix:.* is unreachable"),
                      "an unreachable daemon in the status line")
        expect(tmux.alive(), "neuron-top still runs without its daemon")
        tmux.keys("q")
        expect(tmux.wait_exit() == "0", "q exits with status 0 and the pane ends")
    finally:
        if tmux is not None:
            tmux.close()
        for c in clients:
            if c.poll() is None:
                c.kill()
                c.wait()
        if daemon_up:
            neurond_fixture.stop(base)


def main():
    if shutil.which("tmux") is None and sys.argv[1] != "errors":
        print("tmux is not installed (scripts/install-deps.sh installs it)")
        print("0 passed, 1 failed")
        return 1
    mode = sys.argv[1]
    workdir = sys.argv[-1]
    os.makedirs(workdir, exist_ok=True)
    if mode == "errors":
        errors(sys.argv[2], workdir)
    elif mode == "local":
        local(sys.argv[2], workdir)
    elif mode == "remote":
        remote(*sys.argv[2:8])
    else:
        print(__doc__)
        return 2
    return summary()


if __name__ == "__main__":
    sys.exit(main())
