#!/usr/bin/env bash
# install.programs: the installed product starts on its own (docs/install.md, "Verifying").
#   install_test.sh BUILD_DIR VERSION
# Installs the build into a fresh temporary prefix (every component `cmake --install` installs
# by default) and, with an empty environment (env -i PATH=/usr/bin:/bin):
#   - runs every program the install put in bin/ (the list comes from the install, so a new
#     tool cannot escape) with --help and --version: exit 0, the help names the program and
#     --version, the version line is "<program> (trnsim) VERSION, git <hash>";
#   - checks RUNPATH with readelf: exactly $ORIGIN/../lib on every program, none on libnrt, no
#     RPATH anywhere; the dynamic loader resolves libnrt.so.1 of the programs that link it to
#     PREFIX/lib; no installed text file names the build directory;
#   - runs neuron-profile capture and view on an installed sample NEFF;
#   - the NKI front end: PREFIX/lib/python3/dist-packages holds _trnsim_nki (RUNPATH exactly
#     $ORIGIN/../..) and the trnsim_nki package; Debian's python3 with nothing but PYTHONPATH
#     imports both, loads libnrt.so.1 from PREFIX/lib, builds a kernel and runs it; an `import
#     nki` kernel traces, runs and matches numpy.
# Prints one FAIL line per problem and exits 1 if there was any.
set -euo pipefail
build=$(cd "$1" && pwd) version=$2

prefix=$(mktemp -d "${TMPDIR:-/tmp}/trnsim-install-XXXXXX")
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null

failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
clean_env() { env -i PATH=/usr/bin:/bin "$@"; }

programs=("$prefix"/bin/*)
if [[ ${#programs[@]} -lt 7 ]]; then
  fail "bin/ holds ${#programs[@]} programs: ${programs[*]##*/}"
fi
for program in "${programs[@]}"; do
  name=${program##*/}
  if ! help=$(clean_env "$program" --help 2>&1); then
    fail "$name --help exits non-zero: $help"
  elif [[ $help != *"$name"* || $help != *--version* ]]; then
    fail "$name --help does not name the program and --version: $help"
  fi
  if ! line=$(clean_env "$program" --version 2>&1); then
    fail "$name --version exits non-zero: $line"
  elif ! [[ $line =~ ^"$name (trnsim) $version, git "([0-9a-f]{40}|unknown)$ ]]; then
    fail "$name --version prints '$line'"
  fi
done

# RUNPATH / RPATH of everything ELF that was installed.
dynamic() { readelf -d "$1" 2>/dev/null | sed -n "s/.*($2).*\[\(.*\)\]$/\1/p"; }
for file in "$prefix"/bin/* "$prefix"/lib/libnrt.so.*; do
  [[ -L $file ]] && continue
  rpath=$(dynamic "$file" RPATH)
  runpath=$(dynamic "$file" RUNPATH)
  [[ -z $rpath ]] || fail "${file#"$prefix"/} has an RPATH ($rpath)"
  case $file in
    "$prefix"/bin/*) [[ $runpath == '$ORIGIN/../lib' ]] ||
                     fail "${file#"$prefix"/} has RUNPATH '$runpath', not \$ORIGIN/../lib" ;;
    *) [[ -z $runpath ]] || fail "${file#"$prefix"/} has RUNPATH '$runpath'" ;;
  esac
done
linking=0
for program in "${programs[@]}"; do
  readelf -d "$program" | grep -q 'NEEDED.*\[libnrt\.so\.1\]' || continue
  linking=$((linking + 1))
  resolved=$(clean_env LD_TRACE_LOADED_OBJECTS=1 "$program" | sed -n 's/.*libnrt\.so\.1 => \([^ ]*\).*/\1/p')
  [[ -n $resolved && $(realpath -s "$resolved") == "$prefix/lib/libnrt.so.1" ]] ||
    fail "${program##*/} loads libnrt.so.1 from '$resolved', not $prefix/lib"
done
[[ $linking -ge 2 ]] || fail "only $linking programs link libnrt.so.1 (trnsim-demo, neuron-profile do)"
if leaks=$(grep -rlI -- "$build" "$prefix"); then
  fail "installed files name the build directory: $leaks"
fi

# The NKI front end from the prefix.
site="$prefix/lib/python3/dist-packages"
modules=("$site"/_trnsim_nki.*.so)
if [[ ! -f ${modules[0]} ]]; then
  fail "no _trnsim_nki module in ${site#"$prefix"/}: $(ls "$site" 2>&1)"
else
  [[ -z $(dynamic "${modules[0]}" RPATH) ]] || fail "${modules[0]#"$prefix"/} has an RPATH"
  runpath=$(dynamic "${modules[0]}" RUNPATH)
  [[ $runpath == '$ORIGIN/../..' ]] ||
    fail "${modules[0]#"$prefix"/} has RUNPATH '$runpath', not \$ORIGIN/../.."
  [[ -f $site/trnsim_nki/__init__.py ]] || fail "no trnsim_nki package in ${site#"$prefix"/}"
  if ! out=$(clean_env NEURON_LOGICAL_NC_CONFIG=1 PYTHONPATH="$site" /usr/bin/python3 -c '
import os, sys
import _trnsim_nki as native, trnsim_nki
prefix = os.path.realpath(sys.argv[1])
for module in (native, trnsim_nki):
    assert os.path.realpath(module.__file__).startswith(prefix + "/"), module.__file__
assert native.runtime_info()["lnc"] == 1
libnrt = {line.split()[-1] for line in open("/proc/self/maps") if "libnrt.so" in line}
assert [os.path.dirname(os.path.realpath(p)) for p in libnrt] == [prefix + "/lib"], libnrt
k = native.KernelBuilder("copy")
x, y = k.add_input("x", "fp32", [4, 8]), k.add_output("y", "fp32", [4, 8])
tile = "sbuf[p0:4, 0 + [8 x 1]] fp32"
load = k.emit(0, "sp", f"dma_copy dst={tile} src=hbm[var{x} + 0, [4 x 8, 8 x 1]] fp32 queue=0")
store = k.emit(0, "sp", f"dma_copy dst=hbm[var{y} + 0, [4 x 8, 8 x 1]] fp32 src={tile} queue=1")
k.depend((0, "sp", store), (0, "sp", load))
data = bytes(range(128))
assert native.Model.load(k.build()).execute({"x": data}) == {"y": data}
print("python ok")
' "$prefix" 2>&1) || [[ $out != "python ok" ]]; then
    fail "the NKI front end from the prefix: $out"
  fi
  # An NKI kernel as a user writes it (`import nki`), from the prefix alone.
  if ! out=$(clean_env PYTHONPATH="$site" /usr/bin/python3 -c '
import numpy as np
import nki
import nki.language as nl
import nki.isa as nisa

@nki.jit
def add(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    ta = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    tb = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)
    nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
    nisa.dma_copy(dst=out, src=ta)
    return out

a = np.arange(128 * 512, dtype=np.float32).reshape(128, 512)
assert np.array_equal(add(a, a), a + a)
assert add.report.latency_us > 0
print("nki ok")
' 2>&1) || [[ $out != "nki ok" ]]; then
    fail "an NKI kernel from the prefix: $out"
  fi
fi

# neuron-profile on an installed sample, from a scratch folder, with nothing but the emulated
# instance's LNC set (the sample is an LNC=1 kernel).
work="$prefix/work"
mkdir "$work"
neff="$prefix/share/trnsim/neff/vector_add_fp32.neff"
if ! out=$(cd "$work" && clean_env NEURON_LOGICAL_NC_CONFIG=1 "$prefix/bin/neuron-profile" capture \
    -n "$neff" -s "$work/vector_add.ntff" 2>&1); then
  fail "neuron-profile capture: $out"
elif [[ ! -s $work/vector_add.ntff ]]; then
  fail "neuron-profile capture wrote no profile: $out"
elif ! summary=$(clean_env "$prefix/bin/neuron-profile" view -s "$work/vector_add.ntff" \
    --output-format summary-json 2>&1); then
  fail "neuron-profile view: $summary"
elif ! /usr/bin/python3 -c '
import json, sys
summary = json.loads(sys.argv[1])
assert summary["model"] == "vector_add_fp32", summary["model"]
run = summary["executions"][0]
assert run["status"] == "ok" and run["total_time_ps"] > 0, run
assert sum(e["instructions"] for e in run["cores"][0]["engines"].values()) > 0, run
' "$summary"; then
  fail "neuron-profile view: an unexpected summary: $summary"
fi

echo "install.programs: ${#programs[@]} programs, $failures failed"
[[ $failures -eq 0 ]]
