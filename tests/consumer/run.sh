#!/usr/bin/env bash
# Builds and runs a tiny consumer of smr in each way the README describes, from scratch:
#   package       smr installed to a prefix, then find_package(smr 0.2 CONFIG REQUIRED)
#   pkg-config    the same prefix through smr.pc
#   subdirectory  add_subdirectory(<smr source>): only the library target may exist
#   fetchcontent  FetchContent on the source tree: the same
# Usage: tests/consumer/run.sh [work dir, default build/consumer]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mkdir -p "${1:-$src/build/consumer}" && cd "${1:-$src/build/consumer}" && pwd)
consumer=$src/tests/consumer
cxx=${CXX:-c++}

for tool in cmake ninja pkg-config "$cxx"; do
  command -v "$tool" >/dev/null || { echo "test-consumer: $tool not found; run scripts/setup.sh" >&2; exit 1; }
done

say() { echo "test-consumer: $*"; }
configure() { cmake -G Ninja -DCMAKE_BUILD_TYPE=Release -Wno-dev --log-level=WARNING "$@" >/dev/null; }

rm -rf "$work"/{smr,prefix,package,pkg-config,subdirectory,fetchcontent}

# The install: smr as its own top-level project with nothing but the library, installed to a
# prefix other than the configured one (the package and smr.pc must be relocatable).
say "installing smr to $work/prefix"
configure -S "$src" -B "$work/smr" -DSMR_DEVELOPER_MODE=OFF -DCMAKE_INSTALL_PREFIX=/nonexistent
cmake --build "$work/smr" >/dev/null
cmake --install "$work/smr" --prefix "$work/prefix" >/dev/null

say "find_package(smr 0.2 CONFIG REQUIRED)"
configure -S "$consumer" -B "$work/package" -DSMR_CONSUMER_MODE=package \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
cmake --build "$work/package" >/dev/null
"$work/package/consumer"

say "pkg-config smr"
export PKG_CONFIG_PATH=$work/prefix/share/pkgconfig
pkg-config --atleast-version=0.2 smr || { echo "test-consumer: pkg-config finds no smr >= 0.2 in $PKG_CONFIG_PATH" >&2; exit 1; }
includedir=$(pkg-config --variable=includedir smr)
[[ $(cd "$includedir" && pwd) == "$work/prefix/include" ]] ||
  { echo "test-consumer: smr.pc points at $includedir, not at the prefix it was installed to" >&2; exit 1; }
mkdir -p "$work/pkg-config"
# shellcheck disable=SC2046  # the flags are meant to split into words
"$cxx" -std=c++20 $(pkg-config --cflags smr) \
  -DSMR_CONSUMER_EXPECTED_VERSION="\"$(pkg-config --modversion smr)\"" \
  "$consumer/consumer.cpp" -o "$work/pkg-config/consumer" $(pkg-config --libs smr)
"$work/pkg-config/consumer"

# Test dependencies are made unfindable: if smr looked for one, configuring would fail.
for mode in subdirectory fetchcontent; do
  say "$mode: only the library target"
  configure -S "$consumer" -B "$work/$mode" -DSMR_CONSUMER_MODE=$mode -DSMR_SOURCE_DIR="$src" \
    -DSMR_SANITIZER=address --no-warn-unused-cli \
    -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_Python3=ON
  cmake --build "$work/$mode" >/dev/null
  "$work/$mode/consumer"
done
say "ok"
