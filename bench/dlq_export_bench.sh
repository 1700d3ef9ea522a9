#!/usr/bin/env bash
# dlq export of 10^6 dead rows (each with its hook: headers and a body of 256 to 767 bytes),
# with its targets:
#   - peak RSS under 100 MiB: the export holds a page of rows, whatever the queue's length;
#   - wall time within 2x of `dlq scan --limit 0 -o json` of the same rows (which reads the
#     dead rows, their delivery rows and tenant names as the export does, but no hook, and
#     builds its one JSON document in memory).
#
# The store is built by the Go benchmark's builder in pkg/inspect (dlq_export_bench_test.go,
# straight from the contract's keys and values, as bench/views_bench.sh's stores are) and kept
# in $VIEWS_BENCH_DIR (default: a fresh temporary directory) as dead-hooks-1000000, so that a
# second run starts at once. Each command runs RUNS times (default 3) under /usr/bin/time -v;
# the best wall time and the highest peak RSS are judged. When the machine is overloaded (load
# average above its cores) the wall clock measures the neighbours, so the ratio is judged on
# CPU time (user + system) instead, and the verdict says so. Exit 1 when a target is missed.
#
#   nice bench/dlq_export_bench.sh            (BIN: another ankusa-store to measure)
set -euo pipefail
cd "$(dirname "$0")/.."

work=${VIEWS_BENCH_DIR:-$(mktemp -d -t dlq-export-bench-XXXXXX)}
runs=${RUNS:-3}
mkdir -p "$work"
export ANKUSA_VIEWS_BENCH_DIR=$work
bin=$work/ankusa-store
if [ -n "${BIN:-}" ]; then cp "$BIN" "$bin"; else go build -o "$bin" .; fi
echo "store and results in $work" >&2

# 1. The store (built on first use) and the library's figure.
go test -run '^$' -bench 'BenchmarkExportDLQ/dead=1000000$' -benchtime 1x -count 1 ./pkg/inspect/ | tee "$work/go-bench.txt"
store=$work/dead-hooks-1000000
[ -f "$store/done" ] || { echo "no store at $store" >&2; exit 1; }

# 2. The commands. measure NAME ARGS...: one line "wall_s cpu_s rss_kib rows" per run.
measure() {
  local name=$1
  shift
  for _ in $(seq "$runs"); do
    /usr/bin/time -v -o "$work/$name.time" "$bin" "$@" >"$work/$name.out" 2>"$work/$name.err"
    awk -v rows="$(wc -l <"$work/$name.out")" '
      /Elapsed \(wall clock\)/ { n = split($NF, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i] }
      /User time/ { u = $NF } /System time/ { s = $NF }
      /Maximum resident set size/ { r = $NF }
      END { printf "%.2f %.2f %d %d\n", w, u + s, r, rows }' "$work/$name.time"
  done | tee "$work/$name.runs" >&2
}
echo "dlq export (wall s, cpu s, peak RSS KiB, lines):" >&2
measure export dlq export "$store"
echo "dlq scan --limit 0 -o json (wall s, cpu s, peak RSS KiB, lines):" >&2
measure scan dlq scan --limit 0 -o json "$store"
exported=$(tail -1 "$work/export.runs" | cut -d' ' -f4)
[ "$exported" = 1000000 ] || { echo "dlq export wrote $exported lines, not 1000000" >&2; exit 1; }

# 3. The verdict.
load=$(cut -d' ' -f1 /proc/loadavg)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" | tee "$work/verdict.txt"
col=1 what=wall
if awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l > n) }'; then
  col=2 what=cpu
  echo "overloaded: the ratio is judged on CPU time, not wall clock" | tee -a "$work/verdict.txt"
fi
best() { sort -g -k"$2" "$work/$1.runs" | head -1 | cut -d' ' -f"$2"; }
peak() { sort -g -k3 "$work/$1.runs" | tail -1 | cut -d' ' -f3; }
awk -v ew="$(best export 1)" -v ec="$(best export 2)" -v sw="$(best scan 1)" -v sc="$(best scan 2)" \
  -v er="$(peak export)" -v sr="$(peak scan)" -v col="$col" -v what="$what" '
BEGIN {
  fail = 0
  e = (col == 1 ? ew : ec); s = (col == 1 ? sw : sc)
  printf "dlq export, 10^6 dead rows: %.2f s wall, %.2f s CPU, peak RSS %.1f MiB (target < 100 MiB)\n", ew, ec, er / 1024
  printf "dlq scan --limit 0 -o json, same rows: %.2f s wall, %.2f s CPU, peak RSS %.1f MiB\n", sw, sc, sr / 1024
  printf "export / scan (%s): %.2f (target <= 2)\n", what, e / s
  if (er / 1024 >= 100) fail = 1
  if (e / s > 2) fail = 1
  print (fail ? "FAIL" : "PASS")
  exit fail
}' | tee -a "$work/verdict.txt"
