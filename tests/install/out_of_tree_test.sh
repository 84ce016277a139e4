#!/usr/bin/env bash
# install.find_package / install.pkg_config: another project builds against an installed trnsim.
#   out_of_tree_test.sh cmake|pkg-config BUILD_DIR VERSION CC
# Installs only the `libnrt` component into a temporary folder and then moves the folder, so the
# package files must locate the prefix from their own place (relocatable). Then builds
# tests/install/client.c out of tree, with find_package(trnsim CONFIG) + trnsim::nrt
# (client_cmake/, CMAKE_PREFIX_PATH=<prefix>; a newer minor version must not be found) or with
# `pkg-config --cflags --libs libnrt` (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig), and runs it on an
# emulated trn2.3xlarge (4 logical cores at LNC=2) with an otherwise empty environment.
set -euo pipefail
mode=$1 build=$2 version=$3 cc=$4
here=$(cd "$(dirname "$0")" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/trnsim-client-XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/staging" --component libnrt > /dev/null
mv "$work/staging" "$work/prefix"
prefix=$work/prefix
run_env=(env -i PATH=/usr/bin:/bin TRNSIM_INSTANCE=trn2.3xlarge)

case $mode in
  cmake)
    cmake -S "$here/client_cmake" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" \
      -DTRNSIM_EXPECTED_VERSION="$version" -DCMAKE_C_COMPILER="$cc" > "$work/configure.log" ||
      { cat "$work/configure.log"; exit 1; }
    grep -q "trnsim $version from $prefix/lib/cmake/trnsim" "$work/configure.log" ||
      { echo "FAIL find_package did not report trnsim $version from $prefix"; exit 1; }
    cmake --build "$work/build" > /dev/null
    # CMake puts the imported library's folder in the client's build RUNPATH: no LD_LIBRARY_PATH.
    "${run_env[@]}" "$work/build/client" 4 "$version"
    # trnsimConfigVersion.cmake: a newer minor version than the installed one is not found.
    IFS=. read -r major minor _ <<< "$version"
    newer="$major.$((minor + 1)).0"
    if cmake -S "$here/client_cmake" -B "$work/newer" -DCMAKE_PREFIX_PATH="$prefix" \
        -DTRNSIM_EXPECTED_VERSION="$newer" -DCMAKE_C_COMPILER="$cc" > "$work/newer.log" 2>&1; then
      echo "FAIL find_package(trnsim $newer) accepted the installed $version"
      exit 1
    fi
    ;;
  pkg-config)
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
    modversion=$(pkg-config --modversion libnrt)
    [[ $modversion == 2.31.0.0 ]] ||
      { echo "FAIL pkg-config libnrt is version '$modversion', not 2.31.0.0"; exit 1; }
    flags=$(pkg-config --cflags --libs libnrt)
    [[ $flags == *"-I$prefix/"* && $flags == *"-L$prefix/"* && $flags == *-lnrt* ]] ||
      { echo "FAIL pkg-config --cflags --libs libnrt gives '$flags'"; exit 1; }
    # shellcheck disable=SC2086  # the flags are words
    "$cc" -std=c11 -Wall -Wextra -Werror "$here/client.c" $flags -o "$work/client"
    "${run_env[@]}" LD_LIBRARY_PATH="$prefix/lib" "$work/client" 4 "$version"
    ;;
  *)
    echo "usage: out_of_tree_test.sh cmake|pkg-config BUILD_DIR VERSION CC" >&2
    exit 2
    ;;
esac
