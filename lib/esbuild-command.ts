/**
 * The esbuild command line of a set of esbuild build options: what a NodejsFunction command hook
 * runs to build a file with exactly the options the bench passes to esbuild's API (the CLI and
 * the API drive the same build). Only the options the handler bundles use are rendered; any
 * other makes it throw rather than build something else.
 */
import type { BuildOptions } from 'esbuild';

/** How NodejsFunction runs the project's own esbuild with an npm lock file (`runBinCommand`). */
export const ESBUILD_RUNNER: readonly string[] = ['npx', '--no-install', 'esbuild'];

type Rendered = (value: never) => string[];

const flag = (name: string) => (value: boolean) => (value ? [`--${name}`] : []);
const valued = (name: string) => (value: string | boolean) => [`--${name}=${String(value)}`];
const each = (name: string) => (values: readonly string[]) => values.map((v) => `--${name}:${v}`);
const pairs = (name: string) => (record: Readonly<Record<string, string>>) =>
  Object.entries(record).map(([key, value]) => `--${name}:${key}=${value}`);

const RENDERED: { readonly [K in keyof BuildOptions]?: Rendered } = {
  bundle: flag('bundle'),
  platform: valued('platform'),
  target: (target: string | string[]) => [
    `--target=${Array.isArray(target) ? target.join(',') : target}`,
  ],
  format: valued('format'),
  outfile: valued('outfile'),
  minify: flag('minify'),
  sourcemap: (mode: BuildOptions['sourcemap']) =>
    mode === true ? ['--sourcemap'] : mode ? [`--sourcemap=${mode}`] : [],
  sourcesContent: valued('sources-content'),
  external: each('external'),
  logLevel: valued('log-level'),
  keepNames: flag('keep-names'),
  tsconfig: valued('tsconfig'),
  banner: pairs('banner'),
  footer: pairs('footer'),
  mainFields: (fields: readonly string[]) => [`--main-fields=${fields.join(',')}`],
  inject: each('inject'),
  alias: pairs('alias'),
  define: pairs('define'),
  loader: pairs('loader'),
};

/** One argument for `bash -c`: single-quoted, inner quotes closed and escaped. */
export const shellQuote = (arg: string): string =>
  /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * `cd <absWorkingDir> && npx --no-install esbuild <entry> <options>` for one entry point. The
 * options must name their working directory and exactly one entry point.
 */
export const esbuildCommandLine = (options: BuildOptions): string => {
  const { absWorkingDir, entryPoints, ...rest } = options;
  if (absWorkingDir === undefined) throw new Error('esbuildCommandLine needs absWorkingDir');
  if (!Array.isArray(entryPoints) || entryPoints.length !== 1) {
    throw new Error('esbuildCommandLine needs exactly one entry point');
  }
  const [entry] = entryPoints as unknown[];
  if (typeof entry !== 'string') throw new Error('esbuildCommandLine needs a string entry point');
  const args: string[] = [];
  for (const [key, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    const render = RENDERED[key as keyof BuildOptions];
    if (render === undefined) throw new Error(`esbuildCommandLine cannot render option ${key}`);
    args.push(...render(value as never));
  }
  return [
    `cd ${shellQuote(absWorkingDir)}`,
    [...ESBUILD_RUNNER, entry, ...args].map(shellQuote).join(' '),
  ].join(' && ');
};

/** A shell command that writes `content` to `file` (its folder exists). */
export const writeFileCommandLine = (file: string, content: string): string =>
  `printf '%s' ${shellQuote(content)} > ${shellQuote(file)}`;
