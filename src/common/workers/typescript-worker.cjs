// The entry of a worker thread whose module is TypeScript (under jest or `node -r @swc-node/register`):
// jest's transform does not reach worker threads, and Node's own type stripping would load the
// module as an ES module, whose extensionless imports fail. Compiled builds load the .js directly.
require('@swc-node/register');
module.exports = require(require('node:worker_threads').workerData.typescriptModule);
