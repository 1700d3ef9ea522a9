#!/usr/bin/env bash
# Compares the speed of our batched fold/scan with RocksDB's own sequential
# read (db_bench readseq) on this machine, as a ratio (never as a timed test).
#
#   pkg/rocks/bench/fold_vs_dbbench.sh [num]      (default num=1000000)
#
# 1. db_bench fillseq,readseq on a fresh DB (23-byte keys, 5-byte values, the
#    size of a format 3 due row). readseq right after fillseq mostly reads the
#    memtable, so 2. runs readseq again (3 times) on the same DB, reopened,
#    i.e. from its table files.
# 3. Our Scan over that same DB (BenchmarkScanExisting), and our Fold over a
#    store of 10^6 due rows built by the benchmark (BenchmarkFold), and the
#    plain grocksdb loop it replaces (BenchmarkFoldPlainGrocksdb). Go figures
#    are the best of 3 runs, like the db_bench one.
set -euo pipefail
num=${1:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/dbbench"
DB_BENCH=${DB_BENCH:-${ANKUSA_ROCKSDB_PREFIX:-/var/cache/ankusa-store/rocksdb-11.1.2-release}/bin/db_bench}
common=(--num="$num" --key_size=23 --value_size=5 --threads=1 --db="$db")

ops() { awk '/^readseq/ { for (i = 1; i <= NF; i++) if ($i == "ops/sec") print $(i-1) }'; }

echo "db_bench fillseq,readseq (fresh DB, WAL off for a quick fill)..." >&2
fresh=$("$DB_BENCH" --benchmarks=fillseq,readseq --use_existing_db=0 --disable_wal=1 "${common[@]}" 2>&1 | tee "$work/fresh.txt" | ops | tail -1)
echo "db_bench readseq x3 (reopened, from table files)..." >&2
reopened=$("$DB_BENCH" --benchmarks=readseq,readseq,readseq --use_existing_db=1 "${common[@]}" 2>&1 | ops | sort -n | tail -1)

echo "go test -bench (our Scan on the same DB, our Fold on a 10^6-row store)..." >&2
gobench=$(cd "$here/.." && ANKUSA_BENCH_DB="$db" go test -run '^$' -bench 'BenchmarkScanExisting|BenchmarkFold' -benchtime 5x -count 3 . 2>&1)
echo "$gobench" | grep -E '^Benchmark' >&2
# Best of the runs, like the db_bench figure (the machine may be shared).
rate() { echo "$gobench" | awk -v b="$1" '$1 ~ b { for (i = 1; i <= NF; i++) if ($i == "keys/s") print $(i-1) }' | sort -g | tail -1; }
scan=$(rate '^BenchmarkScanExisting-')
fold=$(rate '^BenchmarkFold-')
plain=$(rate '^BenchmarkFoldPlainGrocksdb-')

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
printf '%-44s %12s keys/s\n' "db_bench readseq after fillseq (memtable)" "$fresh"
printf '%-44s %12s keys/s\n' "db_bench readseq, reopened (best of 3)" "$reopened"
printf '%-44s %12.0f keys/s   ratio %s (vs reopened), %s (vs after fillseq)\n' "Go Scan, same DB" "$scan" "$(ratio "$scan" "$reopened")" "$(ratio "$scan" "$fresh")"
printf '%-44s %12.0f keys/s   ratio %s (vs reopened), %s (vs after fillseq)\n' "Go Fold, 10^6 due rows" "$fold" "$(ratio "$fold" "$reopened")" "$(ratio "$fold" "$fresh")"
printf '%-44s %12.0f keys/s   ratio %s (vs reopened), %s (vs after fillseq)\n' "plain grocksdb loop, 10^6 due rows" "$plain" "$(ratio "$plain" "$reopened")" "$(ratio "$plain" "$fresh")"
