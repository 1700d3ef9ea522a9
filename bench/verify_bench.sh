#!/usr/bin/env bash
# counters verify on a store of about 10^6 delivery rows, with its targets:
#   - verify reads at least 1,000,000 keys/s, and takes at most 1.5x the time
#     of a raw Go fold of the same families in the same run (rocks.Scan of
#     every family verify reads, counting keys: what reading them costs);
#   - the command's peak RSS stays under 256 MiB, and grows with tenants,
#     not with rows.
#
# The store is made once by the fixture command (a seeded history of the
# queue's transitions; ~1.43M hooks make ~10^6 delivery rows, in tens of
# minutes) and kept in $VERIFY_BENCH_DIR (default ~/.cache/ankusa-verify-bench)
# so that later runs start at once. The fixture leaves its last quarter of
# history in the WAL and memtables, as a live node's store has it; a second
# copy, opened read-write once so that RocksDB flushes that to table files,
# shows a store at rest. Both are measured.
#
# Figures: go test -bench (best of 3 counts, the least noisy number on a
# shared machine) for the raw fold, Fold and Verify; GNU time for the
# command's wall time and peak RSS (and for opening the store alone, with
# `tenants ls`, which reads little else); db_bench readseq over as many keys
# as a reference for RocksDB's own sequential read. Exit 1 when a target is
# missed.
#
#   bench/verify_bench.sh            (VERIFY_BENCH_HOOKS, VERIFY_BENCH_TENANTS to change the store)
#
# To measure another build (scripts/release-test.sh does): BIN is the ankusa-store to run,
# DB_BENCH the db_bench of the same RocksDB, ROCKSDB_PREFIX a RocksDB build (include/, lib/)
# that the Go benchmarks link statically instead of Debian's shared library, and
# VERIFY_BENCH_STORE one existing store to measure instead of the fixture pair.
set -euo pipefail
cd "$(dirname "$0")/.."
DB_BENCH=${DB_BENCH:-${ANKUSA_ROCKSDB_PREFIX:-/var/cache/ankusa-store/rocksdb-11.1.2-release}/bin/db_bench}
gotest=(go test)
if [ -n "${ROCKSDB_PREFIX:-}" ]; then
  export CGO_CFLAGS="-I$ROCKSDB_PREFIX/include" CGO_CXXFLAGS="-I$ROCKSDB_PREFIX/include"
  export CGO_LDFLAGS="-L$ROCKSDB_PREFIX/lib -l:librocksdb.a -l:libsnappy.a -l:liblz4.a -l:libzstd.a -l:libz.a -l:libbz2.a -lstdc++ -lm -ldl -pthread"
  gotest=(go test -tags grocksdb_no_link)
fi

hooks=${VERIFY_BENCH_HOOKS:-1430000}
tenants=${VERIFY_BENCH_TENANTS:-1000}
work=${VERIFY_BENCH_DIR:-$HOME/.cache/ankusa-verify-bench}
mkdir -p "$work"
bin=$work/ankusa-store
if [ -n "${BIN:-}" ]; then cp "$BIN" "$bin"; else go build -o "$bin" .; fi
live=$work/store-h$hooks-t$tenants
rest=$live-at-rest
stores=("$live" "$rest")

if [ -n "${VERIFY_BENCH_STORE:-}" ]; then
  stores=("$VERIFY_BENCH_STORE")
  rest=$VERIFY_BENCH_STORE
  echo "store: $VERIFY_BENCH_STORE" >&2
elif [ ! -f "$live/CURRENT" ]; then
  echo "making the store ($hooks hooks, $tenants tenants) in $live ..." >&2
  rm -rf "$live" "$rest"
  "$bin" fixture --dir --hooks "$hooks" --tenants "$tenants" -o json "$live" >"$live.json"
fi
if [ -z "${VERIFY_BENCH_STORE:-}" ] && [ ! -f "$rest/CURRENT" ]; then
  echo "making the at-rest copy $rest ..." >&2
  cp -r "$live" "$rest"
  # A read-write open replays the WAL into table files; --repair on a healthy
  # store writes nothing else (and its checkpoint is thrown away).
  "$bin" counters verify -q --repair --yes --checkpoint "$work/rest-checkpoint" "$rest" >/dev/null
  rm -rf "$work/rest-checkpoint"
fi
if [ -z "${VERIFY_BENCH_STORE:-}" ]; then
  rows=$(awk -F': ' '/"rows"/ { gsub(/,/, "", $2); print $2; exit }' "$live.json")
  echo "store: $rows delivery rows, $tenants tenants ($live)" >&2
fi

fail=0
report() { printf '%-52s %s\n' "$1" "$2"; }
best() { # best keys/s of a benchmark in a go test output
  awk -v b="$1" '$1 ~ b { for (i = 1; i <= NF; i++) if ($i == "keys/s") print $(i-1) }' "$2" | sort -g | tail -1
}
bestns() {
  awk -v b="$1" '$1 ~ b { print $3 }' "$2" | sort -g | head -1
}

for store in "${stores[@]}"; do
  name=$(basename "$store")
  out=$work/go-bench-$name.txt
  echo "== $name" >&2
  ANKUSA_VERIFY_BENCH_STORE=$store "${gotest[@]}" -run '^$' -bench '^(BenchmarkRawFold|BenchmarkVerify|BenchmarkFold)$' \
    -benchtime 3x -count 3 ./pkg/health/ | tee "$out" >&2
  raw=$(best '^BenchmarkRawFold-' "$out")
  ver=$(best '^BenchmarkVerify-' "$out")
  fold=$(best '^BenchmarkFold-' "$out")
  rawns=$(bestns '^BenchmarkRawFold-' "$out")
  verns=$(bestns '^BenchmarkVerify-' "$out")
  ratio=$(awk -v a="$verns" -v b="$rawns" 'BEGIN { printf "%.2f", a / b }')

  timeout=$work/time-$name.txt
  /usr/bin/time -v "$bin" counters verify -q "$store" >/dev/null 2>"$timeout"
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$timeout")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$timeout")
  /usr/bin/time -v "$bin" tenants ls -o json "$store" >/dev/null 2>"$timeout.open"
  rss0=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$timeout.open")

  echo
  echo "$name"
  report "raw fold (rocks.Scan of the same families)" "$(printf '%.0f keys/s, %.2f s' "$raw" "$(awk -v n="$rawns" 'BEGIN { print n / 1e9 }')")"
  heap=$(awk '/^BenchmarkVerify-/ { for (i = 1; i <= NF; i++) if ($i == "peak-heap-MiB") print $(i-1) }' "$out" | sort -g | tail -1)
  report "Verify" "$(printf '%.0f keys/s, %.2f s, %sx the raw fold; Go heap at most %.0f MiB' "$ver" "$(awk -v n="$verns" 'BEGIN { print n / 1e9 }')" "$ratio" "$heap")"
  report "Fold (counters only)" "$(printf '%.0f keys/s' "$fold")"
  report "counters verify (the command)" "$wall wall, peak RSS $rss MiB (opening the store alone: $rss0 MiB)"
  awk -v r="$ratio" 'BEGIN { exit !(r > 1.5) }' && { echo "  MISSED: verify takes more than 1.5x the raw fold"; fail=1; }
  awk -v v="$ver" 'BEGIN { exit !(v < 1000000) }' && { echo "  MISSED: verify reads under 1,000,000 keys/s"; fail=1; }
  [ "$rss" -ge 256 ] && { echo "  MISSED: peak RSS of 256 MiB or more"; fail=1; }
done

# RocksDB's own sequential read of as many keys, for reference.
keys=$(awk '/^BenchmarkRawFold-/ { k = $5 * $3 / 1e9 } END { printf "%.0f", k }' "$work/go-bench-$(basename "$rest").txt")
if command -v "$DB_BENCH" >/dev/null 2>&1 && [ "${keys:-0}" -gt 0 ]; then
  db=$work/dbbench
  rm -rf "$db"
  common=(--num="$keys" --key_size=16 --value_size=24 --threads=1 --db="$db")
  "$DB_BENCH" --benchmarks=fillseq --use_existing_db=0 --disable_wal=1 "${common[@]}" >/dev/null 2>&1
  readseq=$("$DB_BENCH" --benchmarks=readseq,readseq,readseq --use_existing_db=1 "${common[@]}" 2>&1 |
    awk '/^readseq/ { for (i = 1; i <= NF; i++) if ($i == "ops/sec") print $(i-1) }' | sort -n | tail -1)
  echo
  report "db_bench readseq, $keys keys (best of 3)" "$readseq keys/s"
  rm -rf "$db"
fi
exit $fail
