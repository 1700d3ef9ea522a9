#!/usr/bin/env bash
# The profile the release build is compiled with: default.pgo, in the main package's
# directory, where `go build` (goreleaser's, scripts/static-build.sh's) reads it by itself
# (-pgo=auto; TestStaticReleaseBuild checks the release binary says it was). It is the CPU
# profile of a bulk migration (migrate --method bulk, whose time is a node's downtime) of
# ROWS index rows over TENANTS tenants, 10^7 over 10^5 by default: the scale bench's big
# store, generated once into WORK and shared with bench/scale_bench.sh. A build with the tag
# pgoprofile (main_pgoprofile.go, never a release) writes it, migrating a copy whose table
# files are hard links to the store's.
#
# The largest share of the bulk migration's CPU is Go (the joins, the sorted runs and their
# merges, the builder, the values' skims); the compiler inlines and lays out the calls the
# profile says are hot. Take the profile again after a change that moves where the bulk
# method spends its time, and measure the release build with and without it
# (docs/testing.md).
#
# Usage: bench/pgo_profile.sh [OUT]      (OUT: default.pgo)
# Env: ROWS, TENANTS, WORK (default ~/.cache/ankusa-scale-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=pgo_profile
source bench/lib.sh
out=${1:-default.pgo}
ROWS=${ROWS:-10000000}
TENANTS=${TENANTS:-100000}
WORK=${WORK:-$HOME/.cache/ankusa-scale-bench}
work_dir
source scripts/rocksdb-env.sh

bin=$WORK/ankusa-store-pgoprofile
note "building $bin (tags pgoprofile)"
go build -trimpath -tags "grocksdb_no_link pgoprofile" -o "$bin" .
src=$WORK/src-r$ROWS-t$TENANTS
gen_store "$src" "$ROWS" "$TENANTS"
dst=$WORK/pgo-store
tmp=$WORK/pgo-tmp
linkcopy "$src" "$dst"
rm -rf "$tmp"
mkdir "$tmp"
note "migrating a copy of $src (--method bulk), profiled"
ANKUSA_CPU_PROFILE=$WORK/pgo.pprof TMPDIR=$tmp "$bin" migrate --method bulk --no-backup \
  --progress=none --now "$NOW" -o json "$dst" >/dev/null
rm -rf "$dst" "$tmp"
mv "$WORK/pgo.pprof" "$out"
note "wrote $out ($(stat -c %s "$out") bytes)"
