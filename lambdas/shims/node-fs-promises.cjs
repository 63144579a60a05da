/**
 * `node:fs/promises` as the Lambda bundle sees it. Here only because the `node:fs` alias would
 * otherwise turn this path into `<node-fs.cjs>/promises`; its facade costs nothing special.
 */
module.exports = process.getBuiltinModule('node:fs/promises');
