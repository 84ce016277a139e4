#!/usr/bin/env bash
# Installs the trnsim .deb with apt-get into a fresh Debian 12 (bookworm) root made by
# debootstrap, as a new user's machine would, then checks what the package promises there:
# Depends pulled in by apt, the `neuron` group and the token, libnrt found through
# /etc/ld.so.conf.d (a C client linked with -lnrt runs without LD_LIBRARY_PATH), the tools,
# and the NKI front end's module with the python3 and numpy its Recommends pulled in.
#
#   scripts/check-deb-fresh-debian.sh DEB [ROOT]      (root; needs the Debian mirror: not in make test)
#
# ROOT (default: a new temporary directory) is reused when it already holds a debootstrap.
set -euo pipefail
deb=$(realpath "$1")
root=${2:-$(mktemp -d /tmp/trnsim-deb12.XXXXXX)}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
here=$(cd "$(dirname "$0")/.." && pwd)

if [[ ! -x $root/usr/bin/apt-get ]]; then
  echo "check-deb: debootstrap bookworm into $root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log"
fi
cp "$deb" "$root/root/trnsim.deb"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
trap 'umount "$root/proc"' EXIT

chroot "$root" /bin/bash -c 'DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /root/trnsim.deb > /root/apt.log'
# A C client built against the unpacked headers, run in the root with no LD_LIBRARY_PATH.
cc -std=c11 -O2 "$here/tools/first_app/first_app.c" -I "$root/opt/trnsim/include" \
  -L "$root/opt/trnsim/lib" -lnrt -lm -o "$root/root/first_app"
chroot "$root" /bin/bash -euo pipefail -c '
  getent group neuron > /dev/null
  [[ $(stat -c "%U:%G %a" /etc/trnsim/neurond.token) == "root:neuron 640" ]]
  ldd /root/first_app | grep -q "libnrt.so.1 => /opt/trnsim/lib/libnrt.so.1"
  for tool in /opt/trnsim/bin/*; do "$tool" --version > /dev/null; done
  NEURON_LOGICAL_NC_CONFIG=1 /root/first_app /opt/trnsim/share/trnsim/neff/attention_bf16.neff \
    | tail -1 | grep -q "1 of 1 models PASS"
  PYTHONPATH=/opt/trnsim/lib/python3/dist-packages python3 -c "
import numpy, _trnsim_nki as native
assert native.runtime_info()[\"chip\"] == \"trn2\""'
echo "check-deb: $(basename "$deb") installs and runs on a fresh Debian 12 ($root)"
