'use strict';
// Larder on the embedded engine (PGlite, one process), port 3903 (docs/benchmarks.md).
module.exports = require('./larder-target.cjs')({ name: 'larder-pglite', port: 3903, pidFile: '/tmp/larder-peer/larder-pglite.pid' });
