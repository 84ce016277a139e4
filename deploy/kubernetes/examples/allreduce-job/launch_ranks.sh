#!/bin/sh
# One pod of the example job: this instance's ranks of one collective job across instances.
#
# Each allocated logical core (NEURON_RT_VISIBLE_CORES, from trnsim-device-plugin: "4-7",
# "0-3,8-11", ...) runs one RANK_PROGRAM process (trnsim-cc-rank: tests/api/cc_rank.c) on
# that core alone, torchrun-style:
#   RANK        JOB_COMPLETION_INDEX * cores-per-pod + i    (the Indexed Job's pod index)
#   LOCAL_RANK  i
#   WORLD_SIZE  PODS * cores-per-pod   (every pod requests the same number of cores)
#   NEURON_RT_ROOT_COMM_ID  ROOT_HOST's IPv4 address:ROOT_PORT - the cluster address of the
#               daemon on pod 0's node (its pods use hostNetwork, so the headless Service's name
#               for pod 0 resolves to that node's IP). Resolved here, once, so that every rank
#               gets the same address whichever component reads it; waits up to ROOT_WAIT_S
#               (default 120) for the name, which appears when pod 0 is scheduled.
# Exit status 0 when every rank exits 0; 1 when any fails or the root never resolves; 2 for a
# missing variable or a core list it cannot read. tests/deploy/manifests_test.py runs it.
set -eu
: "${NEURON_RT_VISIBLE_CORES:?is set by trnsim-device-plugin: request aws.amazon.com/neuroncore}"
: "${JOB_COMPLETION_INDEX:?is set by Kubernetes in an Indexed Job}"
: "${PODS:?} ${ROOT_HOST:?} ${ROOT_PORT:?} ${RANK_PROGRAM:?} ${NEFF:?}"

# "0-3,8,10-11" -> "0 1 2 3 8 10 11"; anything else (a descending range, a non-number) fails.
if ! cores=$(echo "$NEURON_RT_VISIBLE_CORES" | awk -F, '
    { for (i = 1; i <= NF; i++) {
        n = split($i, r, "-"); if (n == 1) r[2] = r[1]
        if (n > 2 || r[1] !~ /^[0-9]+$/ || r[2] !~ /^[0-9]+$/ || r[2] + 0 < r[1] + 0) exit 1
        for (c = r[1] + 0; c <= r[2] + 0; c++) printf "%d ", c } }'); then
  echo "launch_ranks: cannot read NEURON_RT_VISIBLE_CORES='$NEURON_RT_VISIBLE_CORES'" >&2
  exit 2
fi
set -- $cores
per_pod=$#
first_rank=$((JOB_COMPLETION_INDEX * per_pod))
world=$((PODS * per_pod))

waited=0
until root_ip=$(getent ahostsv4 "$ROOT_HOST" | awk 'NR == 1 { print $1 }') && [ -n "$root_ip" ]; do
  if [ "$waited" -ge "${ROOT_WAIT_S:-120}" ]; then
    echo "launch_ranks: $ROOT_HOST did not resolve within ${ROOT_WAIT_S:-120} s" >&2
    exit 1
  fi
  sleep 2
  waited=$((waited + 2))
done
export NEURON_RT_ROOT_COMM_ID="$root_ip:$ROOT_PORT"
echo "launch_ranks: pod $JOB_COMPLETION_INDEX: ranks $first_rank-$((first_rank + per_pod - 1))" \
     "of $world on cores $*, root $NEURON_RT_ROOT_COMM_ID"

i=0
pids=""
for core in $cores; do
  RANK=$((first_rank + i)) LOCAL_RANK=$i WORLD_SIZE=$world NEURON_RT_VISIBLE_CORES=$core \
    "$RANK_PROGRAM" "$NEFF" run &
  pids="$pids $!"
  i=$((i + 1))
done
status=0
for pid in $pids; do
  wait "$pid" || status=1
done
exit $status
