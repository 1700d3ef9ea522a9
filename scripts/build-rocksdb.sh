#!/usr/bin/env bash
# The one RocksDB this tool links, in the release binary and in every binary the test suite runs:
# Debian's own source package rocksdb 9.11.2-1 (from Debian unstable, Debian's patches applied),
# built as a CMake Release build (NDEBUG, so no assertions), PORTABLE, with snappy, lz4, zstd,
# zlib and bz2, plus that same source's ldb, sst_dump and db_bench (the tests' and benchmarks'
# reference tools of this RocksDB; bookworm's rocksdb-tools 7.8.3 stay the oldest node's reader).
#
# It builds into a cache outside the clone, so every later build (and every clone) reuses it:
#   ${ANKUSA_ROCKSDB_CACHE:-/var/cache/ankusa-store}/rocksdb-9.11.2-1-release/
#     lib/librocksdb.a  include/rocksdb/  bin/{db_bench,ldb,sst_dump}  build-info  .done
# The .done stamp is written last; without it the build is redone from a clean tree, so an
# interrupted build never passes for a finished one. Idempotent: with the stamp it only prints
# the cache path. About 16 minutes on two cores (27 minutes of CPU), once.
#
# Where the source comes from: the machine's own Debian archive, suite sid, read through an apt
# configuration of its own under the cache (a deb-src entry only, its own lists and package
# cache), so the machine's sources and package lists are left as they are. The archive serves the
# .orig and .debian tarballs but answers 404 for the .dsc, so `apt-get source --download-only`
# exits non-zero and cannot unpack; the two tarballs are checked against the sha256 sums of the
# Sources index (which apt verified against the archive's signed InRelease), then unpacked with
# debian/patches/series applied in order, as dpkg-source would.
#
# Usage: scripts/build-rocksdb.sh        (prints the cache directory on stdout; logs on stderr)
# Needs root for apt-get (build dependencies).
set -euo pipefail

want_version=9.11.2-1
upstream=${want_version%-*}
cache_root=${ANKUSA_ROCKSDB_CACHE:-/var/cache/ankusa-store}
prefix=$cache_root/rocksdb-$want_version-release
jobs=${ANKUSA_ROCKSDB_JOBS:-2}

log() { echo "build-rocksdb: $*" >&2; }

if [ -f "$prefix/.done" ] && [ -f "$prefix/lib/librocksdb.a" ]; then
  echo "$prefix"
  exit 0
fi

# Build dependencies (Debian's Build-Depends for the package, less debhelper), when missing.
need=()
for pkg in build-essential cmake libsnappy-dev liblz4-dev libzstd-dev zlib1g-dev libbz2-dev \
  libgflags-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# The private apt configuration: the URI and keyring of the machine's own Debian archive.
apt_dir=$cache_root/apt-sid
mkdir -p "$apt_dir/parts" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
uri=
for f in /etc/apt/sources.list.d/debian.sources; do
  [ -f "$f" ] && uri=$(awk '/^URIs:/ {print $2; exit}' "$f")
done
if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
  uri=$(awk '$1 == "deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list)
fi
[ -n "$uri" ] || { log "no Debian archive configured (neither debian.sources nor sources.list)"; exit 1; }
cat >"$apt_dir/parts/sid-src.sources" <<SRC
Types: deb-src
URIs: $uri
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt_dir/parts"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache")
log "reading the sid source index of $uri"
apt-get "${apt_opts[@]}" update -qq

# The sums from the signed index, for the exact version wanted.
sums=$(apt-cache "${apt_opts[@]}" showsrc rocksdb 2>/dev/null |
  awk -v v="$want_version" '
    /^Version:/ {ok = ($2 == v)}
    /^[A-Z][A-Za-z0-9-]*:/ {insum = ($1 == "Checksums-Sha256:")}
    ok && insum && NF == 3 {print $1 "  " $3}')
orig=rocksdb_$upstream.orig.tar.gz
deb=rocksdb_$want_version.debian.tar.xz
for f in "$orig" "$deb"; do
  grep -q "  $f\$" <<<"$sums" || { log "the sid Sources index lists no $f for rocksdb $want_version"; exit 1; }
done

work=$cache_root/work-rocksdb-$want_version
rm -rf "$work" "$prefix"
mkdir -p "$work/dl" "$work/build"

log "fetching Debian's source package rocksdb=$want_version"
# Non-zero with the .dsc's 404 (see above): the checksums decide whether the tarballs are good.
(cd "$work/dl" && apt-get "${apt_opts[@]}" source --download-only -qq "rocksdb=$want_version" \
  >&2 2>/dev/null) || log "apt-get source exited non-zero (the .dsc is missing upstream); checking the tarballs"
(cd "$work/dl" && grep -E "  ($orig|$deb)\$" <<<"$sums" | sha256sum --quiet -c -) ||
  { log "the downloaded tarballs do not match the signed Sources index"; exit 1; }

src=$work/src
mkdir -p "$src"
tar -xzf "$work/dl/$orig" -C "$src" --strip-components=1
tar -xJf "$work/dl/$deb" -C "$src"
while read -r p; do
  case "$p" in ''|'#'*) continue ;; esac
  log "applying debian/patches/$p"
  patch -d "$src" -p1 --forward --quiet <"$src/debian/patches/$p" >&2
done <"$src/debian/patches/series"
got=$(sed -nE '1s/^rocksdb \(([^)]*)\).*/\1/p' "$src/debian/changelog")
if [ "$got" != "$want_version" ]; then
  log "source package is $got, want $want_version"
  exit 1
fi
hdr=$(awk '/#define ROCKSDB_(MAJOR|MINOR|PATCH)/ {v = v (v ? "." : "") $3} END {print v}' \
  "$src/include/rocksdb/version.h")
if [ "$hdr" != "$upstream" ]; then
  log "include/rocksdb/version.h says $hdr, want $upstream"
  exit 1
fi

log "configuring a Release build in $work/build"
# Release: -O3 -DNDEBUG. RTTI on as in Debian's build (grocksdb's C++ and pkg/rocks's link the
# same way against it). liburing, jemalloc, NUMA and TBB off: the release binary links no library
# beyond glibc that the node might lack.
(cd "$work/build" && nice cmake "$src" -DCMAKE_BUILD_TYPE=Release -DPORTABLE=1 \
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
  echo "source=rocksdb $got (Debian unstable source package, debian/patches applied)"
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
