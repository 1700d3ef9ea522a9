#!/usr/bin/env bash
# diff's memory is bounded whatever --limit says (issues 26 and 31): `diff --limit 0 -o json`
# of two stores that differ in 10^5 and in 4*10^5 keys, and `diff --limit 0` piped (TSV),
# each under /usr/bin/time -v; the check fails when a peak RSS is above BOUND_MIB (default
# 256). Before diff streamed its JSON, 460k differing keys peaked at 4.3 GB and 10^6 tenants
# were killed by the OOM killer at 24 GB.
#
# The two stores of a case are bench/migrategen's format 2 stores of the same size and two
# seeds (ROWS index rows each, with their hooks and delivery rows): almost every key of one
# is only in it or changed in the other. The differing keys are counted from diff's own
# totals, and a case whose stores differ in fewer keys than it is named for fails too (a
# bound met by a smaller case proves nothing). Stores are kept in $WORK (default: a fresh
# temporary directory) so that a second run starts at once.
#
#   nice bench/diff_memory.sh        Env: BIN (another ankusa-store), BOUND_MIB (256), WORK
# Exit 1 when a bound is broken.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh >/dev/null
set +e

work=${WORK:-$(mktemp -d -t diff-memory-XXXXXX)}
bound_mib=${BOUND_MIB:-256}
mkdir -p "$work"
bin=$work/ankusa-store
if [ -n "${BIN:-}" ]; then cp "$BIN" "$bin"; else go build -o "$bin" . || exit 1; fi
go build -o "$work/migrategen" ./bench/migrategen || exit 1
echo "stores and results in $work" >&2

fail=0
printf '%-10s %-22s %10s %10s %12s %s\n' keys command wall_s rss_mib differing verdict
# case TARGET ROWS: two stores of ROWS rows, which must differ in at least TARGET keys.
run_case() {
  local target=$1 rows=$2
  local a=$work/a-$rows b=$work/b-$rows
  for s in a b; do
    local dir=$work/$s-$rows seed=1
    [ "$s" = b ] && seed=2
    if [ ! -f "$dir/CURRENT" ]; then
      rm -rf "$dir"
      "$work/migrategen" -dir "$dir" -rows "$rows" -tenants 1000 -seed "$seed" >/dev/null || exit 1
    fi
  done
  for mode in json tsv; do
    local args=(diff -q --limit 0)
    [ "$mode" = json ] && args+=(-o json)
    /usr/bin/time -v -o "$work/$mode-$rows.time" "$bin" "${args[@]}" "$a" "$b" >"$work/$mode-$rows.out" 2>"$work/$mode-$rows.err"
    local rc=$?
    if [ "$rc" != 1 ]; then
      echo "diff-memory: ${args[*]} exited $rc, want 1 (the stores differ)" >&2
      cat "$work/$mode-$rows.err" >&2
      fail=1
      continue
    fi
    local rss_kib wall differing verdict=ok
    rss_kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/$mode-$rows.time")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$work/$mode-$rows.time")
    # The verdict line on stderr: "A and B differ: X only in A, Y only in B, Z changed".
    differing=$(grep -hoE 'differ: [0-9]+ only in A, [0-9]+ only in B, [0-9]+ changed' "$work/$mode-$rows.err" | head -1 |
      awk '{gsub(/,/,""); print $2+$6+$10}')
    if [ -z "$differing" ] || [ "$differing" -lt "$target" ]; then
      verdict="FAIL: the stores differ in ${differing:-?} keys, fewer than $target"
      fail=1
    elif [ "$rss_kib" -gt $((bound_mib * 1024)) ]; then
      verdict="FAIL: peak RSS above $bound_mib MiB"
      fail=1
    fi
    printf '%-10s %-22s %10s %10s %12s %s\n' "$target" "diff --limit 0 ($mode)" "$wall" "$((rss_kib / 1024))" "$differing" "$verdict"
    rm -f "$work/$mode-$rows.out"
  done
}
run_case 100000 28000
run_case 400000 112000
if [ "$fail" != 0 ]; then
  echo "diff-memory: a bound was broken" >&2
  exit 1
fi
echo "diff-memory: every peak RSS under $bound_mib MiB" >&2
