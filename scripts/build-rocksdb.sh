#!/usr/bin/env bash
# The RocksDB a release links: Debian bookworm's own source package (7.8.3-2, Debian's patches
# applied) built as a CMake Release build (NDEBUG, so no assertions), PORTABLE, with snappy, lz4,
# zstd, zlib and bz2. Debian's binary package is built without a build type, so its library keeps
# every assert(); the test suite links that one on purpose, the release binary links this one.
#
# It builds into a cache outside the clone, so every later build (and every clone) reuses it:
#   ${ANKUSA_ROCKSDB_CACHE:-/var/cache/ankusa-store}/rocksdb-7.8.3-2-release/
#     lib/librocksdb.a  include/rocksdb/  bin/db_bench  build-info  .done
# The .done stamp is written last; without it the build is redone from a clean tree, so an
# interrupted build never passes for a finished one. Idempotent: with the stamp it only prints
# the cache path.
#
# Usage: scripts/build-rocksdb.sh        (prints the cache directory on stdout; logs on stderr)
# Needs root for apt-get (build dependencies, and a deb-src entry when the machine has none).
set -euo pipefail

want_version=7.8.3-2
cache_root=${ANKUSA_ROCKSDB_CACHE:-/var/cache/ankusa-store}
prefix=$cache_root/rocksdb-$want_version-release
jobs=${ANKUSA_ROCKSDB_JOBS:-2}

log() { echo "build-rocksdb: $*" >&2; }

if [ -f "$prefix/.done" ] && [ -f "$prefix/lib/librocksdb.a" ]; then
  echo "$prefix"
  exit 0
fi

# Build dependencies, installed only when missing.
need=()
for pkg in build-essential dpkg-dev cmake libsnappy-dev liblz4-dev libzstd-dev zlib1g-dev \
  libbz2-dev libgflags-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done

# apt-get source needs a deb-src entry. A fresh machine has none: derive one from the machine's
# own Debian archive (the deb822 debian.sources, or a one-line sources.list), same URIs, suites
# and keys.
has_deb_src() {
  grep -qsE '^[[:space:]]*(Types:.*deb-src|deb-src[[:space:]])' \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources
}
updated=
if ! has_deb_src; then
  src_file=/etc/apt/sources.list.d/ankusa-store-deb-src.sources
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    log "adding $src_file (deb-src for the archives in debian.sources)"
    sed -E 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$src_file"
  elif [ -f /etc/apt/sources.list ]; then
    src_file=/etc/apt/sources.list.d/ankusa-store-deb-src.list
    log "adding $src_file (deb-src for the archives in sources.list)"
    sed -nE 's/^[[:space:]]*deb[[:space:]]/deb-src /p' /etc/apt/sources.list >"$src_file"
  else
    log "no Debian archive configured (neither debian.sources nor sources.list)"
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  updated=1
fi
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  [ -n "$updated" ] || apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# A clean work tree each time the stamp is missing: half-built objects from an interrupted run
# are not trusted.
work=$cache_root/work-rocksdb-$want_version
rm -rf "$work" "$prefix"
mkdir -p "$work/dl" "$work/build"

log "fetching Debian's source package rocksdb=$want_version"
# apt-get source verifies the files against the archive's signed Sources index and unpacks
# them with dpkg-source, which applies debian/patches.
(cd "$work/dl" && apt-get source -qq "rocksdb=$want_version" >&2)
src=$(find "$work/dl" -mindepth 1 -maxdepth 1 -type d -name 'rocksdb-*' | head -n1)
[ -n "$src" ] || { log "apt-get source left no rocksdb-* directory"; exit 1; }
got=$(cd "$src" && dpkg-parsechangelog -S Version)
if [ "$got" != "$want_version" ]; then
  log "source package is $got, want $want_version"
  exit 1
fi
hdr=$(awk '/#define ROCKSDB_(MAJOR|MINOR|PATCH)/ {v = v (v ? "." : "") $3} END {print v}' \
  "$src/include/rocksdb/version.h")
if [ "$hdr" != "${want_version%-*}" ]; then
  log "include/rocksdb/version.h says $hdr, want ${want_version%-*}"
  exit 1
fi

log "configuring a Release build in $work/build"
# Release: -O3 -DNDEBUG. RTTI on as in Debian's build (its build type adds no -fno-rtti), so C++
# compiled against these headers links the same way against either library. liburing, jemalloc,
# NUMA and TBB off: the release binary links no library beyond glibc that the node might lack.
(cd "$work/build" && nice cmake "$src" -DCMAKE_BUILD_TYPE=Release -DPORTABLE=1 \
  -DWITH_SNAPPY=ON -DWITH_LZ4=ON -DWITH_ZSTD=ON -DWITH_ZLIB=ON -DWITH_BZ2=ON \
  -DWITH_GFLAGS=ON -DUSE_RTTI=ON -DWITH_LIBURING=OFF -DWITH_JEMALLOC=OFF -DWITH_NUMA=OFF \
  -DWITH_TBB=OFF -DROCKSDB_BUILD_SHARED=OFF -DWITH_TESTS=OFF -DWITH_ALL_TESTS=OFF \
  -DWITH_TOOLS=OFF -DWITH_CORE_TOOLS=OFF -DWITH_TRACE_TOOLS=OFF -DWITH_BENCHMARK_TOOLS=ON \
  -DWITH_BENCHMARK=OFF -DWITH_EXAMPLES=OFF -DWITH_JNI=OFF -DFAIL_ON_WARNINGS=OFF >&2)

log "building librocksdb.a and db_bench (nice, -j$jobs)"
# Only the two targets: the benchmark tools switch also defines cache_bench and friends.
nice cmake --build "$work/build" -j"$jobs" --target rocksdb db_bench >&2

staging=$prefix.tmp
rm -rf "$staging"
mkdir -p "$staging/lib" "$staging/include" "$staging/bin"
cp "$work/build/librocksdb.a" "$staging/lib/"
cp -r "$src/include/rocksdb" "$staging/include/"
cp "$work/build/db_bench" "$staging/bin/"
{
  echo "source=rocksdb $got (Debian bookworm source package, debian/patches applied)"
  echo "cmake_build_type=Release"
  echo "portable=1"
  echo "compression=snappy lz4 zstd zlib bz2"
  grep -E '^CMAKE_CXX_FLAGS_RELEASE:' "$work/build/CMakeCache.txt" || true
} >"$staging/build-info"
mv "$staging" "$prefix"
touch "$prefix/.done"
rm -rf "$work"
log "done: $prefix"
echo "$prefix"
