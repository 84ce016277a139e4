#!/bin/sh
# Builds the image trnsim:<version> from the package `make deb` made (Dockerfile beside this).
#
#   deploy/kubernetes/image/build.sh [BUILD_DIR] [TAG]     defaults: build, trnsim:<version>
#
# The context is a temporary directory holding only the .deb and tests/api/cc_rank.c, so the
# build tree (gigabytes) is never sent to Docker. On kind: kind load docker-image trnsim:<version>.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
build_dir=${1:-$root/build}
deb=$(ls "$build_dir"/trnsim_*_amd64.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
  echo "build.sh: no $build_dir/trnsim_*_amd64.deb: run make deb first" >&2
  exit 1
fi
version=$(basename "$deb" | sed 's/^trnsim_\(.*\)_amd64\.deb$/\1/')
tag=${2:-trnsim:$version}
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$deb" "$context/trnsim.deb"
cp "$root/tests/api/cc_rank.c" "$context/cc_rank.c"
docker build -t "$tag" -f "$root/deploy/kubernetes/image/Dockerfile" "$context"
echo "build.sh: built $tag"
