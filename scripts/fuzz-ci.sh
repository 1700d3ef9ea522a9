#!/usr/bin/env bash
# A bounded fuzz of the ETF decoder and the tenant fast path: each target for
# FUZZTIME (20s by default), one after the other, starting from the committed
# corpus in the package's testdata/fuzz: FuzzDecode (the decoder, and the readers of
# simple terms against it), FuzzFindMapAtom (etf's fast path against the decoder) and
# FuzzETFValues (pkg/format: skimTenant and the envelope read in place against the
# decoder and the tenant rules, and the other value decoders).
# Exits non-zero on the first finding; go test has then written the failing
# input under the package's testdata/fuzz/<Target>/, which is the regression
# test to commit with the fix. A new input that only adds coverage is minimized
# for at most 5 s (go test's default is 60 s, which a worker could spend on one
# input of the 20 s); a failing one too, which is enough to make it small.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-20s}"
for spec in pkg/format/etf:FuzzDecode pkg/format/etf:FuzzFindMapAtom pkg/format:FuzzETFValues; do
  pkg="${spec%%:*}" target="${spec#*:}"
  echo "fuzz-ci: $target ($pkg) for $fuzztime" >&2
  for attempt in 1 2; do
    before=$(ls "$pkg/testdata/fuzz/$target" 2>/dev/null | sort | md5sum)
    log=$(mktemp)
    if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s "./$pkg" 2>&1 | tee "$log"; then
      rm -f "$log"
      break
    fi
    after=$(ls "$pkg/testdata/fuzz/$target" 2>/dev/null | sort | md5sum)
    # go test's fuzzing engine can end a run that found nothing with its own "context
    # deadline exceeded" when the time is up while a worker is still busy: no input is
    # written then (a finding always writes its input). That alone is run once more; any
    # other failure, or any new input, fails at once.
    if [ "$attempt" = 1 ] && [ "$before" = "$after" ] && grep -q '^    context deadline exceeded$' "$log" &&
      [ "$(grep -c -- '--- FAIL' "$log")" = 1 ]; then
      echo "fuzz-ci: $target: the engine stopped at its deadline with no input written; once more" >&2
      rm -f "$log"
      continue
    fi
    rm -f "$log"
    echo "fuzz-ci: $target failed; the input is in $pkg/testdata/fuzz/$target/" >&2
    exit 1
  done
done
