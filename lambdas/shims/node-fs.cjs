/**
 * `node:fs` as the Lambda bundle sees it (see node-http.cjs for why): its ESM facade would read
 * the lazy `ReadStream` and `WriteStream` getters, which load the fs stream classes.
 */
module.exports = process.getBuiltinModule('node:fs');
