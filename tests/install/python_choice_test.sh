#!/usr/bin/env bash
# install.python_choice: the build runs a Python 3 that imports numpy, not merely the first
# python3 on PATH (cmake/TrnsimPython.cmake).
#   python_choice_test.sh CMAKE GOOD_PYTHON
# GOOD_PYTHON is the interpreter the build chose (it imports numpy). Two stand-ins wrap it:
# `nonumpy/python3` runs it with -S (no site-packages, so no numpy), `good/python3` runs it as is.
#   1. nonumpy/ first on PATH, then good/: the choice skips nonumpy/python3 and takes good/;
#   2. good/ first on PATH: it is taken (PATH order is respected among fitting interpreters);
#   3. -DTRNSIM_PYTHON=nonumpy/python3: configure fails naming numpy and install-deps.sh;
#   4. -DTRNSIM_PYTHON=good/python3: taken even with nonumpy/ first on PATH.
set -euo pipefail
cmake=$1 good=$2
probe=$(cd "$(dirname "$0")/python_probe" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/trnsim-python-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/nonumpy" "$work/good"
printf '#!/bin/sh\nexec %s -S "$@"\n' "$good" > "$work/nonumpy/python3"
printf '#!/bin/sh\nexec %s "$@"\n' "$good" > "$work/good/python3"
chmod +x "$work/nonumpy/python3" "$work/good/python3"

failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
# configure NAME PATH [ARGS...]: a fresh probe build; its output in $work/NAME.log.
configure() {
  local name=$1 path=$2
  shift 2
  env PATH="$path" "$cmake" -S "$probe" -B "$work/$name" "$@" > "$work/$name.log" 2>&1
}
chosen() { cat "$work/$1/chosen.txt"; }

configure skip "$work/nonumpy:$work/good:/usr/bin:/bin" || fail "skip: $(cat "$work/skip.log")"
[[ $(chosen skip) == "$work/good/python3" ]] || fail "skip: chose '$(chosen skip)'"

configure order "$work/good:$work/nonumpy:/usr/bin:/bin" || fail "order: $(cat "$work/order.log")"
[[ $(chosen order) == "$work/good/python3" ]] || fail "order: chose '$(chosen order)'"

if configure forced_bad "$work/good:/usr/bin:/bin" -DTRNSIM_PYTHON="$work/nonumpy/python3"; then
  fail "forced_bad: configure accepted an interpreter without numpy"
else
  log=$(cat "$work/forced_bad.log")
  [[ $log == *"No module named 'numpy'"* && $log == *scripts/install-deps.sh* ]] ||
    fail "forced_bad: the error does not name numpy and scripts/install-deps.sh: $log"
fi

configure forced_good "$work/nonumpy:/usr/bin:/bin" -DTRNSIM_PYTHON="$work/good/python3" ||
  fail "forced_good: $(cat "$work/forced_good.log")"
[[ $(chosen forced_good) == "$work/good/python3" ]] || fail "forced_good: chose '$(chosen forced_good)'"

echo "install.python_choice: 4 cases, $failures failed"
[[ $failures -eq 0 ]]
