#!/usr/bin/env bash
# Every command's peak RSS at a node's width, whatever its flags: each command
# runs as a process under GNU time on a migrated store of 10^6 tenants
# (bench/migrategen -rows 2000000 -tenants 1000000, migrated), stdout to
# /dev/null, and its peak RSS is held to MAX_RSS_MIB (256). The commands are
# those whose result grows with the store: tenants ls in every order, with and
# without --limit, dlq scan --limit 0 -o json (every dead row), dlq export,
# counters verify, diff against a hard-linked copy, and status beside a
# checkpoint record planted at RECORD_MB (188) MB. Then the same bound on two
# stores of rows far larger than a node's usual, each generated with
# bench/migrategen -dead-only and migrated: "bodies-100k" (3,000 dead letters
# whose hooks have bodies of 100 KB) and "tenant-1mib" (300 dead letters of
# one tenant whose id, in every hook, is a MiB), for dlq export (auto, joined
# and by key), dlq scan --limit 0 -o json, tenants ls -o json and diff against
# a hard-linked copy: a page of rows is bounded in bytes as well as in rows.
# It prints one row a command (wall s, CPU s, peak RSS, PASS or FAIL) and
# exits 1 if a bound is broken.
#
# Env: BIN (default: built from this tree), WORK (default
# ~/.cache/ankusa-memory-bench; the generated stores are kept there and
# reused: about 1.3 GB), STORE (a migrated store to use instead of WORK's),
# MAX_RSS_MIB, RECORD_MB, NOW, ONLY (a regular expression: only the commands
# whose label matches), STORES (default "wide bodies-100k tenant-1mib": the
# stores to run on; the two large-row ones take about 330 MB and 330 MB).
set -euo pipefail
cd "$(dirname "$0")/.."

WORK=${WORK:-$HOME/.cache/ankusa-memory-bench}
MAX_RSS_MIB=${MAX_RSS_MIB:-256}
RECORD_MB=${RECORD_MB:-188}
NOW=${NOW:-1796032800000} # 2026-11-30T10:00:00Z: the store's clock
ONLY=${ONLY:-.}
STORES=${STORES:-wide bodies-100k tenant-1mib}
has_store() { [[ " $STORES " == *" $1 "* ]]; }
command -v /usr/bin/time >/dev/null || { echo "memory_bench: GNU time (/usr/bin/time) is required: apt-get install time" >&2; exit 2; }
mkdir -p "$WORK"
note() { echo "memory_bench: $*" >&2; }

if [ -z "${BIN:-}" ]; then
  BIN=$WORK/ankusa-store
  go build -o "$BIN" .
fi
if [ -z "${STORE:-}" ] && has_store wide; then
  STORE=$WORK/wide-v3
  if [ ! -f "$STORE/CURRENT" ]; then
    go build -o "$WORK/migrategen" ./bench/migrategen
    rm -rf "$STORE" "$STORE.tmp"
    note "generating $STORE (2*10^6 rows over 10^6 tenants) and migrating it"
    "$WORK/migrategen" -dir "$STORE.tmp" -rows 2000000 -tenants 1000000 -now "$NOW" >&2
    "$BIN" migrate --no-backup --now "$NOW" -q "$STORE.tmp" >&2
    mv "$STORE.tmp" "$STORE"
  fi
fi

fail=0
printf '%-48s %8s %8s %9s\n' command wall_s cpu_s rss_MiB
# run LABEL ARGS...: the command under GNU time, stdout to /dev/null.
run() {
  local label=$1 wall user sys kib rss verdict rc=0
  shift
  [[ $label =~ $ONLY ]] || return 0
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$BIN" "$@" >/dev/null 2>"$WORK/stderr" || rc=$?
  read -r wall user sys kib < <(tail -1 "$WORK/time") # after "Command exited with non-zero status N"
  rss=$(awk -v k="$kib" 'BEGIN { printf "%.1f", k / 1024 }')
  verdict=PASS
  if ! awk -v r="$rss" -v m="$MAX_RSS_MIB" 'BEGIN { exit !(r < m) }'; then verdict=FAIL; fail=1; fi
  # A command that failed proves nothing about its memory: the store is healthy.
  if [ "$rc" != 0 ]; then
    verdict="FAIL (exit $rc: $(tail -1 "$WORK/stderr"))"
    fail=1
  fi
  printf '%-48s %8s %8s %9s  %s\n' "$label" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')" "$rss" "$verdict"
}

trap 'rm -rf "$WORK/planted" "$WORK"/*-linked' EXIT
if has_store wide; then
  # The planted record: a hard-linked copy of the store (nothing is copied, and
  # the store itself is left as it is) with an ANKUSA-CHECKPOINTS of RECORD_MB
  # MB of lines naming checkpoints that are gone.
  planted=$WORK/planted
  rm -rf "$planted"
  mkdir "$planted"
  ln "$STORE"/* "$planted"/
  awk -v mb="$RECORD_MB" -v dir="$WORK" 'BEGIN {
    n = int(mb * 1000000 / 100)
    for (i = 0; i < n; i++) printf "{\"path\":\"%s/gone/store.backup-%012d-padding-to-a-hundred-bytes\",\"taken_by\":\"migrate\",\"at_ms\":1}\n", dir, i
  }' >"$planted/ANKUSA-CHECKPOINTS"
  run "tenants ls -o json" tenants ls -o json "$STORE"
  for sort in pending oldest name bytes ord; do
    run "tenants ls --sort $sort --limit 5" tenants ls --sort "$sort" --limit 5 "$STORE"
    run "tenants ls --sort $sort -o json" tenants ls --sort "$sort" -o json "$STORE"
  done
  run "tenants ls --sort dead --limit 999999 --all" tenants ls --sort dead --limit 999999 --all "$STORE"
  run "dlq scan --limit 0 -o json" dlq scan --limit 0 -o json "$STORE"
  run "dlq scan --limit 0" dlq scan --limit 0 "$STORE"
  run "dlq export" dlq export "$STORE"
  run "counters verify -q -o json" counters verify -q -o json "$STORE"
  # Two opens of the same tables (the planted copy is hard links): every key compared, none
  # differs, so what it holds is what reading two stores side by side costs.
  run "diff --limit 0 -o json, against a copy" diff --limit 0 -o json "$STORE" "$planted"
  run "status, ${RECORD_MB} MB checkpoint record" status "$planted"
  run "status -o json, ${RECORD_MB} MB checkpoint record" status -o json "$planted"
  run "checkpoints ls, ${RECORD_MB} MB checkpoint record" checkpoints ls "$planted"
fi

# large_rows NAME MIGRATEGEN-ARGS...: the store NAME of rows far larger than a
# node's usual, generated once and migrated (kept in WORK), and the commands
# that read its rows, each under the same bound.
large_rows() {
  local name=$1 dir=$WORK/$1-v3
  shift
  has_store "$name" || return 0
  if [ ! -f "$dir/CURRENT" ]; then
    [ -x "$WORK/migrategen" ] || go build -o "$WORK/migrategen" ./bench/migrategen
    rm -rf "$dir" "$dir.tmp"
    note "generating $dir ($*) and migrating it"
    "$WORK/migrategen" -dir "$dir.tmp" -now "$NOW" -dead-only "$@" >&2
    "$BIN" migrate --no-backup --now "$NOW" -q "$dir.tmp" >&2
    mv "$dir.tmp" "$dir"
  fi
  local linked=$WORK/$name-linked
  rm -rf "$linked"
  mkdir "$linked"
  ln "$dir"/* "$linked"/
  run "$name: dlq export" dlq export "$dir"
  run "$name: dlq export --join sorted" dlq export --join sorted "$dir"
  run "$name: dlq export --join by-key" dlq export --join by-key "$dir"
  run "$name: dlq scan --limit 0 -o json" dlq scan --limit 0 -o json "$dir"
  run "$name: tenants ls -o json" tenants ls -o json "$dir"
  run "$name: diff --limit 0 -o json, against a copy" diff --limit 0 -o json "$dir" "$linked"
  rm -rf "$linked"
}
large_rows bodies-100k -rows 3000 -tenants 100 -body-min 102400 -body-max 102400
large_rows tenant-1mib -rows 300 -tenants 1 -tenant-bytes 1048576
echo "bound: peak RSS < $MAX_RSS_MIB MiB; load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit $fail
