#!/usr/bin/env bash
# What the check of every table file's metaindex and properties blocks (tablecheck.go) costs
# an open, as ratios against RocksDB's own tools on the same files, in the same run:
#   - sst_dump --command=none --show_properties: RocksDB opening each table file (footer,
#     metaindex, properties, index), which is what every DB open does with max_open_files -1;
#   - sst_dump --command=verify: every block's checksum (what VerifyChecksum would cost).
#
#   pkg/rocks/bench/tablecheck_vs_sstdump.sh [num]      (default num=2000000)
set -euo pipefail
num=${1:-2000000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/db"
echo "db_bench fillrandom ($num keys, 1 MiB files)..." >&2
db_bench --benchmarks=fillrandom --num="$num" --key_size=23 --value_size=100 --db="$db" \
	--write_buffer_size=1048576 --target_file_size_base=1048576 --compression_type=none >/dev/null 2>&1
files=$(ls "$db" | grep -c '\.sst$')
best() { # best wall time in ms of 3 runs of a command
	local b=""
	for _ in 1 2 3; do
		local s e
		s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N)
		local ms=$(((e - s) / 1000000))
		if [ -z "$b" ] || [ "$ms" -lt "$b" ]; then b=$ms; fi
	done
	echo "$b"
}
SST_DUMP=${SST_DUMP:-${ANKUSA_ROCKSDB_PREFIX:-/var/cache/ankusa-store/rocksdb-11.1.2-release}/bin/sst_dump}
props=$(best "$SST_DUMP" --file="$db" --command=none --show_properties)
verify=$(best "$SST_DUMP" --file="$db" --command=verify)
ours=$(cd "$here/.." && ANKUSA_BENCH_DB="$db" go test -run '^$' -bench BenchmarkCheckTables -count 3 . 2>&1 |
	awk '/^BenchmarkCheckTables/ { print $3 }' | sort -g | head -1)
ours_ms=$(awk -v n="$ours" 'BEGIN { printf "%.1f", n / 1e6 }')
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
printf '%d table files, %d keys\n' "$files" "$num"
printf '%-52s %10s ms\n' "sst_dump --command=none --show_properties (open each)" "$props"
printf '%-52s %10s ms\n' "sst_dump --command=verify (every block's checksum)" "$verify"
printf '%-52s %10s ms\n' "checkTables (metaindex + properties checksums)" "$ours_ms"
printf 'checkTables / sst_dump open each: %s   checkTables / sst_dump verify: %s\n' \
	"$(ratio "$ours_ms" "$props")" "$(ratio "$ours_ms" "$verify")"
