#!/bin/bash
# Stops the servers start-larder.sh started (by their pid files).
RUN=/tmp/larder-peer
for name in larder larder-w2 larder-pglite; do
  if [ -f "$RUN/$name.pid" ]; then kill "$(cat "$RUN/$name.pid")" 2>/dev/null || true; rm -f "$RUN/$name.pid"; fi
done
