#!/usr/bin/env bash
# Screenshots a sync timeline (the Chrome trace-event JSON from `tilesim run --sync-timeline` or
# TILESIM_CHECK) as shown by the Performance panel of Chromium's bundled DevTools, headless, and
# writes a 1400x700 PNG (default docs/images/sync-timeline.png). Done by hand, for the docs: not
# run by CI or make. How the picture is made is in sync-timeline-screenshot.mjs.
#
# Needs (as root, offline is fine: Debian's packages and the npm registry only):
#   apt-get install -y chromium                  # used as /usr/bin/chromium
#   mkdir -p /work/scratch/shot && cd /work/scratch/shot && npm install playwright-core
# TILESIM_SHOT_DIR names that playwright-core directory (default /work/scratch/shot).
# (Debian's chromium has no chrome://tracing: Debian leaves the catapult viewer out.)
#
# Usage: scripts/sync-timeline-screenshot.sh TIMELINE.json [OUT.png]
# e.g.   tilesim run k.pto --in a=a.npy --check sync --sync-timeline /tmp/tl.json
#        scripts/sync-timeline-screenshot.sh /tmp/tl.json
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
json=${1:?usage: $0 TIMELINE.json [OUT.png]}
out=${2:-$here/../docs/images/sync-timeline.png}
export TILESIM_SHOT_DIR=${TILESIM_SHOT_DIR:-/work/scratch/shot}
[ -x /usr/bin/chromium ] || { echo "$0: /usr/bin/chromium missing: apt-get install -y chromium" >&2; exit 1; }
[ -d "$TILESIM_SHOT_DIR/node_modules/playwright-core" ] ||
  { echo "$0: no playwright-core in $TILESIM_SHOT_DIR: cd there and npm install playwright-core" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
node "$here/sync-timeline-screenshot.mjs" "$json" "$out"
echo "wrote $out"
