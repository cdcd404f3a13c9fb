'use strict';
// Larder on PostgreSQL with the default worker setting, port 3901 (docs/benchmarks.md).
module.exports = require('./larder-target.cjs')({
  name: 'larder', port: 3901, databaseUrl: `postgres://postgres@127.0.0.1:5432/${process.env.LARDER_PEER_DB || 'larder_peerbench'}_default`, pidFile: '/tmp/larder-peer/larder.pid',
});
