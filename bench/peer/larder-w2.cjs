'use strict';
// Larder on PostgreSQL with --workers 2, port 3902 (docs/benchmarks.md).
module.exports = require('./larder-target.cjs')({
  name: 'larder-w2', port: 3902, databaseUrl: `postgres://postgres@127.0.0.1:5432/${process.env.LARDER_PEER_DB || 'larder_peerbench'}_w2`, pidFile: '/tmp/larder-peer/larder-w2.pid',
});
