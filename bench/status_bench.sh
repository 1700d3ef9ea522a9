#!/usr/bin/env bash
# status costs O(1) in the rows of a format 3 store: the benchmark runs it on 10^4 and
# 10^6-row stores (built by BenchmarkStoreStatus in pkg/inspect, straight from the
# contract's keys) next to a plain read-only open of the same store, and next to
# RocksDB's own ldb reading one key (`ldb get m:format`, which also opens the store).
#
# Targets: status/open within 2x at both sizes, and status(10^6)/status(10^4) within 2x
# (what grows with the rows is the open itself: more files and a bigger MANIFEST).
# Ratios, never absolute times: the machine is shared. Exit 1 when a target is missed.
# Stores live in $STATUS_BENCH_DIR (default ~/.cache/ankusa-status-bench), out of the repository.
set -euo pipefail
cd "$(dirname "$0")/.."

work=${STATUS_BENCH_DIR:-$HOME/.cache/ankusa-status-bench}
mkdir -p "$work"
export ANKUSA_VIEWS_BENCH_DIR=$work
bin=$work/ankusa-store
go build -o "$bin" .

nice go test -run '^$' -bench 'BenchmarkStoreStatus' -benchtime 30x -count 5 ./pkg/inspect/ | tee "$work/status-bench.txt"
min_ns() { awk -v b="$1" '$1 ~ b { if (min == "" || $3 < min) min = $3 } END { print min }' "$work/status-bench.txt"; }
o4=$(min_ns 'rows=10000/open-'); s4=$(min_ns 'rows=10000/status-'); r4=$(min_ns 'rows=10000/reads-')
o6=$(min_ns 'rows=1000000/open-'); s6=$(min_ns 'rows=1000000/status-'); r6=$(min_ns 'rows=1000000/reads-')

# The commands, best of 15, next to ldb.
best() { # best wall time in ms of 15 runs of "$@"
  for _ in $(seq 15); do
    s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 1000))
  done | sort -n | head -1 | awk '{ printf "%.2f", $1 / 1000 }'
}
c4=$(best "$bin" status "$work/status-10000"); c6=$(best "$bin" status "$work/status-1000000")
l4=-; l6=-
if command -v ldb >/dev/null; then
  l4=$(best ldb --db="$work/status-10000" --try_load_options=false get m:format)
  l6=$(best ldb --db="$work/status-1000000" --try_load_options=false get m:format)
fi

awk -v o4="$o4" -v s4="$s4" -v r4="$r4" -v o6="$o6" -v s6="$s6" -v r6="$r6" \
    -v c4="$c4" -v c6="$c6" -v l4="$l4" -v l6="$l6" 'BEGIN {
  printf "library, best of 5 (ns/op):\n"
  printf "  10^4 rows: open %d, open+status %d (%.2fx open), status reads alone %d\n", o4, s4, s4 / o4, r4
  printf "  10^6 rows: open %d, open+status %d (%.2fx open), status reads alone %d\n", o6, s6, s6 / o6, r6
  printf "  status reads 10^6 / 10^4: %.2fx\n", r6 / r4
  printf "command, best of 15 (ms): status 10^4 %s, 10^6 %s (%.2fx); ldb get m:format 10^4 %s, 10^6 %s\n", c4, c6, c6 / c4, l4, l6
  if (l4 != "-") printf "  status / ldb: 10^4 %.2fx, 10^6 %.2fx\n", c4 / l4, c6 / l6
  fail = 0
  if (s4 / o4 > 2 || s6 / o6 > 2) { print "MISSED: status is more than 2x a plain open"; fail = 1 }
  if (r6 / r4 > 2) { print "MISSED: the status reads grow with the rows"; fail = 1 }
  if (!fail) print "targets met"
  exit fail
}'
