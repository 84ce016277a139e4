#!/usr/bin/env bash
# Installs trnsim's build and test dependencies from Debian packages.
# Idempotent: when every package is already installed it does nothing (and needs no root).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config binutils lld python3
  python3-numpy python3-pytest pybind11-dev python3-dev  # the Python parts (python/)
  python3-yaml  # tests/deploy: reads the Kubernetes manifests kubectl builds
  dpkg-dev file systemd  # make deb (dpkg-shlibdeps), its test (systemd-analyze, socket activation)
  debootstrap  # make deb-check (the package on a fresh Debian 12 root)
  libgtest-dev libgmock-dev libbenchmark-dev
  libabsl-dev
  libprotobuf-dev protobuf-compiler libgrpc++-dev protobuf-compiler-grpc
  libboost-dev
  libeigen3-dev
  libopenblas-dev  # bench/: the host's own sgemm, the PE fast path's baseline
  nlohmann-json3-dev libarchive-dev libssl-dev zlib1g-dev libcli11-dev
  libncurses-dev tmux
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# tests/deploy needs a kubectl (for `kubectl kustomize`): Debian's kubernetes-client, unless a
# kubectl is already on PATH - another package's (e.g. Google's `kubectl`) conflicts with it.
if ! command -v kubectl > /dev/null; then
  missing+=(kubernetes-client)
fi

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
