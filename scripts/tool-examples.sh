#!/usr/bin/env bash
# Produces the example outputs shown in docs/tools.md: the tools run against a neurond serving the
# default instance (trn2.48xlarge, LNC 2) with one client executing a sample NEFF in a loop.
#
#   scripts/tool-examples.sh [PREFIX] > examples.txt     (PREFIX: an installed trnsim tree,
#                                                         default build/test-install)
#
# Needs tmux, curl and a C compiler. Prints each example under a "=== name" line; figures such as
# utilisation, latency and CPU differ from run to run and host to host.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$root/build/test-install}
work=$(mktemp -d)
export PATH="$prefix/bin:$PATH" LD_LIBRARY_PATH="$prefix/lib"
unset TRNSIM_INSTANCE NEURON_LOGICAL_NC_CONFIG NEURON_RT_VISIBLE_CORES
daemon="" client="" monitor=""
cleanup() {
  tmux kill-session -t trnsim-examples 2>/dev/null || true
  for p in $monitor $client $daemon; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

cc -O2 -I"$prefix/include" "$root/tests/api/busy_client.c" -L"$prefix/lib" -lnrt \
  -o "$work/busy_client"
neurond --listen "unix:$work/d.sock" --instance trn2.48xlarge > "$work/d.log" 2>&1 &
daemon=$!
export TRNSIM_DAEMON="unix:$work/d.sock"
for _ in $(seq 50); do [[ -S $work/d.sock ]] && break; sleep 0.1; done
NEURON_RT_VISIBLE_CORES=5 "$work/busy_client" "$prefix/share/trnsim/neff/vector_add_bf16_lnc2.neff" \
  > "$work/client.out" &
client=$!
for _ in $(seq 100); do grep -q loaded "$work/client.out" 2>/dev/null && break; sleep 0.1; done

echo "=== neuron-ls"
neuron-ls
echo "=== neuron-top (after x)"
tmux new-session -d -s trnsim-examples -x 140 -y 48 \
  "env TRNSIM_DAEMON=$TRNSIM_DAEMON LD_LIBRARY_PATH=$LD_LIBRARY_PATH TERM=xterm neuron-top"
sleep 3
tmux send-keys -t trnsim-examples x
sleep 2
tmux capture-pane -p -t trnsim-examples | sed -e 's/[[:space:]]*$//' | cat -s
tmux send-keys -t trnsim-examples q

cat > "$work/monitor.json" <<'JSON'
{"period": "1s",
 "neuron_runtimes": [{"tag_filter": ".*", "metrics": [
   {"type": "neuroncore_counters"}, {"type": "memory_used"},
   {"type": "neuron_runtime_vcpu_usage"}, {"type": "execution_stats"}]}],
 "system_metrics": [{"type": "vcpu_usage"}, {"type": "memory_info"},
                    {"type": "neuron_hw_counters"}]}
JSON
echo "=== neuron-monitor (second report)"
neuron-monitor -c "$work/monitor.json" | head -n 2 | tail -n 1 | python3 -m json.tool
echo "=== neuron-monitor --prometheus-port (one runtime's series)"
neuron-monitor -c "$work/monitor.json" --prometheus-port 0 > /dev/null 2> "$work/prom.err" &
monitor=$!
sleep 3
port=$(sed -n 's|.*http://[^:]*:\([0-9]*\)/metrics|\1|p' "$work/prom.err")
curl -s "http://127.0.0.1:$port/metrics" |
  grep -E '^(# (HELP|TYPE) )?(neuroncore_utilization_ratio|execution_status_total|execution_latency_seconds|neuron_runtime_memory_used_bytes|neuron_hardware_info)'
echo "=== neuron-profile view --output-format summary-text"
unset TRNSIM_DAEMON
(cd "$work" && neuron-profile capture -n "$prefix/share/trnsim/neff/matmul_bf16_512.neff" \
   -s mm.ntff 2> /dev/null && neuron-profile view -s mm.ntff --output-format summary-text)
