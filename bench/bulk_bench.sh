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
#   4. reads each result's compaction debt: RocksDB's estimate-pending-compaction-bytes,
#      summed over the families (ldb get_property, on the result about to be removed);
#   5. runs the floor: db_bench fillrandom with synced batches of 1 500 writing as many
#      operations as the steps wrote, of the same average size (bench/migrate_bench.sh's);
# then prints a table and checks the issue's targets at the largest size:
#   - bulk at least 5x faster than the steps (wall; the CPU ratio is printed beside it, the
#     better guide on a shared machine);
#   - bulk at most 0.25x the floor's time;
#   - peak RSS under 256 MiB for both.
#
# Usage: bench/bulk_bench.sh                    (10^6 rows over 10^4 tenants)
#        SIZES="1000000 10000000" bench/bulk_bench.sh
#        RELEASE=1 bench/bulk_bench.sh          (the release build, scripts/static-build.sh)
# Env: SIZES, TENANTS, WORK (kept for reuse if given), BIN (default: built from this tree,
# the development build, or the release build with RELEASE=1), DB_BENCH and LDB (the
# floor's db_bench and the debt's ldb, of the same RocksDB as BIN).
# Exit status 1 if a target is missed at the largest size.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-1000000}
TENANTS=${TENANTS:-10000}
NOW=1796032800000 # 2026-11-30T10:00:00Z: the stores' clock and the migration's start
MIN_SPEEDUP=5
MAX_FLOOR_RATIO=0.25
MAX_RSS_MIB=256

ROCKSDB_BIN=${ANKUSA_ROCKSDB_PREFIX:-/var/cache/ankusa-store/rocksdb-11.1.2-release}/bin
DB_BENCH=${DB_BENCH:-$ROCKSDB_BIN/db_bench}
LDB=${LDB:-$ROCKSDB_BIN/ldb}
for tool in "$DB_BENCH" "$LDB" jq /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bulk_bench: $tool is required" >&2; exit 2; }
done
if [ -n "${WORK:-}" ]; then
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d /tmp/bulk-bench.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
fi
if [ -z "${BIN:-}" ] || [ ! -f "$WORK/migrategen" ]; then
  source scripts/rocksdb-env.sh # cgo's flags, for either build
fi
if [ -n "${BIN:-}" ]; then
  cp "$BIN" "$WORK/ankusa-store"
elif [ "${RELEASE:-0}" = 1 ]; then
  echo "building ankusa-store (release build) and migrategen" >&2
  scripts/static-build.sh "$WORK/ankusa-store"
else
  echo "building ankusa-store (development build) and migrategen" >&2
  go build -o "$WORK/ankusa-store" .
fi
echo "binary: $("$WORK/ankusa-store" version -o json | jq -c '{version, rocksdb_build}' 2>/dev/null)" >&2
go build -o "$WORK/migrategen" ./bench/migrategen

# debt STORE: RocksDB's estimate of the bytes compactions still have to rewrite, summed over
# the store's families.
debt() {
  local sum=0 cf n
  for cf in $("$LDB" --db="$1" list_column_families 2>/dev/null | sed -n 's/^{\(.*\)}$/\1/p' | tr -d ' ' | tr ',' ' '); do
    n=$("$LDB" --db="$1" --column_family="$cf" get_property rocksdb.estimate-pending-compaction-bytes 2>/dev/null | sed -n 's/.*: *//p')
    sum=$((sum + ${n:-0}))
  done
  echo "$sum"
}

# timed METHOD STORE: migrates STORE by METHOD under GNU time; sets WALL CPU RSS (MiB).
timed() {
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" \
    "$WORK/ankusa-store" migrate --no-backup --now "$NOW" --method "$1" -o json "$2" >"$WORK/sum-$1.json" 2>"$WORK/err-$1"
  read -r WALL user sys rss <"$WORK/time"
  CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  RSS=$((rss / 1024))
}

printf '%-9s %8s %9s %9s %7s %8s %8s %7s %7s %9s %10s %10s %8s %10s %8s %5s\n' rows steps_s steps_cpu steps_MiB bulk_s bulk_cpu bulk_MiB speedup cpu_x staged debt_steps debt_bulk floor_s bulk/floor ops diff
for rows in $SIZES; do
  src="$WORK/src-$rows"
  if [ ! -f "$src/CURRENT" ]; then
    rm -rf "$src"
    "$WORK/migrategen" -dir "$src" -rows "$rows" -tenants "$TENANTS" -now "$NOW"
  fi
  for m in steps bulk; do
    rm -rf "$WORK/$m"
    cp -r "$src" "$WORK/$m"
  done
  sync
  timed steps "$WORK/steps"
  S_WALL=$WALL S_CPU=$CPU S_RSS=$RSS
  timed bulk "$WORK/bulk"
  B_WALL=$WALL B_CPU=$CPU B_RSS=$RSS
  STAGED=$(sed -n 's/^note: bulk: staged \([^ ]* [^ ]*\) .*/\1/p' "$WORK/err-bulk" | tr -d ' ')
  DIFF=same
  "$WORK/ankusa-store" diff -q "$WORK/steps" "$WORK/bulk" >/dev/null 2>&1 || DIFF=DIFFERENT
  S_DEBT=$(debt "$WORK/steps") B_DEBT=$(debt "$WORK/bulk")
  OPS=$(jq .ops_written "$WORK/sum-steps.json")
  BYTES=$(jq .bytes_written "$WORK/sum-steps.json")
  rm -rf "$WORK/steps" "$WORK/bulk"
  vsize=$(((BYTES + OPS / 2) / OPS - 16))
  [ "$vsize" -ge 1 ] || vsize=1
  rm -rf "$WORK/floor"
  FLOOR_S=$("$DB_BENCH" --benchmarks=fillrandom --sync=1 --batch_size=1500 --num="$OPS" \
    --key_size=16 --value_size="$vsize" --db="$WORK/floor" --threads=1 2>/dev/null |
    awk '/^fillrandom/ { for (i = 1; i <= NF; i++) if ($i == "seconds") print $(i-1) }')
  rm -rf "$WORK/floor"
  SPEEDUP=$(awk -v a="$S_WALL" -v b="$B_WALL" 'BEGIN { printf "%.2f", a / b }')
  CPU_X=$(awk -v a="$S_CPU" -v b="$B_CPU" 'BEGIN { printf "%.2f", a / b }')
  FLOOR_RATIO=$(awk -v a="$B_WALL" -v b="$FLOOR_S" 'BEGIN { printf "%.3f", a / b }')
  printf '%-9s %8s %9s %9s %7s %8s %8s %7s %7s %9s %10s %10s %8s %10s %8s %5s\n' "$rows" "$S_WALL" "$S_CPU" "$S_RSS" "$B_WALL" "$B_CPU" "$B_RSS" "$SPEEDUP" "$CPU_X" "$STAGED" "$S_DEBT" "$B_DEBT" "$FLOOR_S" "$FLOOR_RATIO" "$OPS" "$DIFF"
done
echo "floor: $DB_BENCH --benchmarks=fillrandom --sync=1 --batch_size=1500 --num=<ops> (same average op size); load average: $(cut -d' ' -f1-3 /proc/loadavg)"

fail=0
check() { # name ok
  if [ "$2" = 1 ]; then echo "PASS  $1"; else echo "FAIL  $1"; fail=1; fi
}
check "the same store by both methods (diff: $DIFF)" "$([ "$DIFF" = same ] && echo 1 || echo 0)"
check "bulk >= ${MIN_SPEEDUP}x faster than the steps (${SPEEDUP}x)" "$(awk -v r="$SPEEDUP" -v m="$MIN_SPEEDUP" 'BEGIN { print (r >= m) }')"
check "bulk <= ${MAX_FLOOR_RATIO}x the floor (${FLOOR_RATIO}x)" "$(awk -v r="$FLOOR_RATIO" -v m="$MAX_FLOOR_RATIO" 'BEGIN { print (r <= m) }')"
check "peak RSS < $MAX_RSS_MIB MiB (steps $S_RSS, bulk $B_RSS)" "$(awk -v a="$S_RSS" -v b="$B_RSS" -v m="$MAX_RSS_MIB" 'BEGIN { print (a < m && b < m) }')"
exit $fail
