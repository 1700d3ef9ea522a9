#!/usr/bin/env bash
# Installs what building and testing ankusa-store needs on Debian bookworm (as root), and
# nothing when it is all there already. Sourced by demo.sh and test.sh.
set -euo pipefail

need=()
for pkg in librocksdb-dev rocksdb-tools erlang-base zstd gcc; do
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
