# Sourced by the migration's bench scripts (migrate_bench.sh, scale_bench.sh, bulk_equal.sh):
# what each of them needs before and around its measurements, written once. The caller sets
# BENCH (its name, for notes) and is at the repository's root.
#
# Builds: BUILD=dev (default) is `go build .` with the cgo flags scripts/setup.sh exports (the
# same static RocksDB, the development binary); BUILD=release is scripts/static-build.sh's
# release binary. BIN names a binary already built instead.

NOW=1796032800000 # 2026-11-30T10:00:00Z: the stores' clock and the migration's start
MAX_RSS_MIB=256
ROCKSDB_CACHE=${ROCKSDB_CACHE:-${ANKUSA_ROCKSDB_PREFIX:-/var/cache/ankusa-store/rocksdb-11.1.2-release}}

note() { echo "${BENCH:-bench}: $*" >&2; }

# need TOOL...: exits 2 naming the first tool that is not there.
need() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { note "$tool is required"; exit 2; }
  done
}

# work_dir: WORK as given (kept, for stores reused across runs), or a new directory under
# /tmp removed when the script exits.
work_dir() {
  if [ -n "${WORK:-}" ]; then
    mkdir -p "$WORK"
  else
    WORK=$(mktemp -d "/tmp/${BENCH:-bench}.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
  fi
}

# build_tool OUT: the ankusa-store to measure at OUT: BIN's copy, or built as BUILD says.
build_tool() {
  if [ -n "${BIN:-}" ]; then
    note "measuring $BIN"
    cp "$BIN" "$1"
    return
  fi
  case ${BUILD:-dev} in
  dev) note "building ankusa-store (dev)"; go build -o "$1" . ;;
  release) note "building ankusa-store (release: scripts/static-build.sh)"; scripts/static-build.sh "$1" >&2 ;;
  *) note "BUILD must be dev or release, not ${BUILD}"; exit 2 ;;
  esac
}

# gen_store DIR ROWS TENANTS [MIGRATEGEN FLAGS...]: a format 2 store by bench/migrategen,
# generated once and reused while DIR holds one. WORK/migrategen is built by each run that
# generates (a WORK kept between runs kept the old write path's binary, two hours at 10^8
# rows); the store is written as DIR.tmp and renamed once complete, so that a generation
# killed part way is never taken for a store.
gen_store() {
  local dir=$1 rows=$2 tenants=$3
  shift 3
  if [ ! -f "$dir/CURRENT" ]; then
    go build -o "$WORK/migrategen" ./bench/migrategen
    rm -rf "$dir" "$dir.tmp"
    note "generating $dir ($rows rows over $tenants tenants)"
    "$WORK/migrategen" -dir "$dir.tmp" -rows "$rows" -tenants "$tenants" -now "$NOW" "$@" >&2 &&
      mv "$dir.tmp" "$dir"
  fi
}

# linkcopy SRC DST: a copy of a closed store whose table files are hard links to SRC's
# (RocksDB writes a table file once and only ever deletes it, so neither store sees the
# other's writes) and whose other files (CURRENT, MANIFEST, OPTIONS, WAL, LOG) are copies.
linkcopy() {
  rm -rf "$2"
  mkdir "$2"
  local f
  for f in "$1"/*; do
    case $f in
    *.sst) ln "$f" "$2/" ;;
    *) cp -p "$f" "$2/" ;;
    esac
  done
}

# timed OUT CMD...: runs CMD under GNU time with stdout to OUT (stderr to TIMED_ERR when
# set); sets SECS (wall), CPU (user + system: steadier than the wall time on a shared
# machine), RSS_MIB (peak) and RC (its exit status: a failure is the caller's to judge).
timed() {
  local out=$1 user sys kib
  shift
  RC=0
  # Not 2>/dev/stderr when TIMED_ERR is unset: that opens the script's own log anew,
  # truncating it when stderr is a file.
  if [ -n "${TIMED_ERR:-}" ]; then
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$@" >"$out" 2>"$TIMED_ERR" || RC=$?
  else
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$@" >"$out" || RC=$?
  fi
  # On a failure GNU time writes "Command exited with non-zero status N" first.
  read -r SECS user sys kib < <(tail -1 "$WORK/time")
  CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  RSS_MIB=$((kib / 1024))
}

# floor_run DB_BENCH OPS BYTES: RocksDB's write floor for a migration that wrote OPS
# operations of BYTES: db_bench fillrandom, synced batches of 1 500, as many operations of the
# same average size (16-byte keys, the rest value); sets FLOOR_S.
floor_run() {
  local db_bench=$1 ops=$2 bytes=$3 vsize
  vsize=$(((bytes + ops / 2) / ops - 16))
  [ "$vsize" -ge 1 ] || vsize=1
  rm -rf "$WORK/floor"
  FLOOR_S=$("$db_bench" --benchmarks=fillrandom --sync=1 --batch_size=1500 --num="$ops" \
    --key_size=16 --value_size="$vsize" --db="$WORK/floor" --threads=1 2>/dev/null |
    awk '/^fillrandom/ { for (i = 1; i <= NF; i++) if ($i == "seconds") print $(i-1) }')
  rm -rf "$WORK/floor"
}

# dir_watch SECONDS PATTERN...: samples the bytes under the paths the PATTERNs match (each
# file once: du) every SECONDS in the background until dir_stop, which sets DIR_PEAK to the
# peak in bytes. The patterns are expanded at each sample, not once: a store copied, a
# checkpoint or a staging directory made after the watch began is counted too (quote them).
# UNNAMED_IN (directories) adds the files with no name (O_TMPFILE: the bulk migration's
# spilled runs, the hook table's records) that the processes of UNNAMED_OF (a command line's
# pattern, pgrep -f: the measured binary) hold open in them, which du cannot see: their sizes
# through /proc/PID/fd. Only those processes' descriptors are read: a walk of every
# process's (find /proc/[0-9]*/fd) five times a second took a 10^7-row bulk migration from
# 26.6 s to 36.1 s (its own CPU 45 -> 52 s), the sampler perturbing what it sampled.
dir_watch() {
  local every=$1
  shift
  echo 0 >"$WORK/dir.peak"
  (
    peak=0
    while :; do
      # A pattern that matches nothing yet is not an error: the sample counts what is there.
      # shellcheck disable=SC2068 # the patterns are meant to expand here, each sample anew
      b=$( (du -sbc $@ 2>/dev/null || true) | tail -1 | cut -f1)
      fds=
      if [ -n "${UNNAMED_IN:-}" ]; then
        for p in $(pgrep -f -- "${UNNAMED_OF:?dir_watch: UNNAMED_IN needs UNNAMED_OF}" || true); do
          fds="$fds /proc/$p/fd"
        done
      fi
      for d in ${fds:+${UNNAMED_IN:-}}; do
        # shellcheck disable=SC2086 # one word a process's descriptor directory
        u=$( (find $fds -maxdepth 1 -lname "$d/#*" 2>/dev/null || true) |
          (xargs -r stat -L -c %s 2>/dev/null || true) | awk '{ s += $1 } END { printf "%.0f\n", s }')
        b=$((${b:-0} + u))
      done
      if [ "${b:-0}" -gt "$peak" ]; then peak=$b; echo "$peak" >"$WORK/dir.peak"; fi
      sleep "$every"
    done
  ) &
  DIR_WATCH=$!
}
dir_stop() {
  kill "$DIR_WATCH" 2>/dev/null || true
  wait "$DIR_WATCH" 2>/dev/null || true
  DIR_PEAK=$(cat "$WORK/dir.peak")
}

# ratio A B: A / B to two places. under A B: 1 when A <= B.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }
under() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 <= b + 0) }'; }
# within A B LIMIT: 1 when A / B <= LIMIT, of the figures as measured: a check of the ratio
# rounded for the table passed a bulk run 4.94 times faster than the steps (0.2026x printed
# as 0.20x) as "at least 5x".
within() { awk -v a="$1" -v b="$2" -v m="$3" 'BEGIN { print (b + 0 > 0 && a + 0 <= (b + 0) * (m + 0)) }'; }

# check NAME OK: a target met (OK 1) or missed, kept for checks_done.
CHECKS=()
fail=0
check() {
  if [ "$2" = 1 ]; then CHECKS+=("PASS  $1"); else CHECKS+=("FAIL  $1"); fail=1; fi
}
# checks_done: prints the checks and exits 1 if one failed.
checks_done() {
  printf '%s\n' "${CHECKS[@]}"
  exit "$fail"
}
