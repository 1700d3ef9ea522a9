#!/usr/bin/env bash
# The release binary against the development one, in one run, on one machine. Not part of
# .ci/run: on a cold cache it first builds RocksDB (scripts/build-rocksdb.sh, 16 minutes on two
# cores, longer on a loaded machine).
#
#   dev      `go build` (symbols kept), the cached Release build of RocksDB 11.1.2, statically
#   release  scripts/static-build.sh (-trimpath, stripped), the same library
# Both run beside the cache's own db_bench, built from the same source.
#
# For each build it runs:
#   - the fault-injection suite (internal/faults) with ANKUSA_STORE_BIN set to the binary;
#   - two cases of issue 11 directly: migrate on a full disk (a 16 MiB tmpfs) and counters verify
#     with a byte flipped 100 bytes before the end of a counters table file: exit 3 wanted,
#     never an abort;
#   - bench/migrate_bench.sh (10^6 rows against db_bench of the same build);
#   - bench/verify_bench.sh on the migrated 10^6-row store (counters verify against the raw
#     batched fold, linked with the same RocksDB);
#   - bench/scale_bench.sh when it exists (BIN, DB_BENCH, ROCKSDB_PREFIX passed the same way);
# plus TestStaticReleaseBuild demanding the release library, then prints one table.
#
# Usage: scripts/release-test.sh      Env: ROWS (10^6), SMALL_ROWS (10^5), TENANTS (10^4),
#        RUNS (1), WORK (kept if given), SKIP_BENCH=1 (only the checks and the fault cases),
#        BENCH_BUILDS ("dev release": the builds the benchmarks run on)
# Exit 1 when a check fails (a benchmark missing its target is reported in the table).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

ROWS=${ROWS:-1000000}
SMALL_ROWS=${SMALL_ROWS:-100000}
TENANTS=${TENANTS:-10000}
RUNS=${RUNS:-1}
NOW=1796032800000
if [ -n "${WORK:-}" ]; then
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d /var/tmp/release-test.XXXXXX)
  trap 'umount "$WORK/tmpfs" 2>/dev/null || true; rm -rf "$WORK"' EXIT
fi
log() { echo "release-test: $*" >&2; }
fail=0
declare -A R # results: R[build,metric]

prefix=$(bash scripts/build-rocksdb.sh)
log "building the dev and the release binary"
go build -o "$WORK/dev" .
bash scripts/static-build.sh "$WORK/release"
go build -o "$WORK/migrategen" ./bench/migrategen

log "TestStaticReleaseBuild against the release library"
if ANKUSA_RELEASE_TEST=1 go test -count=1 -run '^TestStaticReleaseBuild$' . >"$WORK/static-test.log" 2>&1; then
  R[release,static_test]=PASS
else
  R[release,static_test]=FAIL; fail=1; cat "$WORK/static-test.log" >&2
fi
R[dev,static_test]=-

# exit code of a command, without set -e stopping us
code() { local rc=0; "$@" >"$WORK/case.out" 2>&1 || rc=$?; echo "$rc"; }
describe() { # exit code -> "3" / "134 (SIGABRT)"
  case "$1" in
    134) echo "134 (SIGABRT)" ;;
    139) echo "139 (SIGSEGV)" ;;
    *) echo "$1" ;;
  esac
}

# The full-disk case: a format 2 store of 11 MB on a 16 MiB tmpfs, migrated there. Before
# migrate's disk-space preflight, Debian's library aborted here in WritableFileWriter
# (`sync_without_flush_called_`); now the preflight refuses it (exit 3, nothing written), and
# the fault suite's TestMigrateENOSPCMidRun fills the disk under a run that passed it.
small=$WORK/v2-small
if [ ! -f "$small/CURRENT" ]; then
  "$WORK/migrategen" -dir "$small" -rows 50000 -tenants 300 -now "$NOW" >/dev/null
fi
# The damaged-table case: the committed format 3 fixture, one byte flipped near the end of a
# counters table file (inside its last blocks, where the checksum must catch it).
fixture=$WORK/fixture-v3
rm -rf "$fixture"
mkdir -p "$fixture"
tar --zstd -xf testdata/store-v3.tar.zst -C "$fixture"
fixture=$(dirname "$(find "$fixture" -name CURRENT | head -n1)")
counters_sst=""
for f in "$fixture"/*.sst; do
  if "$prefix/bin/sst_dump" --file="$f" --show_properties 2>/dev/null | grep -q 'column family name: counters$'; then
    counters_sst=$(basename "$f")
    break
  fi
done
[ -n "$counters_sst" ] || { log "no counters table file in the fixture"; exit 1; }

for build in dev release; do
  bin=$WORK/$build
  log "== $build: $("$bin" version | sed -n 3p)"

  log "$build: fault suite"
  if ANKUSA_STORE_BIN=$bin go test -count=1 -v ./internal/faults/ >"$WORK/faults-$build.log" 2>&1; then
    R[$build,faults]="PASS ($(grep -c -- '^--- PASS' "$WORK/faults-$build.log" || true) tests)"
  else
    R[$build,faults]="FAIL ($(grep -c -- '^--- FAIL' "$WORK/faults-$build.log" || true) failed; $WORK/faults-$build.log)"
    [ "$build" = dev ] || fail=1
  fi

  log "$build: migrate on a full disk"
  mnt=$WORK/tmpfs
  mkdir -p "$mnt"
  mount -t tmpfs -o size=16m tmpfs "$mnt"
  cp -r "$small" "$mnt/store"
  rc=$(code "$bin" migrate --no-backup --now "$NOW" "$mnt/store")
  R[$build,full_disk]="exit $(describe "$rc"): $(grep -m1 -oE 'No space left on device|not enough free space|[Aa]ssert[^ ]*' "$WORK/case.out" || true)"
  [ "$rc" = 3 ] || { [ "$build" = dev ] || fail=1; }
  umount "$mnt"

  log "$build: a flipped byte in a counters table file"
  rm -rf "$WORK/flipped"
  cp -r "$fixture" "$WORK/flipped"
  sst=$WORK/flipped/$counters_sst
  off=$(($(stat -c %s "$sst") - 100))
  byte=$(od -An -tu1 -j "$off" -N1 "$sst" | tr -d ' ')
  printf "$(printf '\\%03o' $((byte ^ 0xff)))" | dd of="$sst" bs=1 seek="$off" conv=notrunc status=none
  rc=$(code "$bin" counters verify "$WORK/flipped")
  R[$build,flipped]="exit $(describe "$rc"): $(grep -m1 -oE 'checksum mismatch|Corruption[^,;]*|[Aa]ssert[^ ]*' "$WORK/case.out" || true)"
  [ "$rc" = 3 ] || { [ "$build" = dev ] || fail=1; }
done

if [ "${SKIP_BENCH:-}" != 1 ]; then
  for build in ${BENCH_BUILDS:-dev release}; do
    bin=$WORK/$build
    dbb=$prefix/bin/db_bench; rp=$prefix
    log "$build: bench/migrate_bench.sh"
    # One WORK for both builds: the generated format 2 stores are made once.
    BIN=$bin DB_BENCH=$dbb ROWS=$ROWS SMALL_ROWS=$SMALL_ROWS TENANTS=$TENANTS RUNS=$RUNS WORK=$WORK/mig \
      bash bench/migrate_bench.sh >"$WORK/migrate-$build.txt" 2>"$WORK/migrate-$build.err" || true
    line=$(awk -v r="$ROWS" '$1 == r' "$WORK/migrate-$build.txt")
    R[$build,migrate]=$(echo "$line" | awk '{ printf "%s s, %s rows/s, floor %s s, %sx, %s MiB RSS, WAL left %s MiB", $3, $4, $6, $7, $8, $9 }')

    log "$build: bench/verify_bench.sh on the migrated store"
    store=$WORK/verify-store
    if [ ! -f "$store/CURRENT" ]; then
      cp -r "$WORK/mig/src-$ROWS" "$store"
      "$WORK/dev" migrate -q --no-backup --now "$NOW" "$store" >/dev/null
    fi
    BIN=$bin DB_BENCH=$dbb ROCKSDB_PREFIX=$rp VERIFY_BENCH_STORE=$store VERIFY_BENCH_DIR=$WORK/verify-$build \
      bash bench/verify_bench.sh >"$WORK/verify-$build.txt" 2>"$WORK/verify-$build.err" || true
    R[$build,verify]=$(awk '/^raw fold/ { sub(/^raw fold \(rocks.Scan of the same families\) +/, ""); raw = $0 }
      /^Verify / { sub(/^Verify +/, ""); v = $0 }
      /^counters verify \(the command\)/ { sub(/^counters verify \(the command\) +/, ""); c = $0 }
      END { printf "raw fold %s | Verify %s | command %s", raw, v, c }' "$WORK/verify-$build.txt")

    if [ -f bench/scale_bench.sh ]; then
      log "$build: bench/scale_bench.sh"
      BIN=$bin DB_BENCH=$dbb ROCKSDB_PREFIX=$rp bash bench/scale_bench.sh >"$WORK/scale-$build.txt" 2>&1 || true
      R[$build,scale]="see $WORK/scale-$build.txt"
    fi
  done
fi

echo
printf '%-12s | %-s\n' "check" "dev (go build) / release (static-build.sh), both linking $prefix"
for m in static_test faults full_disk flipped migrate verify scale; do
  [ -n "${R[dev,$m]:-}${R[release,$m]:-}" ] || continue
  printf '%-12s | dev:     %s\n' "$m" "${R[dev,$m]:--}"
  printf '%-12s | release: %s\n' "" "${R[release,$m]:--}"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); logs in $WORK"
exit $fail
