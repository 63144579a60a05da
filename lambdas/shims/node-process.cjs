/**
 * `node:process` as the Lambda bundle sees it (see node-http.cjs for why): its ESM facade would
 * read `process.stdin`, `stdout` and `stderr`, creating the three stdio streams at load.
 */
module.exports = process.getBuiltinModule('node:process');
