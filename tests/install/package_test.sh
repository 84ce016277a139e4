#!/usr/bin/env bash
# package.deb: the Debian package, built and taken apart without installing anything.
#   package_test.sh BUILD_DIR VERSION CC
# 1. cpack (CPackConfig.cmake of BUILD_DIR) builds trnsim_VERSION_amd64.deb into a temporary
#    folder; the time it takes is printed.
# 2. Control fields (dpkg-deb -f): Package, Version, Architecture, Depends naming the
#    runtime packages of gRPC, protobuf and abseil (computed by dpkg-shlibdeps), and Recommends
#    naming the Python the NKI front end was built for and numpy.
# 3. Control files (dpkg-deb -e): postinst, prerm, postrm executable and `sh -n` clean;
#    conffiles lists the two /etc files. Then the scripts run (install, upgrade, remove, purge)
#    in a private mount namespace over an empty tmpfs /etc, with stubs for the commands that
#    change the system: group created once, token 64 hex digits root:neuron 0640 kept over an
#    upgrade and removed by purge only, ldconfig run (skipped without root or unshare).
# 4. Contents (dpkg-deb -x): opt/trnsim/ holds exactly what `cmake --install` lays out (so
#    nothing installed is missing from the package), the system files are exactly the
#    ld.so.conf.d entry, /etc/default/neurond, the two units and the tmpfiles.d entry, and the
#    programs are stripped.
# 5. The unpacked programs answer --version with an empty environment and load the unpacked
#    libnrt.so.1 through their RUNPATH; a C client built with -I/-L into the unpacked tree runs;
#    Debian's python3 imports the unpacked _trnsim_nki, which loads the unpacked libnrt.so.1.
# 6. The unpacked neurond, socket-activated by systemd-socket-activate on a temporary socket
#    with a token file, serves that client through TRNSIM_DAEMON and TRNSIM_TOKEN_FILE.
# 7. systemd-analyze verify accepts the unit files, silently (with the unpacked tree as --root).
# Prints one FAIL line per problem and exits 1 if there was any.
set -euo pipefail
build=$(cd "$1" && pwd) version=$2 cc=$3
here=$(cd "$(dirname "$0")" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/trnsim-deb-XXXXXX")
daemon_pid=""
cleanup() {
  [[ -n $daemon_pid ]] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
clean_env() { env -i PATH=/usr/bin:/bin "$@"; }

# 1. Build.
start_ms=$(( $(date +%s%N) / 1000000 ))
if ! cpack --config "$build/CPackConfig.cmake" -B "$work/out" > "$work/cpack.log" 2>&1; then
  cat "$work/cpack.log"
  echo "FAIL cpack"
  exit 1
fi
elapsed_ms=$(( $(date +%s%N) / 1000000 - start_ms ))
deb="$work/out/trnsim_${version}_amd64.deb"
if [[ ! -f $deb ]]; then
  echo "FAIL no $deb; cpack made: $(ls "$work/out")"
  exit 1
fi
printf 'package.deb: cpack built %s (%d MiB) in %d.%d s\n' "${deb##*/}" \
  "$(( $(stat -c %s "$deb") >> 20 ))" "$((elapsed_ms / 1000))" "$((elapsed_ms % 1000 / 100))"

# 2. Control fields.
field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == trnsim ]] || fail "Package: $(field Package)"
[[ $(field Version) == "$version" ]] || fail "Version: $(field Version)"
[[ $(field Architecture) == amd64 ]] || fail "Architecture: $(field Architecture)"
depends=$(field Depends)
for package in 'libgrpc\+\+[0-9.]+' 'libprotobuf[0-9]+' 'libabsl[0-9]+' 'libarchive[0-9]+' \
               'libssl3' 'libncursesw?[0-9]+' 'libc6' 'passwd'; do
  [[ $depends =~ (^|, )$package( |,|$) ]] || fail "Depends does not name $package: $depends"
done
recommends=$(field Recommends)
python_abi=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
[[ $recommends == *"python3 (>= $python_abi)"* && $recommends == *python3-numpy* ]] ||
  fail "Recommends does not name python3 $python_abi and python3-numpy: $recommends"

# 3. Control files.
dpkg-deb -e "$deb" "$work/control"
for script in postinst prerm postrm; do
  file="$work/control/$script"
  if [[ ! -x $file ]]; then
    fail "no executable $script"
  elif ! sh -n "$file"; then
    fail "$script is not valid sh"
  fi
done
[[ $(sort "$work/control/conffiles" 2>/dev/null) == $'/etc/default/neurond\n/etc/ld.so.conf.d/trnsim.conf' ]] ||
  fail "conffiles: $(cat "$work/control/conffiles" 2>/dev/null)"

# 3b. The maintainer scripts run, in a private mount namespace whose /etc is an empty tmpfs (the
#     machine's /etc is never touched), with the commands that change the system (getent,
#     groupadd, chown, ldconfig, systemctl, systemd-tmpfiles) replaced by stubs that log.
if [[ $(id -u) -eq 0 ]] && unshare -m true 2>/dev/null; then
  stubs="$work/stubs" state="$work/stub-state"
  mkdir -p "$stubs" "$state"
  stub() { printf '#!/bin/sh\n%s\n' "$2" > "$stubs/$1"; chmod +x "$stubs/$1"; }
  stub getent "[ \"\$1 \$2\" = 'group neuron' ] && [ -f '$state/group' ]"
  stub groupadd "echo \"groupadd \$*\" >> '$state/log'; touch '$state/group'"
  for command in chown ldconfig systemctl systemd-tmpfiles; do
    stub "$command" "echo \"$command \$*\" >> '$state/log'"
  done
  cat > "$work/scripts_test.sh" <<SCRIPT
set -eu
mount -t tmpfs tmpfs /etc
export PATH="$stubs:/usr/bin:/bin"
control="$work/control" log="$state/log" token=/etc/trnsim/neurond.token
sh "\$control/postinst" configure
first=\$(cat "\$token")
echo "\$first" | grep -qx '[0-9a-f]\{64\}' || { echo "FAIL postinst: token '\$first'"; exit 1; }
[ "\$(stat -c %a "\$token")" = 640 ] || { echo "FAIL postinst: token mode \$(stat -c %a "\$token")"; exit 1; }
grep -qx 'groupadd --system neuron' "\$log" || { echo "FAIL postinst: no groupadd"; exit 1; }
grep -qx "chown root:neuron \$token" "\$log" || { echo "FAIL postinst: token not given to neuron"; exit 1; }
grep -qx 'ldconfig ' "\$log" || { echo "FAIL postinst: no ldconfig"; exit 1; }
# An upgrade: the group exists, the token is kept.
sh "\$control/prerm" upgrade
sh "\$control/postrm" upgrade
sh "\$control/postinst" configure
[ "\$(cat "\$token")" = "\$first" ] || { echo "FAIL postinst: the token changed on upgrade"; exit 1; }
[ "\$(grep -c groupadd "\$log")" = 1 ] || { echo "FAIL postinst: groupadd although the group exists"; exit 1; }
sh "\$control/prerm" remove
sh "\$control/postrm" remove
[ -s "\$token" ] || { echo "FAIL postrm remove deleted the token"; exit 1; }
sh "\$control/postrm" purge
[ ! -e "\$token" ] && [ ! -e /etc/trnsim ] || { echo "FAIL postrm purge left /etc/trnsim"; exit 1; }
echo scripts-ok
SCRIPT
  if ! out=$(unshare -m sh "$work/scripts_test.sh" 2>&1) || [[ $out != *scripts-ok ]]; then
    fail "maintainer scripts: $out"
  fi
else
  echo "package.deb: SKIPPED running the maintainer scripts (needs root and unshare -m)"
fi

# 4. Contents.
root="$work/root"
dpkg-deb -x "$deb" "$root"
prefix="$root/opt/trnsim"
cmake --install "$build" --prefix "$work/reference" > /dev/null
listing() { (cd "$1" && find . \( -type f -o -type l \) | sort); }
if ! diff <(listing "$work/reference") <(listing "$prefix") > "$work/contents.diff"; then
  fail "opt/trnsim differs from cmake --install (< install only, > package only):"
  cat "$work/contents.diff"
fi
system_files=$(cd "$root" && find . \( -type f -o -type l \) -not -path './opt/trnsim/*' | sort)
expected_system=$'./etc/default/neurond\n./etc/ld.so.conf.d/trnsim.conf\n./lib/systemd/system/neurond.service\n./lib/systemd/system/neurond.socket\n./usr/lib/tmpfiles.d/trnsim.conf'
[[ $system_files == "$expected_system" ]] || fail "files outside /opt/trnsim: $system_files"
[[ $(grep -v '^#' "$root/etc/ld.so.conf.d/trnsim.conf") == /opt/trnsim/lib ]] ||
  fail "ld.so.conf.d/trnsim.conf: $(cat "$root/etc/ld.so.conf.d/trnsim.conf")"
for file in lib/libnrt.so lib/libnrt.so.1 lib/libnrt.so.2.31.0.0 include/nrt/nrt.h \
            include/ndl/neuron_driver_shared_tensor_batch_op.h include/trnsim/trnsim.h \
            lib/cmake/trnsim/trnsimConfig.cmake lib/cmake/trnsim/trnsimConfigVersion.cmake \
            lib/pkgconfig/libnrt.pc share/trnsim/neff/manifest.json \
            share/trnsim/neff/attention_bf16.neff share/doc/trnsim/README.md \
            share/doc/trnsim/docs/install.md bin/neurond bin/neuron-ls bin/neuron-profile \
            bin/trnsim-device-plugin share/trnsim/neff/allgather_fp32_w8_lnc2.neff \
            lib/python3/dist-packages/trnsim_nki/__init__.py; do
  [[ -e $prefix/$file ]] || fail "the package has no /opt/trnsim/$file"
done
site="$prefix/lib/python3/dist-packages"
modules=("$site"/_trnsim_nki.*.so)
[[ -f ${modules[0]} ]] || fail "the package has no _trnsim_nki module: $(ls "$site" 2>&1)"
for program in "$prefix"/bin/* "$prefix/lib/libnrt.so.2.31.0.0" "${modules[0]}"; do
  if readelf -S "$program" | grep -q '\.debug_info'; then
    fail "${program#"$root"} is not stripped"
  fi
done

# 5. The unpacked programs and a C client against the unpacked library.
for program in "$prefix"/bin/*; do
  name=${program##*/}
  line=$(clean_env "$program" --version 2>&1) ||
    { fail "unpacked $name --version: $line"; continue; }
  [[ $line == "$name (trnsim) $version, git "* ]] || fail "unpacked $name --version: $line"
  if readelf -d "$program" | grep -q 'NEEDED.*\[libnrt\.so\.1\]'; then
    resolved=$(clean_env LD_TRACE_LOADED_OBJECTS=1 "$program" |
               sed -n 's/.*libnrt\.so\.1 => \([^ ]*\).*/\1/p')
    [[ -n $resolved && $(realpath -s "$resolved") == "$prefix/lib/libnrt.so.1" ]] ||
      fail "unpacked $name loads libnrt.so.1 from '$resolved'"
  fi
done
"$cc" -std=c11 -Wall -Wextra -Werror "$here/client.c" -I "$prefix/include" -L "$prefix/lib" \
  -lnrt -o "$work/client"
client=(clean_env LD_LIBRARY_PATH="$prefix/lib" TRNSIM_INSTANCE=trn2.3xlarge "$work/client")
"${client[@]}" 4 "$version" || fail "the C client against the unpacked library"
if ! out=$(clean_env PYTHONPATH="$site" /usr/bin/python3 -c '
import os, sys
import _trnsim_nki as native
assert native.chip_info("trn2")["partitions"] == 128
assert native.runtime_info()["instance"] == "trn2.48xlarge"
libnrt = {line.split()[-1] for line in open("/proc/self/maps") if "libnrt.so" in line}
assert [os.path.dirname(p) for p in libnrt] == [sys.argv[1] + "/lib"], libnrt
print("python ok")
' "$(realpath "$prefix")" 2>&1) || [[ $out != "python ok" ]]; then
  fail "_trnsim_nki from the unpacked tree: $out"
fi

# 6. The unpacked neurond under socket activation, the client with TRNSIM_TOKEN_FILE.
activate=/usr/bin/systemd-socket-activate
if [[ -x $activate ]]; then
  head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/token"
  socket="$work/neurond.sock"
  "$activate" -l "$socket" "$prefix/bin/neurond" --listen "unix:$socket" \
    --instance trn2.3xlarge --token-file "$work/token" > "$work/neurond.log" 2>&1 &
  daemon_pid=$!
  for _ in $(seq 500); do [[ -S $socket ]] && break; sleep 0.01; done
  # The first connection starts neurond; without a token it is refused.
  if clean_env LD_LIBRARY_PATH="$prefix/lib" TRNSIM_DAEMON="unix:$socket" "$work/client" 4 \
      "$version" 2> "$work/client.err"; then
    fail "a client without the token was served"
  fi
  grep -q "TRNSIM_TOKEN" "$work/client.err" ||
    fail "the refusal does not name TRNSIM_TOKEN: $(cat "$work/client.err")"
  clean_env LD_LIBRARY_PATH="$prefix/lib" TRNSIM_DAEMON="unix:$socket" \
    TRNSIM_TOKEN_FILE="$work/token" "$work/client" 4 "$version" ||
    fail "the C client through the socket-activated neurond: $(cat "$work/neurond.log")"
  kill "$daemon_pid"
  wait "$daemon_pid" || fail "neurond did not exit 0 on SIGTERM: $(cat "$work/neurond.log")"
  daemon_pid=""
  grep -q "socket from systemd" "$work/neurond.log" ||
    fail "neurond did not serve the passed socket: $(cat "$work/neurond.log")"
else
  echo "package.deb: SKIPPED the socket-activated daemon: $activate is missing (package systemd)"
fi

# 7. The unit files, in the unpacked tree (so ExecStart= names the unpacked neurond), next to a
#    copy of this machine's units (the targets they are ordered against). Unknown keys and
#    missing programs are reported as output even when the exit status is 0: any output fails.
if [[ -x /usr/bin/systemd-analyze && -d /lib/systemd/system ]]; then
  mkdir -p "$root/usr/lib/systemd"
  cp -r /lib/systemd/system "$root/usr/lib/systemd/system"
  if ! out=$(systemd-analyze verify --root="$root" \
      /lib/systemd/system/neurond.socket /lib/systemd/system/neurond.service 2>&1); then
    fail "systemd-analyze verify: $out"
  elif [[ -n $out ]]; then
    fail "systemd-analyze verify warns: $out"
  fi
else
  echo "package.deb: SKIPPED systemd-analyze verify: no /usr/bin/systemd-analyze or /lib/systemd/system"
fi

echo "package.deb: $failures failed"
[[ $failures -eq 0 ]]
