#!/usr/bin/env bash
# Installs what building and testing ankusa-store needs on Debian bookworm (as root), and
# nothing when it is all there already; then builds the one RocksDB every binary links (once,
# cached outside the clone) and points cgo at it. Sourced by demo.sh and test.sh.
#
# rocksdb-tools is Debian bookworm's RocksDB 7.8.3 (ldb, sst_dump): the RocksDB of the oldest
# node supported, which the tests use as an independent reader of what the tool writes. The
# tool itself never links Debian's librocksdb. systemd is for its systemd-analyze, which checks
# the unit files in docs/systemd/ (installing the package in a container starts nothing);
# acl (setfacl) and man-db (man, which systemd-analyze verify asks for the units'
# Documentation= page) are what docs/monitoring.md's steps install, and its test follows them.
# bash-completion is what the script of `ankusa-store completion bash` (cobra's) runs on; the
# completion tests type into a real bash with it, and into a real zsh and a real fish.
set -euo pipefail

need=()
for pkg in rocksdb-tools erlang-base zstd gcc g++ cmake make libsnappy-dev liblz4-dev libzstd-dev \
  zlib1g-dev libbz2-dev libgflags-dev systemd acl man-db bash-completion zsh fish; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    echo "setup: Go is not installed (expected at /usr/local/go, as on this machine kind)" >&2
    exit 1
  fi
fi
export PATH="$(go env GOPATH)/bin:$PATH"

# staticcheck, pinned: test.sh runs it beside gofmt and vet. Installed from the Go module proxy
# when this version is not the one on PATH (a newer staticcheck may find what this tree was
# never checked against; bump it here, on purpose, with the fixes it asks for).
staticcheck_version=0.8.2
if ! staticcheck -version 2>/dev/null | grep -qF "($staticcheck_version)"; then
  echo "setup: installing staticcheck v$staticcheck_version" >&2
  GOFLAGS= go install "honnef.co/go/tools/cmd/staticcheck@v$staticcheck_version"
fi

export GOFLAGS="${GOFLAGS:--mod=mod}"
source "$(dirname "${BASH_SOURCE[0]}")/rocksdb-env.sh"
