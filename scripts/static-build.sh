#!/usr/bin/env bash
# The release build without goreleaser (the flags are .goreleaser.yaml's): RocksDB 7.8.3 built as
# a Release build from Debian's source package (scripts/build-rocksdb.sh, cached outside the clone;
# about 13 minutes on 2 idle cores the first time, nothing after) and its compression libraries,
# all linked statically. Only glibc stays dynamic.
#
# Usage: scripts/static-build.sh OUT [VERSION]
#   ANKUSA_ROCKSDB=release (default)  link the cached Release build, building it when missing
#   ANKUSA_ROCKSDB=debian             link Debian's librocksdb.a instead (built with assertions:
#                                     the quick static build that CI's tests check; never shipped)
#   ANKUSA_ROCKSDB_CACHE=DIR          the cache (default /var/cache/ankusa-store)
#
# The test suite does not use this: `go test` links Debian's shared library, whose assertions
# catch misuse in tests. After linking, the binary is checked: a release build must hold none of
# RocksDB's assertion texts, and its `version` must say so (read from the library it links).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: static-build.sh OUT [VERSION]}
version=${2:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
commit=$(git rev-parse --short HEAD 2>/dev/null || echo none)
kind=${ANKUSA_ROCKSDB:-release}

compression="-l:libsnappy.a -l:liblz4.a -l:libzstd.a -l:libz.a -l:libbz2.a"
system="-static-libstdc++ -static-libgcc -lm -ldl -pthread"
case "$kind" in
  release)
    prefix=$(bash scripts/build-rocksdb.sh)
    # The cache's headers before /usr/include: pkg/rocks compiles C++ against version.h.
    export CGO_CFLAGS="-I$prefix/include" CGO_CXXFLAGS="-I$prefix/include"
    export CGO_LDFLAGS="-L$prefix/lib -l:librocksdb.a $compression $system"
    ;;
  debian)
    export CGO_LDFLAGS="-l:librocksdb.a $compression $system"
    ;;
  *)
    echo "static-build: ANKUSA_ROCKSDB must be release or debian, not $kind" >&2
    exit 2
    ;;
esac
# grocksdb_no_link: grocksdb and pkg/rocks add no -l flags; CGO_LDFLAGS holds all of them.
CGO_ENABLED=1 go build -tags grocksdb_no_link -trimpath \
  -ldflags "-s -w -X main.version=$version -X main.commit=$commit" -o "$out" .

# What was linked, checked on the result.
build=$("$out" version -o json | sed -nE 's/.*"rocksdb_build": "([a-z]+)".*/\1/p')
if [ "$kind" = release ]; then
  for text in sync_without_flush_called_ 'num_buckets_ > 0'; do
    if strings "$out" | grep -qF -- "$text"; then
      echo "static-build: $out holds RocksDB's assertion text '$text': not a release build" >&2
      exit 1
    fi
  done
  if [ "$build" != release ]; then
    echo "static-build: $out reports rocksdb_build=$build, want release" >&2
    exit 1
  fi
fi
echo "static-build: $out (rocksdb $kind library, rocksdb_build=$build)" >&2
