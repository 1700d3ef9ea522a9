#!/usr/bin/env bash
# The release build without goreleaser: RocksDB and its compression libraries linked
# statically (the flags are .goreleaser.yaml's). Usage: scripts/static-build.sh OUT [VERSION]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: static-build.sh OUT [VERSION]}
version=${2:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
commit=$(git rev-parse --short HEAD 2>/dev/null || echo none)
CGO_ENABLED=1 \
CGO_LDFLAGS="-l:librocksdb.a -l:libsnappy.a -l:liblz4.a -l:libzstd.a -l:libz.a -l:libbz2.a -static-libstdc++ -static-libgcc -lm -ldl -pthread" \
  go build -tags grocksdb_no_link -trimpath \
  -ldflags "-s -w -X main.version=$version -X main.commit=$commit" -o "$out" .
