/**
 * `node:http` as the Lambda bundle sees it (an esbuild alias, see lib/bundling.ts). An ESM
 * `import` of a builtin makes Node build the builtin's ESM facade, which reads every export
 * once; node:http's `WebSocket`, `CloseEvent` and `MessageEvent` getters load undici, ~15 ms of
 * a cold start for nothing the functions use. `process.getBuiltinModule` hands over the very
 * same module without a facade. CommonJS, so esbuild resolves each imported name on use and
 * this file needs no list of them.
 */
module.exports = process.getBuiltinModule('node:http');
