#!/usr/bin/env bash
# The main job end to end on a generated store: write a format 2 fixture, dry-run the
# upgrade, migrate, verify every counter, list tenants and dead letters.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

mkdir -p bin
go build -o bin/ankusa-store .
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
store="$work/store"
# One clock for the story: the fixture's retries are due after this instant, so the
# migration files them as scheduled (kind 1) rather than pending.
now=2026-11-30T10:00:00Z
set -x
bin/ankusa-store version
bin/ankusa-store fixture --format 2 --seed 1 --now "$now" --dir "$store"
bin/ankusa-store migrate --dry-run --now "$now" "$store"
bin/ankusa-store migrate --now "$now" --backup "$work/backup" "$store"
bin/ankusa-store counters verify "$store"
bin/ankusa-store tenants ls "$store"
bin/ankusa-store dlq scan --limit 10 "$store"
