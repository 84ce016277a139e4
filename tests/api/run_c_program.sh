#!/usr/bin/env bash
# Builds a C test program against an installed trnsim tree exactly as a user builds against
# /opt/aws/neuron, then runs it:
#   run_c_program.sh CC PREFIX SOURCE [CFLAGS...] -- [ARGS...]
set -euo pipefail
cc=$1 prefix=$2 src=$3
shift 3
cflags=()
while [[ $# -gt 0 && $1 != -- ]]; do cflags+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cc" -std=c11 -Wall -Wextra -Werror "$src" -I "$prefix/include" -L "$prefix/lib" -lnrt \
  -o "$work/prog" "${cflags[@]}"
LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/prog" "$@"
