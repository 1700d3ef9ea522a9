#!/usr/bin/env bash
# The bulk method of the 2 -> 3 migration (migrate --method bulk) against the steps
# (--method steps) and RocksDB's own write floor, in the same run, on the same store:
# performance is proven by ratios, never by timed tests.
#
# For each size in SIZES (index rows over TENANTS tenants) it:
#   1. writes a format 2 store with bench/migrategen (cached in WORK by size);
#   2. migrates a copy with --method steps and another with --method bulk, each under GNU
#      time: wall, CPU (user + system) and peak RSS; the bulk run's note says what it staged
#      on the store's file system before its commit (sorted runs and table files: its disk
#      peak beyond the store);
#   3. checks that the two results are the same store (diff exit 0);
#   4. reads the compaction debt each result leaves (RocksDB's pending compaction bytes,
#      summed over its families: bench/pendingbytes);
#   5. runs the floor: db_bench fillrandom with synced batches of 1 500 writing as many
#      operations as the steps wrote, of the same average size (bench/migrate_bench.sh's);
# then prints a table and checks the issue's targets at the largest size:
#   - bulk at least 5x faster than the steps (wall);
#   - bulk at most 0.25x the floor's time;
#   - peak RSS under 256 MiB for both.
#
# Usage: bench/bulk_bench.sh                    (10^6 rows over 10^4 tenants)
#        SIZES="1000000 10000000" bench/bulk_bench.sh
#        BUILD=release bench/bulk_bench.sh      (the release build, scripts/static-build.sh)
# Env: SIZES, TENANTS, WORK (kept for reuse if given), BIN or BUILD (dev or release: bench/lib.sh)
# and DB_BENCH (the floor's db_bench, built with the same RocksDB as BIN).
# Exit status 1 if a target is missed at the largest size.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=bulk_bench
source bench/lib.sh

SIZES=${SIZES:-1000000}
TENANTS=${TENANTS:-10000}
MIN_SPEEDUP=5
MAX_FLOOR_RATIO=0.25

DB_BENCH=${DB_BENCH:-$ROCKSDB_CACHE/bin/db_bench}
need "$DB_BENCH" jq /usr/bin/time
work_dir
build_tool "$WORK/ankusa-store"
go build -o "$WORK/pendingbytes" ./bench/pendingbytes

# migrate_by METHOD STORE: migrates STORE by METHOD under GNU time; sets WALL CPU RSS (MiB).
migrate_by() {
  TIMED_ERR=$WORK/err-$1 timed "$WORK/sum-$1.json" "$WORK/ankusa-store" migrate --no-backup --now "$NOW" --method "$1" -o json "$2"
  [ "$RC" = 0 ] || { note "migrate --method $1 failed (exit $RC)"; cat "$WORK/err-$1" >&2; exit 1; }
  WALL=$SECS RSS=$RSS_MIB
}

printf '%-9s %8s %9s %9s %7s %8s %8s %7s %7s %9s %10s %10s %8s %10s %8s %5s\n' rows steps_s steps_cpu steps_MiB bulk_s bulk_cpu bulk_MiB speedup cpu_x staged debt_steps debt_bulk floor_s bulk/floor ops diff
for rows in $SIZES; do
  src="$WORK/src-$rows"
  gen_store "$src" "$rows" "$TENANTS"
  for m in steps bulk; do
    rm -rf "$WORK/$m"
    cp -r "$src" "$WORK/$m"
  done
  sync
  migrate_by steps "$WORK/steps"
  S_WALL=$WALL S_CPU=$CPU S_RSS=$RSS
  migrate_by bulk "$WORK/bulk"
  B_WALL=$WALL B_CPU=$CPU B_RSS=$RSS
  STAGED=$(sed -n 's/^note: bulk: staged \([^ ]* [^ ]*\) .*/\1/p' "$WORK/err-bulk" | tr -d ' ')
  DIFF=same
  "$WORK/ankusa-store" diff -q "$WORK/steps" "$WORK/bulk" >/dev/null 2>&1 || DIFF=DIFFERENT
  S_DEBT=$("$WORK/pendingbytes" -dir "$WORK/steps") B_DEBT=$("$WORK/pendingbytes" -dir "$WORK/bulk")
  OPS=$(jq .ops_written "$WORK/sum-steps.json")
  BYTES=$(jq .bytes_written "$WORK/sum-steps.json")
  rm -rf "$WORK/steps" "$WORK/bulk"
  floor_run "$DB_BENCH" "$OPS" "$BYTES"
  SPEEDUP=$(awk -v a="$S_WALL" -v b="$B_WALL" 'BEGIN { printf "%.2f", a / b }')
  CPU_X=$(awk -v a="$S_CPU" -v b="$B_CPU" 'BEGIN { printf "%.2f", a / b }')
  FLOOR_RATIO=$(awk -v a="$B_WALL" -v b="$FLOOR_S" 'BEGIN { printf "%.3f", a / b }')
  printf '%-9s %8s %9s %9s %7s %8s %8s %7s %7s %9s %10s %10s %8s %10s %8s %5s\n' "$rows" "$S_WALL" "$S_CPU" "$S_RSS" "$B_WALL" "$B_CPU" "$B_RSS" "$SPEEDUP" "$CPU_X" "$STAGED" "$S_DEBT" "$B_DEBT" "$FLOOR_S" "$FLOOR_RATIO" "$OPS" "$DIFF"
done
echo "floor: $DB_BENCH --benchmarks=fillrandom --sync=1 --batch_size=1500 --num=<ops> (same average op size); load average: $(cut -d' ' -f1-3 /proc/loadavg)"

check "the same store by both methods (diff: $DIFF)" "$([ "$DIFF" = same ] && echo 1 || echo 0)"
check "bulk >= ${MIN_SPEEDUP}x faster than the steps (${SPEEDUP}x)" "$(awk -v r="$SPEEDUP" -v m="$MIN_SPEEDUP" 'BEGIN { print (r >= m) }')"
check "bulk <= ${MAX_FLOOR_RATIO}x the floor (${FLOOR_RATIO}x)" "$(awk -v r="$FLOOR_RATIO" -v m="$MAX_FLOOR_RATIO" 'BEGIN { print (r <= m) }')"
check "peak RSS < $MAX_RSS_MIB MiB (steps $S_RSS, bulk $B_RSS)" "$(awk -v a="$S_RSS" -v b="$B_RSS" -v m="$MAX_RSS_MIB" 'BEGIN { print (a < m && b < m) }')"
checks_done
