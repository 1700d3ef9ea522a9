#!/usr/bin/env bash
# Speed and memory at a node's scale, the development and the release build
# side by side in one run, each against RocksDB's own reference from the
# same build (performance is proven by ratios measured together, never by
# timed tests):
#
#   big:  ROWS index rows over TENANTS tenants (10^7 over 10^5), written by
#         bench/migrategen. `migrate` beside the floor, db_bench fillrandom
#         --sync=1 --batch_size=1500 writing as many operations of the same
#         average size (the build's own db_bench); then `counters verify` of
#         the migrated store beside a raw batched read of the same families
#         (`ankusa-store rawread`, hidden: the same binary, so the same
#         RocksDB). `migrate --method steps` measures the steps; then (BULK=1,
#         the default) `migrate --method bulk` of another copy of the same
#         store, beside the steps and the same floor in the same run: its
#         time, CPU and peak RSS, the staging's disk peak (the store's
#         ANKUSA-BULK-*, the run's TMPDIR and the unnamed files it holds
#         open in either, sampled every second), the
#         pending compaction bytes it leaves (bench/pendingbytes; the steps'
#         too), rows/s, the time per row, bulk/steps and bulk/floor; its
#         result diffed against the steps' (exit 0).
#   wide: WIDE_ROWS rows over WIDE_TENANTS tenants (2*10^6 over 10^6),
#         migrated; `tenants ls -o json` beside a raw read of the t and
#         counters families, `counters verify` beside a raw read of its
#         families.
#   huge: HUGE_ROWS rows over HUGE_TENANTS tenants (10^8 over 10^6), the
#         release build only, hooks with bodies of at most HUGE_BODY_MAX
#         bytes (0: empty, the smallest store the contract allows; hooks
#         are four fifths of a store's bytes otherwise). `migrate` (with its
#         default checkpoint, as an operator runs it) beside the floor, with
#         the disk peak (the source, the store, the checkpoint and
#         compaction's room, sampled every 5 s with du, each file once) and
#         the WAL left; the time per row beside a migration a tenth the size
#         of the same shape (same tenants and bodies, same run); with BULK=1
#         (the default) `migrate --method bulk` of the tenth and of the whole
#         too, beside the steps and the same floor as in the big case (its
#         result diffed against the steps'), and its time per row beside its
#         tenth's;
#         `counters verify` (healthy: exit 0) beside a raw read of its
#         families; `diff` of the store against itself and against a copy
#         with one counter bumped (exactly one key differs) beside a raw read
#         of every family of both; `dlq export` of every dead row beside a
#         raw read of the dead rows, hooks, deliveries and tenants; `tenants
#         ls -o json` in every order beside a raw read of t and counters.
#         Copies share the source's table files by hard links (RocksDB never
#         writes a table file again; the rest is copied), so the disk it
#         needs is about the source, the migrated store and the floor's
#         database: see docs/testing.md. Not in CASES by default.
#
# Every command and reference runs as a process under GNU time (wall time,
# peak RSS), opening the same store, so opening costs both sides the same.
# It prints one table and checks the targets:
#   - migrate within 1.1x of the floor at 10^7 rows (release build);
#   - migrate --method bulk at least 5x faster than the steps and at most
#     0.25x the floor (release build), its result the steps' (diff exit 0);
#   - after it, at most 64 MiB of WAL, and dlq scan --limit 50 within 2x of
#     the same command on a fully compacted copy;
#   - counters verify within 1.2x of its raw read at 10^7 rows (release build);
#   - tenants ls within 2x of its raw read at 10^6 tenants;
#   - peak RSS under 256 MiB for every command;
#   - huge: the migration's time per row within 1.15x of its tenth's
#     (the same run), the bulk method's too, the migrated store healthy, diff finding it equal to
#     itself and one key apart from the bumped copy.
#
# Env: BIN_DEV (default: built from this tree), DB_BENCH_DEV (/usr/bin/db_bench),
# BIN_RELEASE (default: scripts/static-build.sh when the release RocksDB cache
# is there), DB_BENCH_RELEASE (the cache's db_bench), ROWS, TENANTS, WIDE_ROWS,
# WIDE_TENANTS, HUGE_ROWS, HUGE_TENANTS, HUGE_BODY_MAX, HUGE_FLOOR (0: the huge
# migration without its db_bench floor, half an hour less, for a re-check of the
# rest), HUGE_STEPS (0: the bulk method alone, of the tenth and the whole, without the steps,
# their floor and the diff beside them: an hour and more less at 10^8), HUGE_STORE (a store an earlier huge run migrated: its reads alone, no migration),
# WORK (default
# ~/.cache/ankusa-scale-bench: the generated stores are kept there and
# reused, tens of GB at the default sizes), HUGE_READS (which of the huge case's reads to run:
# "verify diff tenants dlq", the default), HUGE_DLQ_JOINS (the --join of each dlq export
# it runs: "auto", the default; "auto by-key" times the sorted join beside the lookups by
# key, ten minutes more at 10^8 rows), CASES ("big wide"; "huge"
# for the 10^8-row run and its time per row beside 10^7's), LABEL_DEV and
# LABEL_RELEASE (the build column's names for the two sides, "dev" and
# "release"), BULK (0: the big case without its bulk run), STATS (1: each migration with
# RocksDB's statistics, `migrate --rocksdb-stats`, left beside its store; 0, the default,
# measures without them, as the floor's db_bench runs). A side whose binary or
# db_bench is missing is left out, with a note. The preamble shared with the other
# migration benches (timing, the floor, checks) is bench/lib.sh. Exit 1 if a target
# is missed.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=scale_bench
source bench/lib.sh

ROWS=${ROWS:-10000000}
TENANTS=${TENANTS:-100000}
WIDE_ROWS=${WIDE_ROWS:-2000000}
WIDE_TENANTS=${WIDE_TENANTS:-1000000}
HUGE_ROWS=${HUGE_ROWS:-100000000}
HUGE_TENANTS=${HUGE_TENANTS:-1000000}
HUGE_BODY_MAX=${HUGE_BODY_MAX:-0}
HUGE_FLOOR=${HUGE_FLOOR:-1}
HUGE_STEPS=${HUGE_STEPS:-1}
HUGE_READS=${HUGE_READS:-verify diff tenants dlq}
HUGE_DLQ_JOINS=${HUGE_DLQ_JOINS:-auto}
MAX_PER_ROW_RATIO=1.15
CASES=${CASES:-big wide}
WORK=${WORK:-$HOME/.cache/ankusa-scale-bench}
RELEASE_CACHE=${RELEASE_CACHE:-$ROCKSDB_CACHE}
DB_BENCH_DEV=${DB_BENCH_DEV:-$RELEASE_CACHE/bin/db_bench}
DB_BENCH_RELEASE=${DB_BENCH_RELEASE:-$RELEASE_CACHE/bin/db_bench}
MAX_MIGRATE_RATIO=1.1
BULK=${BULK:-1}
# Off by default: the statistics cost the bulk method 0-12% of its CPU at 10^7 rows (three
# alternate runs), and neither db_bench's floor nor a node's migration takes them.
STATS=${STATS:-0}
MIN_BULK_SPEEDUP=5
MAX_BULK_FLOOR_RATIO=0.25
MAX_VERIFY_RATIO=1.2
MAX_TENANTS_RATIO=2
MAX_WAL_MIB=64
MAX_DLQ_RATIO=2
COMPACT_FAMILIES=default,hooks,deliveries,index,tenants,counters
# What counters verify reads, in its report's names.
VERIFY_FAMILIES=tenant_by_ord,ord_by_tenant,due,inflight,dead,dead_by_tenant,archive,active,counters,due_v2,inflight_v2,deliveries,hooks

need jq /usr/bin/time
mkdir -p "$WORK"

go build -o "$WORK/compactstore" ./bench/compactstore
go build -o "$WORK/pendingbytes" ./bench/pendingbytes
go build -o "$WORK/bumpcounter" ./bench/bumpcounter
sides=()
if [ -z "${BIN_DEV:-}" ]; then
  BIN_DEV=$WORK/ankusa-store-dev
  go build -o "$BIN_DEV" .
fi
if [ -x "$DB_BENCH_DEV" ]; then sides+=(dev); else note "no db_bench at $DB_BENCH_DEV: the development side is left out"; fi
if [ -z "${BIN_RELEASE:-}" ] && [ -x "$DB_BENCH_RELEASE" ] && [ -x scripts/static-build.sh ]; then
  BIN_RELEASE=$WORK/ankusa-store-release
  scripts/static-build.sh "$BIN_RELEASE" >&2 || BIN_RELEASE=""
fi
if [ -n "${BIN_RELEASE:-}" ] && [ -x "$BIN_RELEASE" ] && [ -x "$DB_BENCH_RELEASE" ]; then
  sides+=(release)
else
  note "no release binary or no release db_bench ($DB_BENCH_RELEASE): the release side is left out"
fi
[ ${#sides[@]} -gt 0 ] || { note "nothing to measure"; exit 2; }

bin_of() { if [ "$1" = dev ]; then echo "$BIN_DEV"; else echo "$BIN_RELEASE"; fi; }
# The build column's name for a side: LABEL_DEV and LABEL_RELEASE rename them, for a run that
# puts two other builds side by side (the tool on two RocksDB releases, say).
label_of() { if [ "$1" = dev ]; then echo "${LABEL_DEV:-dev}"; else echo "${LABEL_RELEASE:-release}"; fi; }
db_bench_of() { if [ "$1" = dev ]; then echo "$DB_BENCH_DEV"; else echo "$DB_BENCH_RELEASE"; fi; }

# source NAME ROWS TENANTS [MIGRATEGEN FLAGS...]: the format 2 store, generated once.
source_store() {
  local src=$WORK/src-$1
  shift
  gen_store "$src" "$@"
  echo "$src"
}

ROWS_OUT=()
row() { # build case seconds reference reference_s rss [cpu_s ref_cpu_s]
  local ratio=- cpu_ratio=- label
  label=$(label_of "$1")
  shift
  set -- "$label" "$@"
  [ "$5" != - ] && ratio=$(awk -v a="$3" -v b="$5" 'BEGIN { printf "%.2f", a / b }')
  [ -n "${8:-}" ] && cpu_ratio=$(awk -v a="$7" -v b="$8" 'BEGIN { printf "%.2f", a / b }')
  ROWS_OUT+=("$(printf '%-8s %-36s %9s %-28s %9s %6s %9s %8s' "$1" "$2" "$3" "$4" "$5" "$ratio" "$cpu_ratio" "$6")")
  # Each row on stderr as it is measured too: a run of hours that is cut short keeps them.
  note "row: ${ROWS_OUT[-1]}"
  # The two figures themselves, for a check (within): the ratio above is rounded.
  LAST_RATIO=$ratio LAST_A=$3 LAST_B=$5
}
rss_check() { check "$1 peak RSS < $MAX_RSS_MIB MiB ($2 MiB)" "$(awk -v r="$2" -v m="$MAX_RSS_MIB" 'BEGIN { print (r < m) }')"; }

# migrate SIDE SRC DST [FLAGS...]: migrates a copy of SRC at DST (SRC "-":
# DST itself) by METHOD (default steps: what the floor and the time per row were
# judged on before the bulk method, which is measured beside it), with FLAGS
# (default --no-backup); sets MIG_S OPS BYTES MIG_RSS, MIG_WALL and MIG_CPU (the
# process's) and ROWS_MOVED.
migrate() {
  local bin side=$1 src=$2 dst=$3
  bin=$(bin_of "$side")
  shift 3
  [ $# -gt 0 ] || set -- --no-backup
  if [ "$src" != - ]; then
    rm -rf "$dst"
    cp -r "$src" "$dst"
  fi
  # No earlier run's statistics left beside a store this run migrates.
  rm -f "$dst.rocksdb-stats"
  if [ "$STATS" = 1 ]; then set -- "$@" --rocksdb-stats "$dst.rocksdb-stats"; fi
  sync
  timed "$WORK/sum.json" "$bin" migrate "$@" --method "${METHOD:-steps}" --now "$NOW" -o json "$dst"
  [ "$RC" = 0 ] || { note "migrate $dst failed (exit $RC)"; exit 1; }
  MIG_WALL=$SECS MIG_CPU=$CPU
  ROWS_MOVED=$(jq .rows "$WORK/sum.json")
  MIG_S=$(jq -r '.duration_ms / 1000' "$WORK/sum.json")
  OPS=$(jq .ops_written "$WORK/sum.json")
  BYTES=$(jq .bytes_written "$WORK/sum.json")
  MIG_RSS=$RSS_MIB
}

# floor SIDE: RocksDB's write floor for the OPS operations of BYTES the migration wrote, by
# the side's own db_bench (bench/lib.sh's floor_run); sets FLOOR_S.
floor() { floor_run "$(db_bench_of "$1")" "$OPS" "$BYTES"; }

# bulk_run SIDE SRC DST TMP WHAT: migrate --method bulk of a copy of SRC at DST, its TMPDIR
# TMP (made empty), the staging sampled beside it (DIR_PEAK), its stderr in $WORK/bulk.err
# and on ours; sets what migrate sets. WHAT ends its note.
bulk_run() {
  local side=$1 src=$2 dst=$3 tmp=$4 bin
  bin=$(bin_of "$side")
  rm -rf "$tmp"
  mkdir -p "$tmp"
  # A copy whose table files are hard links (linkcopy), as the huge case's steps use. Not
  # cp -r: the huge case's source is a symbolic link to the store (a generated 10^8-row
  # store kept on another file system), which cp -r copied as the link, so that the bulk
  # run migrated the cached source itself (and the sampler, given the link's path, missed
  # the runs spilled under the store's real one: 2.6 GiB sampled where the run staged 7.8).
  linkcopy "$src" "$dst"
  # Sampled once a second: five times a second took the run from 26.6-29.0 s to 34.2-36.1 s
  # at 10^7 rows (the sampler's forks beside a run that uses both cores), where once a
  # second is within the runs' own spread (28.6 s). The run says what it staged, too.
  UNNAMED_IN="$dst $tmp" UNNAMED_OF="$bin migrate" dir_watch 1 "$dst/ANKUSA-BULK-*" "$tmp"
  note "$side: migrate --method bulk $src$5"
  TIMED_ERR=$WORK/bulk.err TMPDIR=$tmp METHOD=bulk migrate "$side" - "$dst" --no-backup --progress=none
  dir_stop
  cat "$WORK/bulk.err" >&2
}

# bulk SIDE SRC STEPS_DST: migrate --method bulk of another copy of SRC, beside the steps'
# run of the same store just measured (MIG_*, its result at STEPS_DST) and the floor for
# the operations the steps wrote (FLOOR_S): wall, CPU, peak RSS, the staging's disk peak
# (the store's ANKUSA-BULK-* directories and the run's TMPDIR, sampled), the compaction
# debt left (bench/pendingbytes), rows/s and the time per row; the result must be the
# steps' (diff exit 0).
bulk() {
  local side=$1 src=$2 steps_dst=$3 dst=$WORK/bulk-v3-$1 bin
  local steps_s=$MIG_S steps_wall=$MIG_WALL steps_cpu=$MIG_CPU steps_pending tmp=$WORK/bulk-tmp
  bin=$(bin_of "$side")
  steps_pending=$("$WORK/pendingbytes" -dir "$steps_dst")
  bulk_run "$side" "$src" "$dst" "$tmp" ""
  local pending staged_mib per_row rps staged_said
  # What the run says it staged on the store's file system (runs and tables), beside the sample.
  staged_said=$(sed -n 's/^note: bulk: staged \([^ ]* [^ ]*\) .*/\1/p' "$WORK/bulk.err")
  pending=$("$WORK/pendingbytes" -dir "$dst")
  staged_mib=$(awk -v b="$DIR_PEAK" 'BEGIN { printf "%.1f", b / 1048576 }')
  per_row=$(awk -v s="$MIG_S" -v n="$ROWS_MOVED" 'BEGIN { printf "%.3e", s / n }')
  rps=$(awk -v s="$MIG_S" -v n="$ROWS_MOVED" 'BEGIN { printf "%.0f", n / s }')
  row "$side" "migrate --method bulk $ROWS rows" "$MIG_S" "--method steps, same store" "$steps_s" "$MIG_RSS" "$MIG_CPU" "$steps_cpu"
  local vs_steps=$LAST_RATIO
  row "$side" "migrate --method bulk $ROWS rows" "$MIG_S" "db_bench floor ($OPS ops)" "$FLOOR_S" "$MIG_RSS"
  local vs_floor=$LAST_RATIO
  BULK_NOTES+=("$side: bulk $ROWS_MOVED rows: ${MIG_S}s (process: wall ${MIG_WALL}s, CPU ${MIG_CPU}s; steps wall ${steps_wall}s, CPU ${steps_cpu}s), $rps rows/s, $per_row s a row; bulk/steps ${vs_steps}x, bulk/floor ${vs_floor}x; peak RSS $MIG_RSS MiB; staging disk peak $staged_mib MiB (sampled every second; the run says it staged ${staged_said:-?}); pending compaction bytes after: bulk $pending, steps $steps_pending")
  local speedup
  speedup=$(awk -v a="$steps_s" -v b="$MIG_S" 'BEGIN { printf "%.2f", a / b }')
  [ "$side" = release ] && check "release: bulk >= ${MIN_BULK_SPEEDUP}x faster than the steps (${speedup}x: ${vs_steps}x their time)" "$(within "$MIG_S" "$steps_s" "$(awk -v m="$MIN_BULK_SPEEDUP" 'BEGIN { print 1 / m }')")"
  # No floor measured (HUGE_FLOOR=0): no ratio to check, rather than "-" read as 0, a pass.
  if [ "$side" = release ] && [ "$vs_floor" != - ]; then
    check "release: bulk <= ${MAX_BULK_FLOOR_RATIO}x the floor (${vs_floor}x)" "$(within "$MIG_S" "$FLOOR_S" "$MAX_BULK_FLOOR_RATIO")"
  fi
  rss_check "$side: migrate --method bulk $ROWS rows" "$MIG_RSS"
  timed /dev/null "$bin" diff -q "$steps_dst" "$dst"
  check "$side: the bulk result is the steps' (diff exit $RC)" "$([ "$RC" = 0 ] && echo 1 || echo 0)"
  rm -rf "$dst" "$dst.rocksdb-stats" "$tmp"
}
BULK_NOTES=()

# versus SIDE STORE LABEL REF FAMILIES CMD...: the command beside a raw read of FAMILIES.
versus() {
  local side=$1 store=$2 label=$3 ref=$4 fams=$5 bin
  shift 5
  bin=$(bin_of "$side")
  timed /dev/null "$bin" rawread --families "$fams" ${RAW_FIRSTS:+--first-of-each-tenant "$RAW_FIRSTS"} -o json "$store"
  local raw_s=$SECS raw_cpu=$CPU
  timed /dev/null "$bin" "$@" "$store"
  row "$side" "$label" "$SECS" "$ref" "$raw_s" "$RSS_MIB" "$CPU" "$raw_cpu"
  V_RATIO=$LAST_RATIO V_A=$LAST_A V_B=$LAST_B
  V_RSS=$RSS_MIB
}

# best OUT CMD...: the fastest of three runs (the least noisy figure); sets SECS.
best() {
  local out=$1 b=
  shift
  for _ in 1 2 3; do
    timed "$out" "$@"
    if [ -z "$b" ] || awk -v a="$SECS" -v b="$b" 'BEGIN { exit !(a < b) }'; then b=$SECS; fi
  done
  SECS=$b
}

# at_rest SIDE STORE: the store as migrate leaves it: its WAL, and the first
# page of the dead-letter queue beside the same command after a full
# compaction of a copy (what compacting at the migration's end would buy).
at_rest() {
  local bin wal_mib left_s
  bin=$(bin_of "$1")
  wal_mib=$(find "$2" -maxdepth 1 -name '*.log' -printf '%s\n' | awk '{ s += $1 } END { printf "%.1f", s / 1048576 }')
  check "$1: WAL left after the migration <= $MAX_WAL_MIB MiB ($wal_mib MiB)" "$(under "$wal_mib" "$MAX_WAL_MIB")"
  best /dev/null "$bin" dlq scan --limit 50 "$2"
  left_s=$SECS
  rm -rf "$2.compacted"
  cp -r "$2" "$2.compacted"
  "$WORK/compactstore" -dir "$2.compacted" -families "$COMPACT_FAMILIES" >/dev/null
  best /dev/null "$bin" dlq scan --limit 50 "$2.compacted"
  row "$1" "dlq scan --limit 50, as left" "$left_s" "same, fully compacted" "$SECS" "$RSS_MIB"
  check "$1: dlq scan as left within ${MAX_DLQ_RATIO}x of compacted (${LAST_RATIO}x)" "$(within "$LAST_A" "$LAST_B" "$MAX_DLQ_RATIO")"
  rm -rf "$2.compacted"
}

# rawsum SIDE FAMILIES STORE...: a raw read of FAMILIES in each STORE, one
# process after the other; sets RAW_S and RAW_CPU to the sums.
rawsum() {
  local bin fams=$2 st
  bin=$(bin_of "$1")
  shift 2
  RAW_S=0 RAW_CPU=0
  for st in "$@"; do
    timed /dev/null "$bin" rawread --families "$fams" ${RAW_FIRSTS:+--first-of-each-tenant "$RAW_FIRSTS"} -o json "$st"
    RAW_S=$(awk -v a="$RAW_S" -v b="$SECS" 'BEGIN { printf "%.2f", a + b }')
    RAW_CPU=$(awk -v a="$RAW_CPU" -v b="$CPU" 'BEGIN { printf "%.2f", a + b }')
  done
}

# What diff reads: every family of both stores (verify's are all of them; the
# default family's few metadata keys aside).
ALL_FAMILIES=$VERIFY_FAMILIES
TENANT_SORTS="ord name pending scheduled inflight dead bytes archive_pending oldest"

# huge SIDE: the 10^8-row case (see the head of this file).
huge() {
  local side=$1 bin src dst wal_mib
  bin=$(bin_of "$side")
  if [ -n "${HUGE_STORE:-}" ]; then
    # The reads alone, on a store an earlier run migrated (HUGE_STORE): the migration's rows
    # and checks are that run's.
    [ -f "$HUGE_STORE/CURRENT" ] || { note "HUGE_STORE=$HUGE_STORE is not a store"; exit 2; }
    note "$side: the reads of $HUGE_STORE (migrated by an earlier run; no migration here)"
    huge_reads "$side" "$HUGE_STORE"
    return
  fi
  src=$(source_store "r$HUGE_ROWS-t$HUGE_TENANTS-b$HUGE_BODY_MAX" "$HUGE_ROWS" "$HUGE_TENANTS" -body-min 0 -body-max "$HUGE_BODY_MAX")
  dst=$WORK/huge-v3-$side
  rm -rf "$dst" "$dst".backup-* "$dst.bumped"

  # The time per row is compared with a migration a tenth the size of the
  # same shape (the same tenants, the same bodies, the same checkpoint), so
  # that only the rows change between the two.
  local twin twin_rows=$((HUGE_ROWS / 10)) twin_per_row
  twin=$(source_store "r$twin_rows-t$HUGE_TENANTS-b$HUGE_BODY_MAX" "$twin_rows" "$HUGE_TENANTS" -body-min 0 -body-max "$HUGE_BODY_MAX")
  if [ "$HUGE_STEPS" = 1 ]; then
    note "$side: migrate $twin (the tenth, hard-linked copy, default checkpoint)"
    linkcopy "$twin" "$dst"
    migrate "$side" - "$dst" --progress=none
    rm -rf "$dst" "$dst".backup-*
    row "$side" "migrate $twin_rows rows/$HUGE_TENANTS tenants" "$MIG_S" "-" "-" "$MIG_RSS"
    twin_per_row=$(awk -v s="$MIG_S" -v n="$twin_rows" 'BEGIN { printf "%.3e", s / n }')
  fi
  local twin_bulk_per_row=
  if [ "$BULK" = 1 ]; then
    # The bulk method's tenth too, for its own time per row at HUGE_ROWS.
    note "$side: migrate --method bulk $twin (the tenth, hard-linked copy)"
    linkcopy "$twin" "$dst"
    METHOD=bulk migrate "$side" - "$dst" --no-backup --progress=none
    rm -rf "$dst"
    row "$side" "migrate --method bulk $twin_rows rows" "$MIG_S" "-" "-" "$MIG_RSS" "$MIG_CPU"
    twin_bulk_per_row=$(awk -v s="$MIG_S" -v n="$twin_rows" 'BEGIN { printf "%.3e", s / n }')
  fi

  if [ "$HUGE_STEPS" = 0 ]; then
    huge_bulk_alone "$side" "$src" "$dst" "$twin_rows" "$twin_bulk_per_row"
    return
  fi
  # The pattern expanded at each sample: the store and its checkpoint are made after this.
  dir_watch 5 "$src" "$WORK/huge-v3-*"
  note "$side: migrate $src (hard-linked copy, default checkpoint)"
  linkcopy "$src" "$dst"
  migrate "$side" - "$dst" --progress=none
  dir_stop
  DISK_GB=$(awk -v b="$DIR_PEAK" 'BEGIN { printf "%.2f", b / 1e9 }')
  rm -rf "$dst".backup-*
  wal_mib=$(find "$dst" -maxdepth 1 -name '*.log' -printf '%s\n' | awk '{ s += $1 } END { printf "%.1f", s / 1048576 }')
  if [ "$HUGE_FLOOR" = 1 ]; then
    note "$side: floor ($OPS ops)"
    floor "$side"
    row "$side" "migrate $HUGE_ROWS rows/$HUGE_TENANTS tenants" "$MIG_S" "db_bench floor ($OPS ops)" "$FLOOR_S" "$MIG_RSS"
  else
    FLOOR_S=-
    row "$side" "migrate $HUGE_ROWS rows/$HUGE_TENANTS tenants" "$MIG_S" "- (HUGE_FLOOR=0)" "-" "$MIG_RSS"
  fi
  HUGE_NOTES+=("$side: migrate $HUGE_ROWS rows: disk peak $DISK_GB GB (source, store, checkpoint, compaction), WAL left $wal_mib MiB, store $(du -sb "$dst" | awk '{ printf "%.2f", $1 / 1e9 }') GB")
  rss_check "$side: migrate $HUGE_ROWS rows" "$MIG_RSS"
  check "$side: WAL left after the migration <= $MAX_WAL_MIB MiB ($wal_mib MiB)" "$(under "$wal_mib" "$MAX_WAL_MIB")"
  local per_row ratio
  per_row=$(awk -v s="$MIG_S" -v n="$HUGE_ROWS" 'BEGIN { printf "%.3e", s / n }')
  ratio=$(awk -v a="$per_row" -v b="$twin_per_row" 'BEGIN { printf "%.2f", a / b }')
  HUGE_NOTES+=("$side: migrate time per row: $twin_rows rows $twin_per_row s, $HUGE_ROWS rows $per_row s (${ratio}x)")
  check "$side: migrate time per row at $HUGE_ROWS within ${MAX_PER_ROW_RATIO}x of $twin_rows's of the same shape (${ratio}x)" "$(within "$per_row" "$twin_per_row" "$MAX_PER_ROW_RATIO")"
  if [ "$BULK" = 1 ]; then
    # The bulk method beside the steps just measured and the same floor (bulk() diffs its
    # result against the steps' and removes it), then its time per row beside its tenth's.
    ROWS=$HUGE_ROWS bulk "$side" "$src" "$dst"
    per_row=$(awk -v s="$MIG_S" -v n="$HUGE_ROWS" 'BEGIN { printf "%.3e", s / n }')
    ratio=$(awk -v a="$per_row" -v b="$twin_bulk_per_row" 'BEGIN { printf "%.2f", a / b }')
    HUGE_NOTES+=("$side: migrate --method bulk time per row: $twin_rows rows $twin_bulk_per_row s, $HUGE_ROWS rows $per_row s (${ratio}x)")
    check "$side: bulk time per row at $HUGE_ROWS within ${MAX_PER_ROW_RATIO}x of $twin_rows's of the same shape (${ratio}x)" "$(within "$per_row" "$twin_bulk_per_row" "$MAX_PER_ROW_RATIO")"
  fi
  huge_reads "$side" "$dst"
}

# huge_bulk_alone SIDE SRC DST TWIN_ROWS TWIN_PER_ROW: HUGE_STEPS=0's run, the bulk method
# alone on a hard-linked copy of the 10^8-row store (no steps, so no floor and no diff
# beside them: the bulk method's equality at scale is bench/bulk_equal.sh's): its time, CPU,
# peak RSS, staging's disk peak (sampled), the WAL and the compaction debt it leaves, and its
# time per row beside its tenth's; then the reads HUGE_READS names on its result.
huge_bulk_alone() {
  local side=$1 src=$2 dst=$3 twin_rows=$4 twin_per_row=$5 tmp=$WORK/bulk-tmp pending wal_mib per_row ratio
  bulk_run "$side" "$src" "$dst" "$tmp" " (hard-linked copy, no steps: HUGE_STEPS=0)"
  pending=$("$WORK/pendingbytes" -dir "$dst")
  wal_mib=$(find "$dst" -maxdepth 1 -name '*.log' -printf '%s\n' | awk '{ s += $1 } END { printf "%.1f", s / 1048576 }')
  row "$side" "migrate --method bulk $HUGE_ROWS rows" "$MIG_S" "-" "-" "$MIG_RSS" "$MIG_CPU"
  per_row=$(awk -v s="$MIG_S" -v n="$HUGE_ROWS" 'BEGIN { printf "%.3e", s / n }')
  ratio=$(awk -v a="$per_row" -v b="$twin_per_row" 'BEGIN { printf "%.2f", a / b }')
  HUGE_NOTES+=("$side: bulk $HUGE_ROWS rows: ${MIG_S}s (process: wall ${MIG_WALL}s, CPU ${MIG_CPU}s), peak RSS $MIG_RSS MiB, staging disk peak $(awk -v b="$DIR_PEAK" 'BEGIN { printf "%.1f", b / 1048576 }') MiB (sampled every second), WAL left $wal_mib MiB, pending compaction bytes $pending; time per row: $twin_rows rows $twin_per_row s, $HUGE_ROWS rows $per_row s (${ratio}x)")
  rss_check "$side: migrate --method bulk $HUGE_ROWS rows" "$MIG_RSS"
  check "$side: WAL left after the bulk migration <= $MAX_WAL_MIB MiB ($wal_mib MiB)" "$(under "$wal_mib" "$MAX_WAL_MIB")"
  check "$side: bulk time per row at $HUGE_ROWS within ${MAX_PER_ROW_RATIO}x of $twin_rows's of the same shape (${ratio}x)" "$(within "$per_row" "$twin_per_row" "$MAX_PER_ROW_RATIO")"
  rm -rf "$tmp"
  huge_reads "$side" "$dst"
}

# huge_read NAME: whether HUGE_READS names the read.
huge_read() { [[ " $HUGE_READS " == *" $1 "* ]]; }

# huge_reads SIDE STORE: the reads of the 10^8-row case HUGE_READS names, each beside its
# raw read.
huge_reads() {
  local side=$1 dst=$2 bin
  bin=$(bin_of "$side")
  if huge_read verify; then
  note "$side: counters verify"
  versus "$side" "$dst" "counters verify $HUGE_ROWS rows" "raw read, verify's families" "$VERIFY_FAMILIES" counters verify -q
  check "$side: the migrated $HUGE_ROWS rows are healthy (counters verify exit $RC)" "$([ "$RC" = 0 ] && echo 1 || echo 0)"
  rss_check "$side: counters verify $HUGE_ROWS rows" "$V_RSS"
  fi

  if huge_read diff; then
  note "$side: diff"
  rawsum "$side" "$ALL_FAMILIES" "$dst" "$dst"
  timed "$WORK/diff.json" "$bin" diff -o json "$dst" "$dst"
  row "$side" "diff, the store against itself" "$SECS" "raw read, all families, twice" "$RAW_S" "$RSS_MIB" "$CPU" "$RAW_CPU"
  check "$side: diff of the store against itself: equal (exit $RC)" "$([ "$RC" = 0 ] && echo 1 || echo 0)"
  rss_check "$side: diff against itself" "$RSS_MIB"
  linkcopy "$dst" "$dst.bumped"
  "$WORK/bumpcounter" -dir "$dst.bumped" -ord 1
  rawsum "$side" "$ALL_FAMILIES" "$dst" "$dst.bumped"
  timed "$WORK/diff.json" "$bin" diff -o json "$dst" "$dst.bumped"
  row "$side" "diff, against one counter bumped" "$SECS" "raw read, all families, both" "$RAW_S" "$RSS_MIB" "$CPU" "$RAW_CPU"
  local differ
  differ=$(jq '.only_in_a + .only_in_b + .changed + .unreadable' "$WORK/diff.json" 2>/dev/null || echo "?")
  check "$side: diff against the bumped copy: one key differs (exit $RC, $differ keys)" "$([ "$RC" = 1 ] && [ "$differ" = 1 ] && echo 1 || echo 0)"
  rss_check "$side: diff against the bumped copy" "$RSS_MIB"
  rm -rf "$dst.bumped"
  fi

  local sort
  if huge_read tenants; then
  # A listing shows every tenant's oldest due row: the first due row of each tenant,
  # the rest skipped by a seek, is read beside t and counters (RAW_FIRSTS).
  RAW_FIRSTS=due rawsum "$side" tenant_by_ord,counters "$dst"
  for sort in $TENANT_SORTS; do
    note "$side: tenants ls --sort $sort"
    timed /dev/null "$bin" tenants ls --sort "$sort" -o json "$dst"
    row "$side" "tenants ls --sort $sort -o json" "$SECS" "raw read, t, counters, due firsts" "$RAW_S" "$RSS_MIB" "$CPU" "$RAW_CPU"
    rss_check "$side: tenants ls --sort $sort, $HUGE_TENANTS tenants" "$RSS_MIB"
  done
  fi

  if huge_read dlq; then
  rawsum "$side" dead,hooks,deliveries,tenant_by_ord "$dst"
  local join
  for join in $HUGE_DLQ_JOINS; do
    note "$side: dlq export --join $join"
    timed /dev/null "$bin" dlq export --join "$join" "$dst"
    row "$side" "dlq export --join $join, every dead row" "$SECS" "raw read, x, hooks, deliveries, t" "$RAW_S" "$RSS_MIB" "$CPU" "$RAW_CPU"
    rss_check "$side: dlq export --join $join, $HUGE_ROWS rows" "$RSS_MIB"
  done
  fi
}
HUGE_NOTES=()

for side in "${sides[@]}"; do
  for c in $CASES; do
    case $c in
    huge)
      if [ "$side" != release ]; then note "huge: the release build only; $side left out"; continue; fi
      huge "$side"
      ;;
    big)
      src=$(source_store "r$ROWS-t$TENANTS" "$ROWS" "$TENANTS")
      dst=$WORK/big-v3-$side
      note "$side: migrate $src"
      migrate "$side" "$src" "$dst"
      note "$side: floor ($OPS ops)"
      floor "$side"
      row "$side" "migrate $ROWS rows/$TENANTS tenants" "$MIG_S" "db_bench floor ($OPS ops)" "$FLOOR_S" "$MIG_RSS"
      [ "$side" = release ] && check "release: migrate within ${MAX_MIGRATE_RATIO}x of the floor (${LAST_RATIO}x)" "$(within "$LAST_A" "$LAST_B" "$MAX_MIGRATE_RATIO")"
      rss_check "$side: migrate $ROWS rows" "$MIG_RSS"
      [ "$BULK" = 1 ] && bulk "$side" "$src" "$dst"
      note "$side: counters verify"
      versus "$side" "$dst" "counters verify $ROWS rows" "raw read, verify's families" "$VERIFY_FAMILIES" counters verify -q
      [ "$side" = release ] && check "release: counters verify within ${MAX_VERIFY_RATIO}x of the raw read (${V_RATIO}x)" "$(within "$V_A" "$V_B" "$MAX_VERIFY_RATIO")"
      rss_check "$side: counters verify $ROWS rows" "$V_RSS"
      at_rest "$side" "$dst"
      rm -rf "$dst"
      ;;
    wide)
      src=$(source_store "r$WIDE_ROWS-t$WIDE_TENANTS" "$WIDE_ROWS" "$WIDE_TENANTS")
      dst=$WORK/wide-v3-$side
      note "$side: migrate $src"
      migrate "$side" "$src" "$dst"
      row "$side" "migrate $WIDE_ROWS rows/$WIDE_TENANTS tenants" "$MIG_S" "-" "-" "$MIG_RSS"
      rss_check "$side: migrate $WIDE_TENANTS tenants" "$MIG_RSS"
      note "$side: tenants ls, counters verify"
      RAW_FIRSTS=due versus "$side" "$dst" "tenants ls -o json $WIDE_TENANTS tenants" "raw read, t, counters, due firsts" tenant_by_ord,counters tenants ls -o json
      check "$side: tenants ls within ${MAX_TENANTS_RATIO}x of the raw read (${V_RATIO}x)" "$(within "$V_A" "$V_B" "$MAX_TENANTS_RATIO")"
      rss_check "$side: tenants ls $WIDE_TENANTS tenants" "$V_RSS"
      versus "$side" "$dst" "counters verify $WIDE_TENANTS tenants" "raw read, verify's families" "$VERIFY_FAMILIES" counters verify -q
      rss_check "$side: counters verify $WIDE_TENANTS tenants" "$V_RSS"
      rm -rf "$dst"
      ;;
    *) note "unknown case $c"; exit 2 ;;
    esac
  done
done

printf '%-8s %-36s %9s %-28s %9s %6s %9s %8s\n' build case seconds reference ref_s ratio cpu_ratio rss_MiB
printf '%s\n' "${ROWS_OUT[@]}"
if [ "$STATS" = 1 ]; then
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); RocksDB statistics of each migration: $WORK/*-v3-*.rocksdb-stats"
else
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
[ ${#HUGE_NOTES[@]} -eq 0 ] || printf '%s\n' "${HUGE_NOTES[@]}"
[ ${#BULK_NOTES[@]} -eq 0 ] || printf '%s\n' "${BULK_NOTES[@]}"
checks_done
