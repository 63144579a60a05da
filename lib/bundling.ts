/**
 * How every handler is bundled. `ActionPipeline` hands `HANDLER_BUNDLING` to NodejsFunction;
 * `esbuildOptionsFor` turns the same object into the esbuild options NodejsFunction's local
 * bundling passes, so the bench (`npm run bench`) measures exactly what gets deployed.
 */
import { relative } from 'node:path';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
// Type only: synth never loads esbuild through this file (NodejsFunction runs its CLI).
import type { BuildOptions, Loader } from 'esbuild';

/** Runtime of every handler; also gives esbuild its default target. */
export const HANDLER_RUNTIME = lambda.Runtime.NODEJS_24_X;

/**
 * Node builtins the bundle takes from a shim (esbuild `--alias`, `module=./path`): their ESM
 * import makes Node build a facade that does work at load the functions never need
 * (lambdas/shims/node-http.cjs says why). Each shim is the very same builtin module.
 */
export const BUILTIN_ALIASES: readonly string[] = ['http', 'process', 'fs', 'fs/promises'].flatMap(
  (builtin) => {
    const shim = `./lambdas/shims/node-${builtin.replace('/', '-')}.cjs`;
    return [`node:${builtin}=${shim}`, `${builtin}=${shim}`];
  },
);

/** Parts of the AWS SDK no function uses, each replaced by a small file (the shims say why). */
export const SDK_ALIASES = {
  /** The credential chain beyond the environment Lambda sets. */
  credentialChain:
    '@aws-sdk/credential-provider-node=./lambdas/shims/aws-credential-provider-node.ts',
  /** Event streams, which no operation the functions call uses. */
  eventStreams: '@smithy/core/event-streams=./lambdas/shims/smithy-event-streams.ts',
} as const;

/**
 * Every alias of the handler bundles: each spares every cold start work the functions do not
 * need (bench/README.md measures each against the bundle without it).
 */
export const BUNDLE_ALIASES: readonly string[] = [
  ...BUILTIN_ALIASES,
  ...Object.values(SDK_ALIASES),
];

/** NodejsFunction `bundling` of every handler: one file, the AWS SDK inside. */
export const HANDLER_BUNDLING: nodejs.BundlingOptions = {
  minify: true,
  sourceMap: true,
  // Stack traces only need the mappings; leaving the sources out keeps the zip small.
  sourcesContent: false,
  format: nodejs.OutputFormat.ESM,
  target: 'node24',
  mainFields: ['module', 'main'],
  // CommonJS dependencies inside an ESM bundle still call require().
  banner:
    "import { createRequire as __ccsCreateRequire } from 'node:module'; const require = __ccsCreateRequire(import.meta.url);",
  // The AWS SDK is bundled, not taken from the runtime: the version is the one the tests ran
  // (package.json), and one minified file loads faster than the runtime's many SDK files
  // (measured in `npm run bench`; AWS's own advice for SDK v3 in Lambda).
  externalModules: [],
  esbuildArgs: { '--alias': [...BUNDLE_ALIASES] },
  forceDockerBundling: false,
  logLevel: nodejs.LogLevel.WARNING,
};

/**
 * Options whose effect `esbuildOptionsFor` does not reproduce (extra files, extra CLI
 * arguments, a tsc step, Docker bundling with another esbuild). Using one makes it throw rather
 * than let the bench measure something other than the deployment.
 */
const NOT_REPRODUCED = [
  'nodeModules',
  'commandHooks',
  'preCompilation',
  'charset',
  'esbuildVersion',
  'dockerImage',
] as const satisfies readonly (keyof nodejs.BundlingOptions)[];

// NodejsFunction passes the enum values to the esbuild CLI as they are.
const FORMATS: Record<nodejs.OutputFormat, NonNullable<BuildOptions['format']>> = {
  [nodejs.OutputFormat.CJS]: 'cjs',
  [nodejs.OutputFormat.ESM]: 'esm',
};
const SOURCE_MAPS: Record<nodejs.SourceMapMode, NonNullable<BuildOptions['sourcemap']>> = {
  [nodejs.SourceMapMode.DEFAULT]: true,
  [nodejs.SourceMapMode.EXTERNAL]: 'external',
  [nodejs.SourceMapMode.INLINE]: 'inline',
  [nodejs.SourceMapMode.BOTH]: 'both',
};
const LOG_LEVELS: Record<nodejs.LogLevel, NonNullable<BuildOptions['logLevel']>> = {
  [nodejs.LogLevel.VERBOSE]: 'verbose',
  [nodejs.LogLevel.DEBUG]: 'debug',
  [nodejs.LogLevel.INFO]: 'info',
  [nodejs.LogLevel.WARNING]: 'warning',
  [nodejs.LogLevel.ERROR]: 'error',
  [nodejs.LogLevel.SILENT]: 'silent',
};

export interface EsbuildTarget {
  /** Absolute path of the handler entry file. */
  readonly entry: string;
  /** Absolute path of the bundle (NodejsFunction writes `index.mjs` for ESM, `index.js` for CJS). */
  readonly outfile: string;
  /** NodejsFunction runs esbuild in the project root with the entry relative to it. */
  readonly projectRoot: string;
  /** @default HANDLER_RUNTIME */
  readonly runtime?: lambda.Runtime;
}

/**
 * The esbuild build options NodejsFunction's local bundling uses for `bundling` (the mirror of
 * aws-cdk-lib `aws-lambda-nodejs/lib/bundling.js` `buildEsbuildArgs`: `--bundle`,
 * `--platform=node`, the target from the runtime, and each option it maps; no `define` or
 * `keepNames` unless given). The external modules must be explicit: their default depends on
 * the runtime and a feature flag.
 */
export const esbuildOptionsFor = (
  bundling: nodejs.BundlingOptions,
  target: EsbuildTarget,
): BuildOptions => {
  const unsupported: string[] = NOT_REPRODUCED.filter((option) => bundling[option] !== undefined);
  if (bundling.forceDockerBundling) unsupported.push('forceDockerBundling');
  const { '--alias': aliasArg, ...otherArgs } = bundling.esbuildArgs ?? {};
  unsupported.push(...Object.keys(otherArgs).map((arg) => `esbuildArgs['${arg}']`));
  if (unsupported.length > 0) {
    throw new Error(`esbuildOptionsFor does not reproduce bundling.${unsupported.join(', ')}`);
  }
  if (bundling.externalModules === undefined) {
    throw new Error('esbuildOptionsFor needs bundling.externalModules to be explicit');
  }
  const runtime = target.runtime ?? HANDLER_RUNTIME;
  const runtimeVersion = /nodejs(\d+)/.exec(runtime.name)?.[1];
  if (bundling.target === undefined && runtimeVersion === undefined) {
    throw new Error(`cannot derive an esbuild target from runtime ${runtime.name}`);
  }
  if (bundling.sourceMap === false && bundling.sourceMapMode !== undefined) {
    throw new Error('sourceMapMode cannot be used when sourceMap is false');
  }
  const sourceMapEnabled = Boolean(bundling.sourceMapMode ?? bundling.sourceMap);
  const alias = aliasesOf(aliasArg);

  return {
    absWorkingDir: target.projectRoot,
    // As NodejsFunction passes it: relative to the project root it runs esbuild in.
    entryPoints: [relative(target.projectRoot, target.entry)],
    bundle: true,
    outfile: target.outfile,
    platform: 'node',
    target: bundling.target ?? `node${runtimeVersion}`,
    ...(bundling.format ? { format: FORMATS[bundling.format] } : {}),
    ...(bundling.minify ? { minify: true } : {}),
    ...(sourceMapEnabled
      ? { sourcemap: SOURCE_MAPS[bundling.sourceMapMode ?? nodejs.SourceMapMode.DEFAULT] }
      : {}),
    ...(bundling.sourcesContent === false ? { sourcesContent: false } : {}),
    external: [...bundling.externalModules],
    // esbuild checks the loader names at build time, as its CLI does for NodejsFunction.
    ...(bundling.loader ? { loader: { ...bundling.loader } as Record<string, Loader> } : {}),
    ...(bundling.define ? { define: { ...bundling.define } } : {}),
    ...(bundling.logLevel ? { logLevel: LOG_LEVELS[bundling.logLevel] } : {}),
    ...(bundling.keepNames ? { keepNames: true } : {}),
    ...(bundling.tsconfig ? { tsconfig: bundling.tsconfig } : {}),
    ...(bundling.metafile ? { metafile: true } : {}),
    ...(bundling.banner ? { banner: { js: bundling.banner } } : {}),
    ...(bundling.footer ? { footer: { js: bundling.footer } } : {}),
    ...(bundling.mainFields ? { mainFields: [...bundling.mainFields] } : {}),
    ...(bundling.inject ? { inject: [...bundling.inject] } : {}),
    ...(alias ? { alias } : {}),
  };
};

/** `--alias` as NodejsFunction passes it (`--alias:from=to` per item) and esbuild reads it. */
const aliasesOf = (
  arg: string | boolean | string[] | undefined,
): Record<string, string> | undefined => {
  if (arg === undefined || (Array.isArray(arg) && arg.length === 0)) return undefined;
  if (!Array.isArray(arg)) throw new Error("esbuildArgs['--alias'] must be a list of from=to");
  return Object.fromEntries(
    arg.map((item) => {
      const equals = item.indexOf('=');
      if (equals <= 0) throw new Error(`esbuildArgs['--alias'] item "${item}" is not from=to`);
      return [item.slice(0, equals), item.slice(equals + 1)];
    }),
  );
};

/**
 * The reconcile function's bundle: the handlers' options, but with the SDK's event streams
 * (the S3 client builds its event-stream serde when it is made, so the shim would throw). It
 * runs a few times a day, so its cold start is not tuned further.
 */
export const RECONCILE_BUNDLING: nodejs.BundlingOptions = {
  ...HANDLER_BUNDLING,
  esbuildArgs: {
    '--alias': BUNDLE_ALIASES.filter((alias) => alias !== SDK_ALIASES.eventStreams),
  },
};
