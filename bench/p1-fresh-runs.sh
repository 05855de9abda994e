#!/usr/bin/env bash
# RUNS fresh-start runs of ../shared/perf's P1 (default end to end), each against a new `npm start`
# whose local state was removed, 20 s after its port answers. Run from a clone you can spare (it
# deletes .wrangler/state):
#   PERF=/path/to/a/copy/of/shared/perf RUNS=3 PORT=8796 E2E=1 bench/p1-fresh-runs.sh
set -u
cd "$(dirname "$0")/.."
: "${PERF:?copy ../shared/perf somewhere writable and set PERF to it}"
RUNS=${RUNS:-3} PORT=${PORT:-8796} E2E=${E2E:-1}
export PATH="$PWD/node_modules/.bin:$PATH"
for i in $(seq 1 "$RUNS"); do
  rm -rf .wrangler/state
  ( exec setsid env PORT="$PORT" npm start >"/tmp/p1-fresh-start-$i.log" 2>&1 ) &
  server=$!
  for _ in $(seq 1 120); do curl -s -o /dev/null "http://localhost:$PORT/v1/capabilities" && break; sleep 1; done
  sleep 20
  key=$(grep DEV_API_KEY .dev.vars | cut -d'"' -f2)
  echo "run $i $(date -u +%H:%M) load $(cut -d' ' -f1 /proc/loadavg)"
  BASE_URL="http://localhost:$PORT" API_KEY="$key" MB=1 N=200 C=32 E2E="$E2E" "$PERF/p1.sh" 2>&1 | tail -3
  kill -- -"$server" 2>/dev/null
  sleep 3
done
