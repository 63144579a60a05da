/**
 * `npm run bench` measures handlers bundled with `esbuildOptionsFor(HANDLER_BUNDLING)`. These
 * tests hold that mirror of NodejsFunction's esbuild call to what the stack really stages.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as esbuild from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_NAMES } from '../../lambdas/actions';
import { handlerEntry } from '../../lib/action-pipeline';
import { esbuildOptionsFor, HANDLER_BUNDLING } from '../../lib/bundling';
import { configWith, synth } from './synth';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ACTION = 'delete-user';

let scratch: string | undefined;

afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe('esbuildOptionsFor', () => {
  it('builds byte for byte the bundle NodejsFunction stages for the stack', async () => {
    // Prepare
    const only = Object.fromEntries(ACTION_NAMES.map((a) => [a, { enabled: a === ACTION }]));
    const { app } = synth(configWith({ actions: only }), { bundle: true });
    const assembly = app.synth();
    const assets = (await readdir(assembly.directory)).filter((n) => n.startsWith('asset.'));
    scratch = await mkdtemp(join(tmpdir(), 'ccs-bundling-'));
    const outfile = join(scratch, 'index.mjs');

    // Act
    await esbuild.build(
      esbuildOptionsFor(HANDLER_BUNDLING, {
        entry: handlerEntry(ACTION),
        outfile,
        projectRoot: PROJECT_ROOT,
      }),
    );

    // Assess
    expect(assets).toHaveLength(1);
    const staged = await readFile(join(assembly.directory, assets[0] ?? '', 'index.mjs'));
    const ours = await readFile(outfile);
    expect(ours.length).toBe(staged.length);
    expect(ours.equals(staged)).toBe(true);
  }, 60_000);

  it('runs esbuild as NodejsFunction does: bundle, node platform, entry relative to the root', () => {
    // Act
    const options = esbuildOptionsFor(HANDLER_BUNDLING, {
      entry: join(PROJECT_ROOT, 'lambdas', 'handlers', `${ACTION}.ts`),
      outfile: '/tmp/out/index.mjs',
      projectRoot: PROJECT_ROOT,
    });

    // Assess
    expect(options).toMatchObject({
      absWorkingDir: PROJECT_ROOT,
      entryPoints: [`lambdas/handlers/${ACTION}.ts`],
      bundle: true,
      platform: 'node',
      format: 'esm',
      // The SDK is bundled, every client of it, never left to the runtime's copy.
      external: [],
      banner: { js: HANDLER_BUNDLING.banner },
    });
    // NodejsFunction adds no define / keepNames of its own.
    expect(options).not.toHaveProperty('define');
    expect(options).not.toHaveProperty('keepNames');
  });

  it('derives the target from the runtime and maps source map modes and log levels', () => {
    // Act
    const options = esbuildOptionsFor(
      {
        externalModules: [],
        sourceMapMode: nodejs.SourceMapMode.INLINE,
        logLevel: nodejs.LogLevel.ERROR,
        define: { 'process.env.STAGE': '"bench"' },
        keepNames: true,
      },
      {
        entry: '/project/src/handler.ts',
        outfile: '/project/out/index.js',
        projectRoot: '/project',
        runtime: lambda.Runtime.NODEJS_22_X,
      },
    );

    // Assess
    expect(options).toMatchObject({
      target: 'node22',
      sourcemap: 'inline',
      logLevel: 'error',
      define: { 'process.env.STAGE': '"bench"' },
      keepNames: true,
    });
    expect(options).not.toHaveProperty('format');
    expect(options).not.toHaveProperty('minify');
  });

  it('passes the --alias arguments to esbuild as its alias option', () => {
    // Act
    const options = esbuildOptionsFor(
      { externalModules: [], esbuildArgs: { '--alias': ['node:http=./shim.cjs', 'a=b=c'] } },
      { entry: '/p/a.ts', outfile: '/p/o.mjs', projectRoot: '/p' },
    );

    // Assess: split at the first '=', as esbuild's CLI does.
    expect(options.alias).toEqual({ 'node:http': './shim.cjs', a: 'b=c' });
  });

  it.each([
    [{ externalModules: [], nodeModules: ['zod'] }, /does not reproduce bundling\.nodeModules/],
    [
      {
        externalModules: [],
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: () => [],
        },
      },
      /does not reproduce bundling\.commandHooks/,
    ],
    [{}, /externalModules to be explicit/],
    [{ externalModules: [], esbuildArgs: { '--splitting': true } }, /esbuildArgs\['--splitting'\]/],
    [{ externalModules: [], esbuildArgs: { '--alias': 'a=b' } }, /must be a list of from=to/],
    [{ externalModules: [], esbuildArgs: { '--alias': ['=b'] } }, /"=b" is not from=to/],
  ])('refuses options whose output it cannot reproduce (%j)', (bundling, message) => {
    // Act
    const mapping = () =>
      esbuildOptionsFor(bundling, { entry: '/p/a.ts', outfile: '/p/o.mjs', projectRoot: '/p' });

    // Assess
    expect(mapping).toThrow(message);
  });
});

describe('what each handler bundle carries', () => {
  const bundle = async (action: (typeof ACTION_NAMES)[number]) => {
    scratch ??= await mkdtemp(join(tmpdir(), 'ccs-bundling-'));
    const result = await esbuild.build({
      ...esbuildOptionsFor(HANDLER_BUNDLING, {
        entry: handlerEntry(action),
        outfile: join(scratch, action, 'index.mjs'),
        projectRoot: PROJECT_ROOT,
      }),
      metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs);
    const code = await readFile(join(scratch, action, 'index.mjs'), 'utf8');
    return {
      carries: (fragment: string) => inputs.some((input) => input.includes(fragment)),
      code,
    };
  };

  it.each([
    ['add-or-update-campaign-record', false],
    ['search-campaign-records', true],
  ] as const)(
    '%s carries the EventBridge client: %s (only reads publish results)',
    async (action, carries) => {
      // Act
      const built = await bundle(action);

      // Assess
      expect(built.carries('@aws-sdk/client-eventbridge')).toBe(carries);
    },
    30_000,
  );

  it('imports no node builtin whose ESM facade does work at load, and no SDK part no function uses', async () => {
    // Act
    const built = await bundle('add-or-update-campaign-record');

    // Assess: the shims replace the imports; the credential chain is the environment alone.
    expect(built.code).not.toMatch(/from\s*"node:(http|process|fs|fs\/promises)"/);
    expect(built.code).not.toMatch(/import\(\s*"node:(http|process|fs)"\s*\)/);
    expect(built.carries('lambdas/shims/node-http.cjs')).toBe(true);
    expect(built.carries('lambdas/shims/aws-credential-provider-node.ts')).toBe(true);
    for (const unused of [
      '@aws-sdk/credential-provider-node/',
      '@aws-sdk/credential-provider-sso',
      '@aws-sdk/nested-clients',
      'submodules/event-streams',
    ]) {
      expect(built.carries(unused), unused).toBe(false);
    }
  }, 30_000);
});
