#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD/fuzz for SECONDS each, from its seed corpus
# tests/fuzz/corpus/<target>/ (copied to a scratch corpus so runs never edit the checked-in seeds).
# A crash leaves its reproducer in build/fuzz-artifacts/ and makes this script fail.
set -euo pipefail
BUILD=${1:-build/fuzz}
SECONDS_EACH=${2:-60}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ART="$ROOT/build/fuzz-artifacts"
mkdir -p "$ART"
status=0
for bin in "$BUILD"/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  work="$ROOT/build/fuzz-corpus/$name"
  mkdir -p "$work"
  if [ -d "$ROOT/tests/fuzz/corpus/$name" ]; then cp -n "$ROOT/tests/fuzz/corpus/$name"/* "$work"/ 2>/dev/null || true; fi
  echo "== $name for ${SECONDS_EACH}s"
  if ! "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix="$ART/$name-" "$work" 2>"$ART/$name.log"; then
    echo "!! $name found a problem; see $ART/$name.log"; tail -40 "$ART/$name.log"; status=1
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$ART/$name.log" | sed "s/^/   /" || true
  fi
done
exit $status
