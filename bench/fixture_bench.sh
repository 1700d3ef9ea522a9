#!/usr/bin/env bash
# fixture at width against RocksDB's own write floor, in the same run (issue 31): the fixture's
# CPU time (user + system) within MAX_CPU_RATIO (2.0) of db_bench writing the same final
# content, and its peak RSS under MAX_RSS_MIB (256).
#
#   1. fixture --dir --tenants TENANTS --hooks HOOKS (default 10^6 and 10^6) under GNU time;
#   2. the store it made, counted: every key of every column family (rawread --cfs all), with
#      the average key and value sizes;
#   3. the floor: the same build's db_bench fillrandom --sync=0 --batch_size=1000 writing as
#      many keys of those sizes, under GNU time. The fixture plays the queue's whole history
#      (ingests, claims, retries, deliveries, ...), so it does more than this; the floor is
#      what writing the store's final keys and values alone costs;
#
# then prints a table (wall s, CPU s, peak RSS, CPU ratio) and exits 1 when the CPU ratio is
# above MAX_CPU_RATIO or the peak RSS at or above MAX_RSS_MIB. The CPU time is judged, not the
# wall clock: the machines are shared, and the fixture's background flushes and compactions
# run beside it on a second core when there is one.
#
# Usage: nice bench/fixture_bench.sh                       (10^6 tenants, 10^6 hooks: ~1 GB of disk)
#        TENANTS=100000 HOOKS=100000 bench/fixture_bench.sh (a tenth, in seconds)
# Env: TENANTS, HOOKS, SEED (1), RUNS (runs of each side, the least CPU of each kept; default 1),
# MAX_CPU_RATIO, MAX_RSS_MIB, BIN (the ankusa-store to measure; default: built from this tree),
# RAWREAD_BIN (the ankusa-store that counts the store, default BIN: another when BIN's rawread
# predates --cfs),
# DB_BENCH (default: the db_bench of the RocksDB build BIN links, in the cache), WORK (kept if
# given; default a temporary directory under /var/tmp, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."

TENANTS=${TENANTS:-1000000}
HOOKS=${HOOKS:-1000000}
SEED=${SEED:-1}
RUNS=${RUNS:-1}
MAX_CPU_RATIO=${MAX_CPU_RATIO:-2.0}
MAX_RSS_MIB=${MAX_RSS_MIB:-256}
DB_BENCH=${DB_BENCH:-${ANKUSA_ROCKSDB_PREFIX:-/var/cache/ankusa-store/rocksdb-11.1.2-release}/bin/db_bench}
for tool in "$DB_BENCH" jq /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "fixture_bench: $tool is required (GNU time: apt-get install time)" >&2; exit 2; }
done
if [ -n "${WORK:-}" ]; then
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d /var/tmp/fixture-bench.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
fi
note() { echo "fixture_bench: $*" >&2; }

if [ -n "${BIN:-}" ]; then
  cp "$BIN" "$WORK/ankusa-store"
else
  # cgo needs the flags of the one RocksDB every binary links (scripts/rocksdb-env.sh).
  [ -n "${CGO_LDFLAGS:-}" ] || source scripts/rocksdb-env.sh
  note "building ankusa-store"
  go build -o "$WORK/ankusa-store" .
fi

# timed LABEL ARGS...: runs ARGS under GNU time, stdout to $WORK/LABEL.out; prints
# "wall_s cpu_s rss_kib".
timed() {
  local label=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/$label.time" "$@" >"$WORK/$label.out" 2>"$WORK/$label.err" || {
    note "$label failed: $(tail -3 "$WORK/$label.err")"
    exit 2
  }
  tail -1 "$WORK/$label.time" | awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }'
}

# best LABEL: the run of the least CPU among $WORK/LABEL.runs ("wall cpu rss" lines), with the
# highest peak RSS of them all (a bound holds for every run).
best() {
  sort -g -k2 "$WORK/$1.runs" | head -1 | awk -v r="$(sort -g -k3 "$WORK/$1.runs" | tail -1 | cut -d' ' -f3)" '{ print $1, $2, r }'
}

store=$WORK/store
: >"$WORK/fixture.runs"
for i in $(seq "$RUNS"); do
  rm -rf "$store"
  note "fixture --tenants $TENANTS --hooks $HOOKS, run $i of $RUNS"
  timed fixture "$WORK/ankusa-store" fixture --dir -q --seed "$SEED" --tenants "$TENANTS" --hooks "$HOOKS" "$store" >>"$WORK/fixture.runs"
done

"${RAWREAD_BIN:-$WORK/ankusa-store}" rawread --cfs all -o json "$store" >"$WORK/content.json"
KEYS=$(jq .keys "$WORK/content.json")
KEY_SIZE=$(jq '(.key_bytes / .keys) | round | if . < 1 then 1 else . end' "$WORK/content.json")
VALUE_SIZE=$(jq '((.bytes - .key_bytes) / .keys) | round | if . < 1 then 1 else . end' "$WORK/content.json")
STORE_MB=$(jq '.bytes / 1000000 | . * 10 | round / 10' "$WORK/content.json")
rm -rf "$store"

floor_args=(--benchmarks=fillrandom --sync=0 --batch_size=1000 --num="$KEYS" --key_size="$KEY_SIZE" --value_size="$VALUE_SIZE" --threads=1)
: >"$WORK/floor.runs"
for i in $(seq "$RUNS"); do
  rm -rf "$WORK/floor"
  note "db_bench ${floor_args[*]}, run $i of $RUNS"
  timed floor "$DB_BENCH" "${floor_args[@]}" --db="$WORK/floor" >>"$WORK/floor.runs"
done
rm -rf "$WORK/floor"

read -r F_WALL F_CPU F_RSS < <(best fixture)
read -r D_WALL D_CPU D_RSS < <(best floor)
RATIO=$(awk -v a="$F_CPU" -v b="$D_CPU" 'BEGIN { printf "%.2f", a / b }')
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
printf '%-44s %8s %8s %9s %10s\n' what wall_s cpu_s rss_MiB cpu_ratio
printf '%-44s %8s %8s %9s %10s\n' "fixture --tenants $TENANTS --hooks $HOOKS" "$F_WALL" "$F_CPU" "$(mib "$F_RSS")" "$RATIO"
printf '%-44s %8s %8s %9s %10s\n' "db_bench fillrandom, the store's final keys" "$D_WALL" "$D_CPU" "$(mib "$D_RSS")" 1.00
echo "store: $KEYS keys, $STORE_MB MB (keys $KEY_SIZE B, values $VALUE_SIZE B on average); floor: $DB_BENCH ${floor_args[*]}"
echo "best of $RUNS run(s) by CPU; load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

fail=0
check() { # text ok
  if [ "$2" = 1 ]; then echo "PASS  $1"; else echo "FAIL  $1"; fail=1; fi
}
check "fixture CPU within ${MAX_CPU_RATIO}x of the floor's (${RATIO}x)" "$(awk -v r="$RATIO" -v m="$MAX_CPU_RATIO" 'BEGIN { print (r <= m) }')"
check "fixture peak RSS < $MAX_RSS_MIB MiB ($(mib "$F_RSS") MiB)" "$(awk -v k="$F_RSS" -v m="$MAX_RSS_MIB" 'BEGIN { print (k / 1024 < m) }')"
exit $fail
