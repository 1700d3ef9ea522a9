#!/usr/bin/env bash
# The one RocksDB this tool links, in the release binary and in every binary the test suite runs:
# upstream's release tag v11.1.2 of facebook/rocksdb (the RocksDB that erlang-rocksdb 3.x
# bundles), built as a CMake Release build (NDEBUG, so no assertions), for the CPU level below,
# RTTI, with snappy, lz4, zstd, zlib and bz2, static, plus that same source's ldb, sst_dump and
# db_bench (the tests' and benchmarks' reference tools of this RocksDB; bookworm's rocksdb-tools
# 7.8.3 stay the oldest node's reader).
#
# The CPU level, on x86-64: x86-64-v2 (SSE4.2, POPCNT) and PCLMULQDQ, which Intel's server CPUs
# have had since Westmere (2010) and AMD's since Bulldozer (2011). RocksDB chooses its CRC32C, the
# checksum of every block it reads and writes, when it is compiled, not at run time: built
# PORTABLE=1 (the baseline x86-64) it is a table lookup a byte, and it took 6.3% of a bulk
# migration's CPU; with SSE4.2 and PCLMULQDQ it is the CPU's own crc32 instruction on three
# streams at once, 0.6% (perf, the 10^7-row store, issue 45). Elsewhere, PORTABLE=1 as before.
# A cache built for another level is built again (its build-info says which: "cpu=").
#
# It builds into a cache outside the clone, so every later build (and every clone) reuses it:
#   ${ANKUSA_ROCKSDB_CACHE:-/var/cache/ankusa-store}/rocksdb-11.1.2-release/
#     lib/librocksdb.a  include/rocksdb/  bin/{db_bench,ldb,sst_dump}  build-info  .done
# The .done stamp is written last; without it the build is redone from a clean tree, so an
# interrupted build never passes for a finished one. Idempotent: with the stamp it only prints
# the cache path. About 16 minutes on two cores from an empty cache (apt-get included), once.
#
# Where the source comes from, first found:
#   1. $ANKUSA_ROCKSDB_ARCHIVE, a local archive of the tag (any packing of its files);
#   2. the vendor mirror beside the checkout (<parent of the clone>/shared/vendor/), a copy of
#      upstream's release archive kept for machines without a route to upstream;
#   3. upstream's own archive of the tag, downloaded.
# Whichever it is, the unpacked files must have the pinned git tree id: the id of the tag's tree,
# which does not depend on how the archive was packed (git init; git add -A -f; git write-tree).
# A source whose tree differs is refused, naming the archive and both ids, and nothing is built.
#
# Usage: scripts/build-rocksdb.sh        (prints the cache directory on stdout; logs on stderr)
#        scripts/build-rocksdb.sh --check-only ARCHIVE   (unpack and check ARCHIVE, build nothing)
# Needs root for apt-get (build dependencies).
set -euo pipefail

version=11.1.2
tag=v$version
# The git tree of the tag's files (tag commit 3b446089141659fad25328c5ea3e7ed283df46e4).
want_tree=36afaac5df4b9666e3c7ca5e32e094edd6fedfac
upstream_url=https://github.com/facebook/rocksdb/archive/refs/tags/$tag.tar.gz
cache_root=${ANKUSA_ROCKSDB_CACHE:-/var/cache/ankusa-store}
prefix=$cache_root/rocksdb-$version-release
jobs=${ANKUSA_ROCKSDB_JOBS:-2}
case "$(uname -m)" in
  x86_64)
    cpu=x86-64-v2+pclmul
    cpu_flags=(-DPORTABLE=x86-64-v2 -DCMAKE_C_FLAGS=-mpclmul -DCMAKE_CXX_FLAGS=-mpclmul)
    ;;
  *)
    cpu=portable
    cpu_flags=(-DPORTABLE=1)
    ;;
esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
clone=$(dirname "$here")

log() { echo "build-rocksdb: $*" >&2; }

# unpack_checked ARCHIVE DIR: unpacks ARCHIVE's single top-level directory into DIR and checks
# the tree id of what it holds; non-zero, with the reason, when either fails.
unpack_checked() {
  local archive=$1 dir=$2 tmp top got
  tmp=$dir.unpack
  rm -rf "$tmp" "$dir"
  mkdir -p "$tmp"
  if ! tar -xzf "$archive" -C "$tmp" 2>/dev/null; then
    log "refused $archive: it does not unpack as a gzip tar archive"
    rm -rf "$tmp"
    return 1
  fi
  top=$(find "$tmp" -mindepth 1 -maxdepth 1)
  if [ "$(printf '%s\n' "$top" | wc -l)" != 1 ] || [ ! -d "$top" ]; then
    log "refused $archive: it does not hold exactly one top-level directory"
    rm -rf "$tmp"
    return 1
  fi
  got=$(cd "$top" && git init -q && git -c core.autocrlf=false -c core.fileMode=true add -A -f &&
    git write-tree) || { log "refused $archive: git could not hash its files"; rm -rf "$tmp"; return 1; }
  rm -rf "$top/.git"
  if [ "$got" != "$want_tree" ]; then
    log "refused $archive: its files are git tree $got, not $want_tree (the tree of rocksdb $tag);" \
      "a file differs, is missing or is extra: it is not the release, or it was changed"
    rm -rf "$tmp"
    return 1
  fi
  mv "$top" "$dir"
  rm -rf "$tmp"
  log "checked $archive: git tree $got, the tree of rocksdb $tag"
}

# built: the cache holds a finished build for this CPU level.
built() {
  [ -f "$prefix/.done" ] && [ -f "$prefix/lib/librocksdb.a" ] && grep -qx "cpu=$cpu" "$prefix/build-info" 2>/dev/null
}

if [ "${1:-}" = --check-only ]; then
  [ $# = 2 ] || { log "usage: $0 --check-only ARCHIVE"; exit 2; }
  check_dir=$(mktemp -d)
  trap 'rm -rf "$check_dir"' EXIT
  unpack_checked "$2" "$check_dir/src"
  exit
fi

if built; then
  echo "$prefix"
  exit 0
fi

# One build at a time: a second run (another clone's tests, a helper's shell) waits for the
# first and then finds its stamp, instead of wiping the tree the first is building in.
mkdir -p "$cache_root"
exec 9>"$cache_root/.build-rocksdb-$version.lock"
if ! flock -n 9; then
  log "another build of rocksdb $version is running; waiting for it"
  flock 9
fi
if built; then
  echo "$prefix"
  exit 0
fi

# Build dependencies, when missing.
need=()
for pkg in build-essential cmake git libsnappy-dev liblz4-dev libzstd-dev zlib1g-dev libbz2-dev \
  libgflags-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

work=$cache_root/work-rocksdb-$version
rm -rf "$work" "$prefix"
mkdir -p "$work/dl" "$work/build"

vendor=$(dirname "$clone")/shared/vendor/rocksdb-$version.tar.gz
if [ -n "${ANKUSA_ROCKSDB_ARCHIVE:-}" ]; then
  archive=$ANKUSA_ROCKSDB_ARCHIVE
  [ -f "$archive" ] || { log "ANKUSA_ROCKSDB_ARCHIVE names $archive, which is not a file"; exit 1; }
  log "source: $archive (ANKUSA_ROCKSDB_ARCHIVE)"
elif [ -f "$vendor" ]; then
  archive=$vendor
  log "source: $archive (the vendor mirror beside the checkout)"
else
  archive=$work/dl/rocksdb-$version.tar.gz
  log "source: $upstream_url (no local archive)"
  command -v curl >/dev/null 2>&1 || { log "curl is needed to download $upstream_url"; exit 1; }
  curl -fsSL --retry 3 -o "$archive" "$upstream_url" ||
    { log "could not download $upstream_url; set ANKUSA_ROCKSDB_ARCHIVE to a local copy of the tag"; exit 1; }
fi
src=$work/src
unpack_checked "$archive" "$src" || exit 1
hdr=$(awk '/#define ROCKSDB_(MAJOR|MINOR|PATCH)/ {v = v (v ? "." : "") $3} END {print v}' \
  "$src/include/rocksdb/version.h")
if [ "$hdr" != "$version" ]; then
  log "include/rocksdb/version.h says $hdr, want $version"
  exit 1
fi

log "configuring a Release build in $work/build"
# Release: -O3 -DNDEBUG. RTTI on (grocksdb's C++ and pkg/rocks's link the same way against it).
# liburing, jemalloc, NUMA and TBB off: the release binary links no library beyond glibc that
# the node might lack.
(cd "$work/build" && nice cmake "$src" -DCMAKE_BUILD_TYPE=Release "${cpu_flags[@]}" \
  -DWITH_SNAPPY=ON -DWITH_LZ4=ON -DWITH_ZSTD=ON -DWITH_ZLIB=ON -DWITH_BZ2=ON \
  -DWITH_GFLAGS=ON -DUSE_RTTI=ON -DWITH_LIBURING=OFF -DWITH_JEMALLOC=OFF -DWITH_NUMA=OFF \
  -DWITH_TBB=OFF -DROCKSDB_BUILD_SHARED=OFF -DWITH_TESTS=OFF -DWITH_ALL_TESTS=OFF \
  -DWITH_TOOLS=OFF -DWITH_CORE_TOOLS=ON -DWITH_TRACE_TOOLS=OFF -DWITH_BENCHMARK_TOOLS=ON \
  -DWITH_BENCHMARK=OFF -DWITH_EXAMPLES=OFF -DWITH_JNI=OFF -DFAIL_ON_WARNINGS=OFF >&2)

log "building librocksdb.a, db_bench, ldb and sst_dump (nice, -j$jobs)"
nice cmake --build "$work/build" -j"$jobs" --target rocksdb db_bench ldb sst_dump >&2

staging=$prefix.tmp
rm -rf "$staging"
mkdir -p "$staging/lib" "$staging/include" "$staging/bin"
cp "$work/build/librocksdb.a" "$staging/lib/"
cp -r "$src/include/rocksdb" "$staging/include/"
cp "$work/build/db_bench" "$work/build/tools/ldb" "$work/build/tools/sst_dump" "$staging/bin/"
{
  echo "source=rocksdb $version (upstream tag $tag, git tree $want_tree)"
  echo "cmake_build_type=Release"
  echo "cpu=$cpu"
  echo "compression=snappy lz4 zstd zlib bz2"
  grep -E '^CMAKE_CXX_FLAGS_RELEASE:' "$work/build/CMakeCache.txt" || true
} >"$staging/build-info"
mv "$staging" "$prefix"
touch "$prefix/.done"
rm -rf "$work"
log "done: $prefix"
echo "$prefix"
