#!/bin/bash
# Starts the Larder servers of the side-by-side run (docs/benchmarks.md, "Side by side with Parse
# Server"), each on a FRESH database: PostgreSQL with the default worker setting (port 3901),
# PostgreSQL with --workers 2 (port 3902), and the embedded engine (PGlite, port 3903).
# Rate limits are off (the load comes from one address); keys are the harness's bench keys.
# Databases: ${LARDER_PEER_DB:-larder_peerbench}_default and _w2 (dropped and created here).
# Stop them with stop-larder.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
PREFIX=${LARDER_PEER_DB:-larder_peerbench}
RUN=/tmp/larder-peer
mkdir -p "$RUN"
for db in "${PREFIX}_default" "${PREFIX}_w2"; do
  psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS \"$db\"" -c "CREATE DATABASE \"$db\""
done
rm -rf "$RUN/pglite-data"
start() {
  local name=$1; shift
  env LARDER_APP_ID=benchApp LARDER_APP_KEY=benchAppKey LARDER_MASTER_KEY=benchMasterKey LARDER_LOG_LEVEL=warn \
    LARDER_RATE_LIMIT_PER_IP=0 LARDER_RATE_LIMIT_PER_SESSION=0 "$@" \
    nohup node bin/larder.js serve > "$RUN/$name.log" 2>&1 &
  echo $! > "$RUN/$name.pid"
}
start larder LARDER_PORT=3901 DATABASE_URL="postgres://postgres@127.0.0.1:5432/${PREFIX}_default"
start larder-w2 LARDER_PORT=3902 LARDER_WORKERS=2 DATABASE_URL="postgres://postgres@127.0.0.1:5432/${PREFIX}_w2"
start larder-pglite LARDER_PORT=3903 LARDER_DATA_DIR="$RUN/pglite-data"
for port in 3901 3902 3903; do
  for _ in $(seq 120); do
    curl -sf "http://127.0.0.1:$port/1.1/date" -H 'X-LC-Id: benchApp' -H 'X-LC-Key: benchAppKey' > /dev/null && break
    sleep 0.5
  done
  curl -sf "http://127.0.0.1:$port/1.1/date" -H 'X-LC-Id: benchApp' -H 'X-LC-Key: benchAppKey' > /dev/null || { echo "port $port did not start: see $RUN/*.log" >&2; exit 1; }
done
echo "Larder servers up: 3901 (default workers), 3902 (--workers 2), 3903 (PGlite); logs and pids in $RUN"
