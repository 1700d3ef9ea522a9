#!/usr/bin/env bash
# The main job end to end on a generated store: write a format 2 fixture, dry-run the
# upgrade, migrate, verify every counter, list tenants and dead letters.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
export GOFLAGS="${GOFLAGS:--mod=mod}"
mkdir -p bin
go build -o bin/ankusa-store .
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
store="$work/store"
set -x
bin/ankusa-store version
bin/ankusa-store fixture --format 2 --seed 1 --dir "$store"
bin/ankusa-store migrate --dry-run "$store"
bin/ankusa-store migrate --backup "$work/backup" "$store"
bin/ankusa-store counters verify "$store"
bin/ankusa-store tenants ls "$store"
bin/ankusa-store dlq scan --limit 10 "$store"
