#!/usr/bin/env bash
# A migration stopped again and again ends where an uninterrupted one does: at
# ROWS index rows over TENANTS tenants (10^7 over 10^5, the scale bench's big
# store), one copy of the source is migrated in one run and another in RUNS
# runs (default 10), each of the first RUNS-1 sent SIGTERM at a random moment
# of its steps, the last left to finish. Then the tool's own `diff` must find
# the two stores equal (exit 0) and `counters verify` the resumed one healthy.
#
# A run spends its first seconds opening the store and planning (at 10^7 rows
# on a loaded machine, longer than a tenth of the whole migration), so a
# moment counted from its start would stop most runs before their first
# step, and the last run would do all the work. Each interrupted run is
# therefore met after its first committed step, where it stops itself
# (migration.PauseEnv=after-step), let go on with SIGCONT, and sent SIGTERM
# a random time later, drawn from [0, MAX_S) seconds (default: the
# uninterrupted run's stepping time over RUNS-1, so that the signals fall at
# different steps all along the migration, and the last run has work left).
# Each must exit 130 (interrupted, as documented), or 0 if its steps ended
# before the signal came; any other exit fails the check. The seed is
# printed, and SEED= replays a run's moments.
#
# Env: ROWS, TENANTS, RUNS, SEED, MAX_S, BIN (default: the release
# build, scripts/static-build.sh), WORK (default ~/.cache/ankusa-scale-bench,
# the scale bench's: the source is generated once and shared with it).
# Exit 1 if the stores differ, the resumed one is not healthy, or a run ended
# otherwise than said.
set -euo pipefail
cd "$(dirname "$0")/.."

ROWS=${ROWS:-10000000}
TENANTS=${TENANTS:-100000}
RUNS=${RUNS:-10}
SEED=${SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
WORK=${WORK:-$HOME/.cache/ankusa-scale-bench}
NOW=1796032800000 # the stores' clock and the migration's start, as in scale_bench.sh
note() { echo "interrupted_bench: $*" >&2; }

for tool in jq /usr/bin/time; do
  command -v "$tool" >/dev/null || { note "$tool is required"; exit 2; }
done
mkdir -p "$WORK"
go build -o "$WORK/migrategen" ./bench/migrategen
if [ -z "${BIN:-}" ]; then
  BIN=$WORK/ankusa-store-release
  [ -x "$BIN" ] || scripts/static-build.sh "$BIN" >&2
fi

src=$WORK/src-r$ROWS-t$TENANTS
if [ ! -f "$src/CURRENT" ]; then
  rm -rf "$src"
  note "generating $src ($ROWS rows over $TENANTS tenants)"
  "$WORK/migrategen" -dir "$src" -rows "$ROWS" -tenants "$TENANTS" -now "$NOW" >&2
fi
once=$WORK/interrupted-once
resumed=$WORK/interrupted-resumed
rm -rf "$resumed"
cp -r "$src" "$resumed"
# The uninterrupted migration is kept from an earlier run of this script when it finished
# (it is what the resumed one must equal, whatever the moments).
if [ -f "$once/CURRENT" ] && jq -e .finished "$WORK/once.json" >/dev/null 2>&1; then
  once_s="(kept from an earlier run)"
else
  rm -rf "$once"
  cp -r "$src" "$once"
  start=$(date +%s.%N)
  "$BIN" migrate --method steps --no-backup --progress=none --now "$NOW" -o json "$once" >"$WORK/once.json"
  once_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }')
fi
steps_s=$(jq '.duration_ms / 1000' "$WORK/once.json")
note "uninterrupted: ${once_s}, of which ${steps_s} s stepping ($(jq .steps "$WORK/once.json") steps)"
MAX_S=${MAX_S:-$(awk -v s="$steps_s" -v n="$((RUNS - 1))" 'BEGIN { m = s / n; if (m < 1) m = 1; printf "%.1f", m }')}

# state PID: the process's state letter (T: stopped), empty once it is gone.
state() { awk '{ sub(/.*\) /, ""); print substr($0, 1, 1) }' "/proc/$1/stat" 2>/dev/null || true; }

fail=0
RANDOM=$SEED
note "seed $SEED: $((RUNS - 1)) runs stopped by SIGTERM at random moments in [0, $MAX_S) s after their first step, then one to the end"
for i in $(seq 1 $((RUNS - 1))); do
  wait_s=$(awk -v r="$RANDOM" -v b="$MAX_S" 'BEGIN { printf "%.2f", b * r / 32768 }')
  ANKUSA_STORE_MIGRATE_PAUSE=after-step "$BIN" migrate --method steps --no-backup --progress=none --now "$NOW" -o json "$resumed" >"$WORK/run-$i.json" 2>"$WORK/run-$i.err" &
  pid=$!
  while s=$(state "$pid"); [ -n "$s" ] && [ "$s" != T ] && [ "$s" != Z ]; do sleep 0.05; done
  kill -CONT "$pid" 2>/dev/null || true
  sleep "$wait_s"
  kill -TERM "$pid" 2>/dev/null || true
  rc=0
  wait "$pid" || rc=$?
  state=$(jq -r 'if has("finished") then "finished: \(.finished), steps: \(.steps), rows: \(.rows)" else (.error | tostring) end' "$WORK/run-$i.json" 2>/dev/null || echo "?")
  note "run $i: SIGTERM after $wait_s s: exit $rc ($state)"
  case $rc in
  0 | 130) ;;
  *) note "run $i ended with exit $rc: $(tail -1 "$WORK/run-$i.err")"; fail=1 ;;
  esac
done
"$BIN" migrate --method steps --no-backup --progress=none --now "$NOW" -o json "$resumed" >"$WORK/run-$RUNS.json" ||
  { note "the last run failed"; fail=1; }

rc=0
"$BIN" diff -o json "$once" "$resumed" >"$WORK/interrupted-diff.json" || rc=$?
note "diff of the two migrations: exit $rc, $(jq -c '{only_in_a, only_in_b, changed, unreadable}' "$WORK/interrupted-diff.json" 2>/dev/null)"
[ "$rc" = 0 ] || fail=1
rc=0
"$BIN" counters verify -q "$resumed" || rc=$?
note "counters verify of the resumed migration: exit $rc"
[ "$rc" = 0 ] || fail=1
[ "$fail" = 0 ] && rm -rf "$once" "$resumed"
echo "interrupted_bench: $ROWS rows, $RUNS runs, seed $SEED: $([ "$fail" = 0 ] && echo "PASS: equal to the uninterrupted migration, healthy" || echo FAIL)"
exit $fail
