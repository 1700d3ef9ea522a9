#!/usr/bin/env bash
# Does compacting a migrated store pay for itself at the node's first scans? On a store of
# ROWS index rows from bench/migrategen, migrated by the CLI (which leaves every family
# flushed), it times the first on-call reads (dlq scan --limit 50, tenants ls -o json,
# counters verify) on the store as migrate leaves it, and on a copy whose index family (the
# emptied d/f ranges, the rewritten x/a rows) was then compacted, and prints the compaction's
# own time beside the scans' savings. Wall times of one run each; run it twice on a shared
# machine.
#
# Usage: bench/atrest_bench.sh     Env: ROWS (10^6), TENANTS (10^4), BIN (default: built here),
#        WORK (kept if given), FAMILIES (what to compact, default index)
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000000}
TENANTS=${TENANTS:-10000}
FAMILIES=${FAMILIES:-index}
NOW=1796032800000
if [ -n "${WORK:-}" ]; then
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d /tmp/atrest-bench.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
fi
if [ -n "${BIN:-}" ]; then cp "$BIN" "$WORK/ankusa-store"; else go build -o "$WORK/ankusa-store" .; fi
go build -o "$WORK/migrategen" ./bench/migrategen
go build -o "$WORK/compactstore" ./bench/compactstore
bin=$WORK/ankusa-store

src=$WORK/migrated-$ROWS
if [ ! -f "$src/CURRENT" ]; then
  rm -rf "$src" "$WORK/v2-$ROWS"
  "$WORK/migrategen" -dir "$WORK/v2-$ROWS" -rows "$ROWS" -tenants "$TENANTS" -now "$NOW" >&2
  "$bin" migrate -q --no-backup --now "$NOW" -o json "$WORK/v2-$ROWS" >/dev/null
  mv "$WORK/v2-$ROWS" "$src"
fi

secs() { # command... -> wall seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
scans() { # store -> "dlq tenants verify"
  sync
  echo "$(secs "$bin" dlq scan --limit 50 "$1") $(secs "$bin" tenants ls -o json "$1") $(secs "$bin" counters verify -q "$1")"
}

rm -rf "$WORK/as-left" "$WORK/compacted"
cp -r "$src" "$WORK/as-left"
cp -r "$src" "$WORK/compacted"
sync
compact_s=$("$WORK/compactstore" -dir "$WORK/compacted" -families "$FAMILIES")
read -r l_dlq l_ten l_ver <<<"$(scans "$WORK/as-left")"
read -r c_dlq c_ten c_ver <<<"$(scans "$WORK/compacted")"
size() { du -sm "$1" | cut -f1; }
printf '%-26s %8s %10s %9s %9s %8s\n' store dlq_s tenants_s verify_s scans_s size_MB
printf '%-26s %8s %10s %9s %9s %8s\n' "as migrate leaves it" "$l_dlq" "$l_ten" "$l_ver" \
  "$(awk -v a="$l_dlq" -v b="$l_ten" -v c="$l_ver" 'BEGIN { printf "%.2f", a + b + c }')" "$(size "$WORK/as-left")"
printf '%-26s %8s %10s %9s %9s %8s\n' "$FAMILIES compacted" "$c_dlq" "$c_ten" "$c_ver" \
  "$(awk -v a="$c_dlq" -v b="$c_ten" -v c="$c_ver" 'BEGIN { printf "%.2f", a + b + c }')" "$(size "$WORK/compacted")"
echo "compaction of $FAMILIES: $compact_s s; the first scans save $(awk -v a="$l_dlq" -v b="$l_ten" -v c="$l_ver" -v d="$c_dlq" -v e="$c_ten" -v f="$c_ver" 'BEGIN { printf "%.2f", (a + b + c) - (d + e + f) }') s (rows $ROWS, tenants $TENANTS, load $(cut -d' ' -f1-3 /proc/loadavg))"
