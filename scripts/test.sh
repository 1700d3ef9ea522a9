#!/usr/bin/env bash
# Every test: gofmt, vet, staticcheck, a bounded fuzz of the decoder and its fast path, then the
# whole suite (unit, golden, fuzz corpora, property, end-to-end testscript, crash tests with real
# kill -9). CI runs exactly this through .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

gofmt_out=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$gofmt_out" ]; then
  echo "gofmt would change:" >&2; echo "$gofmt_out" >&2; exit 1
fi
go vet ./...
# The profiling build bench/pgo_profile.sh makes (main_pgoprofile.go) compiles and vets too.
go vet -tags pgoprofile .
# staticcheck (pinned in setup.sh): every check of its default set, unused code included. A
# finding that is right to keep is silenced where it stands, with //lint:ignore and the reason.
staticcheck ./...
# A bounded fuzz (20 s a target) of the ETF decoder and the tenant fast path, from their
# committed corpora; then every test.
bash scripts/fuzz-ci.sh
go test -count=1 -timeout 40m ./...
# The bulk migration's stages run on goroutines that share its runs, its writers and its
# joins' tables; under the race detector, its tests of them. A writer that read its files'
# suffix after the caller set it passed the suite but for one run in sixty on a loaded
# machine (the write stage's two halves' index files named alike, the ingest refused); the
# race detector names it every time.
go test -race -count=1 -timeout 20m -run 'TestBulkTables|TestBulkRuns|TestBulkHookParts|TestBulkJoinScanErrorStopsTheOthers|TestBulkIsTheSteps|TestBulkJoinsAreTheLookups' ./pkg/migration/
go test -race -count=1 -timeout 10m ./internal/runs/ ./internal/slots/ ./internal/scratch/
