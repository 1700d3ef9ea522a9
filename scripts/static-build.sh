#!/usr/bin/env bash
# The release build without goreleaser (the flags are .goreleaser.yaml's, and
# scripts/rocksdb-env.sh's): RocksDB 11.1.2 built as a Release build from upstream's v11.1.2
# (scripts/build-rocksdb.sh, cached outside the clone; about 16 minutes on 2 cores
# the first time, nothing after) and its compression libraries, all linked statically. Only
# glibc stays dynamic. The test suite links the same library the same way; this adds the
# release's -trimpath and stripped symbols.
#
# Usage: scripts/static-build.sh OUT [VERSION]
#   ANKUSA_ROCKSDB_CACHE=DIR          the cache (default /var/cache/ankusa-store)
#
# After linking, the binary is checked: it must hold none of RocksDB's assertion texts, and its
# `version` must say so (read from the library it links).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: static-build.sh OUT [VERSION]}
version=${2:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
commit=$(git rev-parse --short HEAD 2>/dev/null || echo none)

source scripts/rocksdb-env.sh
go build -trimpath -ldflags "-s -w -X main.version=$version -X main.commit=$commit" -o "$out" .

# What was linked, checked on the result.
build=$("$out" version -o json | sed -nE 's/.*"rocksdb_build": "([a-z]+)".*/\1/p')
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
echo "static-build: $out (rocksdb $(sed -n 's/^source=rocksdb //p' "$ANKUSA_ROCKSDB_PREFIX/build-info"), rocksdb_build=$build)" >&2
