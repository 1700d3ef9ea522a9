#!/usr/bin/env bash
# The bulk method's equality at scale (issue 45): the same format 2 store migrated by
# `migrate --method steps` and by `--method bulk` (two copies) must end equal. The tests hold
# it on small stores of every kind (cmd TestMigrateBulkEqualsSteps); this holds it where the
# bulk method's runs spill and merge, its tables split and its joins stream, which takes
# minutes, not a test's seconds.
#
# It makes the store (once; kept in WORK when given), copies it twice, migrates the copies,
# one by each method, under GNU time, and checks:
#   - both exit 0;
#   - `diff` of the two results exits 0 (every key of every family equal);
#   - migrate's JSON the same but for the method, the store's path and the clock
#     (method, store, duration_ms, rows_per_sec, started_at): counts, findings, tenants,
#     default filing;
#   - `counters verify` says the same of both (exit code and findings), unless VERIFY=0.
# It prints both runs' wall, CPU and peak RSS and exits 1 if a check fails.
#
# The store: GEN=fixture (default) is `ankusa-store fixture --format 2 --tenants TENANTS
# --hooks HOOKS`, the queue's whole history with missing and undecodable hooks among the
# rows; GEN=migrategen is bench/migrategen's backlog of ROWS index rows over TENANTS tenants
# (10^7 rows in minutes, where the fixture would take an hour).
#
#   nice bash bench/bulk_equal.sh                      # fixture, 10^6 tenants, 10^6 hooks
#   GEN=migrategen ROWS=10000000 TENANTS=100000 WORK=/var/tmp/bulk-equal nice bash bench/bulk_equal.sh
#
# Env: GEN, TENANTS (1000000), HOOKS (1000000), ROWS (10000000, migrategen), SEED (1),
# VERIFY (1), WORK, BIN or BUILD (dev or release: bench/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=bulk_equal
source bench/lib.sh

GEN=${GEN:-fixture}
TENANTS=${TENANTS:-1000000}
HOOKS=${HOOKS:-1000000}
ROWS=${ROWS:-10000000}
SEED=${SEED:-1}
VERIFY=${VERIFY:-1}

need jq /usr/bin/time
work_dir
build_tool "$WORK/ankusa-store"
tool=$WORK/ankusa-store

case $GEN in
fixture)
  src=$WORK/src-fixture-s$SEED-t$TENANTS-h$HOOKS
  if [ ! -f "$src/CURRENT" ]; then
    rm -rf "$src"
    note "fixture: $TENANTS tenants, $HOOKS hooks"
    timed /dev/null "$tool" fixture --format 2 --seed "$SEED" --tenants "$TENANTS" --hooks "$HOOKS" --now "$NOW" -q --dir "$src"
    [ "$RC" = 0 ] || { note "fixture failed (exit $RC)"; exit 2; }
    note "fixture: ${SECS}s"
  fi
  what="fixture seed $SEED, $TENANTS tenants, $HOOKS hooks"
  ;;
migrategen)
  src=$WORK/src-migrategen-r$ROWS-t$TENANTS
  gen_store "$src" "$ROWS" "$TENANTS" -seed "$SEED"
  what="migrategen, $ROWS rows over $TENANTS tenants"
  ;;
*) note "GEN must be fixture or migrategen, not $GEN"; exit 2 ;;
esac

# The two copies end in the same name (WORK/steps/store, WORK/bulk/store): what each run
# says of its store then reads the same.
declare -A WALL CPUS RSS
for m in steps bulk; do
  rm -rf "${WORK:?}/$m"
  mkdir "$WORK/$m"
  cp -r "$src" "$WORK/$m/store"
done
sync
for m in steps bulk; do
  note "migrate --method $m"
  timed "$WORK/$m.json" "$tool" migrate --no-backup --now "$NOW" --method "$m" -o json --progress=none "$WORK/$m/store"
  [ "$RC" = 0 ] || { note "migrate --method $m failed (exit $RC)"; cat "$WORK/$m.json" >&2; exit 1; }
  WALL[$m]=$SECS CPUS[$m]=$CPU RSS[$m]=$RSS_MIB
done

# migrate's JSON without what may differ between the methods.
same_but_method() {
  jq -S 'walk(if type == "object" then del(.method, .store, .duration_ms, .rows_per_sec, .started_at) else . end)' "$1"
}
same_but_method "$WORK/steps.json" >"$WORK/steps.cmp"
same_but_method "$WORK/bulk.json" >"$WORK/bulk.cmp"
json_same=1
if ! cmp -s "$WORK/steps.cmp" "$WORK/bulk.cmp"; then
  json_same=0
  diff -u "$WORK/steps.cmp" "$WORK/bulk.cmp" | head -40 >&2 || true
fi

note "diff steps bulk"
timed "$WORK/diff.out" "$tool" diff -q "$WORK/steps/store" "$WORK/bulk/store"
diff_rc=$RC diff_s=$SECS
[ "$diff_rc" = 0 ] || head -40 "$WORK/diff.out" >&2

verify_same=1 verify_rc=-
if [ "$VERIFY" = 1 ]; then
  for m in steps bulk; do
    note "counters verify ($m)"
    timed "$WORK/verify-$m.json" "$tool" counters verify -o json -q "$WORK/$m/store"
    eval "verify_rc_$m=$RC"
    jq -S 'walk(if type == "object" then del(.store, .started_at, .duration_ms) else . end)' "$WORK/verify-$m.json" >"$WORK/verify-$m.cmp" 2>/dev/null || cp "$WORK/verify-$m.json" "$WORK/verify-$m.cmp"
  done
  # shellcheck disable=SC2154 # set by the eval above
  verify_rc="$verify_rc_steps/$verify_rc_bulk"
  # shellcheck disable=SC2154
  [ "$verify_rc_steps" = "$verify_rc_bulk" ] && cmp -s "$WORK/verify-steps.cmp" "$WORK/verify-bulk.cmp" || verify_same=0
fi

rows=$(jq .rows "$WORK/bulk.json")
printf '%-8s %9s %9s %8s %12s\n' method wall_s cpu_s rss_MiB rows/s
for m in steps bulk; do
  printf '%-8s %9s %9s %8s %12s\n' "$m" "${WALL[$m]}" "${CPUS[$m]}" "${RSS[$m]}" "$(awk -v r="$rows" -v s="${WALL[$m]}" 'BEGIN { printf "%.0f", r / s }')"
done
echo "store: $what; $rows rows, $(jq .tenants "$WORK/bulk.json") tenants; diff ${diff_s}s; counters verify exit $verify_rc (steps/bulk); load average: $(cut -d' ' -f1-3 /proc/loadavg)"

check "diff of the steps' and the bulk result: equal (exit $diff_rc)" "$([ "$diff_rc" = 0 ] && echo 1 || echo 0)"
check "migrate's JSON the same but for the method and the clock" "$json_same"
[ "$VERIFY" = 1 ] && check "counters verify the same of both (exit $verify_rc)" "$verify_same"
rm -rf "${WORK:?}/steps" "${WORK:?}/bulk"
checks_done
