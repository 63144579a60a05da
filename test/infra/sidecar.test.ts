/**
 * The SQS client is a second file of each function's asset (a sidecar built by an afterBundling
 * hook), not part of the bundle every cold start parses. These tests hold the staged asset to
 * that layout, the sidecar to the pinned version and the bundle's own options, and the bench's
 * mirror (`sidecarBuildsFor`) to what synth stages, byte for byte.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_NAMES } from '../../lambdas/actions';
import { handlerEntry } from '../../lib/action-pipeline';
import {
  BUNDLE_OPTIONS,
  esbuildOptionsFor,
  HANDLER_BUNDLING,
  SidecarHooks,
  sidecarBuildsFor,
} from '../../lib/bundling';
import { esbuildCommandLine } from '../../lib/esbuild-command';
import { configWith, synth } from './synth';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ACTION = 'add-or-update-campaign-record';
const SQS = '@aws-sdk/client-sqs';
const SIDECAR = join('node_modules', '@aws-sdk', 'client-sqs');
const PINNED_SQS = (
  JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  }
).dependencies[SQS];
/** An operation name only the SQS client's code holds (its command and schema names). */
const SQS_CLIENT_CODE = '"ChangeMessageVisibility"';

let assetDir = '';
let scratch = '';

beforeAll(async () => {
  const only = Object.fromEntries(ACTION_NAMES.map((a) => [a, { enabled: a === ACTION }]));
  const assembly = synth(configWith({ actions: only }), { bundle: true }).app.synth();
  const assets = (await readdir(assembly.directory)).filter((n) => n.startsWith('asset.'));
  expect(assets).toHaveLength(1);
  assetDir = join(assembly.directory, assets[0] ?? '');
  scratch = await mkdtemp(join(tmpdir(), 'ccs-sidecar-'));
}, 120_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the asset of a write function', () => {
  it('carries the SQS client as a sidecar and not inside the bundle', async () => {
    // Act
    const files = await readdir(assetDir, { recursive: true });
    const bundle = await readFile(join(assetDir, 'index.mjs'), 'utf8');
    const sidecar = await readFile(join(assetDir, SIDECAR, 'index.mjs'), 'utf8');

    // Assess
    expect(files.filter((f) => !f.endsWith('.map')).sort()).toEqual(
      [
        'index.mjs',
        'node_modules',
        'node_modules/@aws-sdk',
        SIDECAR,
        join(SIDECAR, 'index.mjs'),
        join(SIDECAR, 'package.json'),
      ].sort(),
    );
    expect(bundle).toMatch(/import\("@aws-sdk\/client-sqs"\)/);
    // Only a dynamic import: a static one would load the sidecar at every cold start.
    expect(bundle).not.toMatch(/from\s*"@aws-sdk\/client-sqs"/);
    // Booleans: a failing toContain would print the whole minified file.
    expect(bundle.includes(SQS_CLIENT_CODE)).toBe(false);
    expect(sidecar.includes(SQS_CLIENT_CODE)).toBe(true);
  });

  it('resolves the sidecar to the version package.json pins', async () => {
    // Act
    const manifest = JSON.parse(await readFile(join(assetDir, SIDECAR, 'package.json'), 'utf8'));
    const sidecar = await readFile(join(assetDir, SIDECAR, 'index.mjs'), 'utf8');

    // Assess: the package.json the import resolves, and the version the SDK reports itself.
    expect(PINNED_SQS).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest).toEqual({ name: SQS, version: PINNED_SQS, exports: './index.mjs' });
    expect(sidecar.includes(`"${PINNED_SQS}"`)).toBe(true);
  });

  it('is built byte for byte as the bench builds it (sidecarBuildsFor)', async () => {
    // Prepare
    const outfile = join(scratch, ACTION, 'index.mjs');
    const [build, ...others] = sidecarBuildsFor(HANDLER_BUNDLING, {
      outfile,
      projectRoot: PROJECT_ROOT,
    });

    // Act
    await esbuild.build(
      esbuildOptionsFor(HANDLER_BUNDLING, {
        entry: handlerEntry(ACTION),
        outfile,
        projectRoot: PROJECT_ROOT,
      }),
    );
    if (build) await esbuild.build(build.options);

    // Assess
    expect(others).toEqual([]);
    expect(build?.outfile).toBe(join(scratch, ACTION, SIDECAR, 'index.mjs'));
    const staged = await readFile(join(assetDir, SIDECAR, 'index.mjs'));
    const ours = await readFile(join(scratch, ACTION, SIDECAR, 'index.mjs'));
    expect(ours.equals(staged)).toBe(true);
    expect(build?.packageJson).toBe(
      await readFile(join(assetDir, SIDECAR, 'package.json'), 'utf8'),
    );
    expect((await readFile(outfile)).equals(await readFile(join(assetDir, 'index.mjs')))).toBe(
      true,
    );
  }, 60_000);
});

describe('the sidecar build', () => {
  it('uses the bundle’s own options: aliases, shims, target, minify, banner', async () => {
    // Prepare
    const [build] = sidecarBuildsFor(HANDLER_BUNDLING, {
      outfile: join(scratch, 'options', 'index.mjs'),
      projectRoot: PROJECT_ROOT,
    });
    const main = esbuildOptionsFor(BUNDLE_OPTIONS, {
      entry: handlerEntry(ACTION),
      outfile: '/x/index.mjs',
      projectRoot: PROJECT_ROOT,
    });

    // Act
    const result = await esbuild.build({ ...build?.options, write: false, metafile: true });

    // Assess
    const { entryPoints, outfile, ...shared } = main;
    expect(build?.options).toMatchObject({ ...shared, entryPoints: [SQS], external: [] });
    const inputs = Object.keys(result.metafile.inputs);
    const carries = (fragment: string) => inputs.some((input) => input.includes(fragment));
    expect(carries('lambdas/shims/node-http.cjs')).toBe(true);
    expect(carries('lambdas/shims/aws-credential-provider-node.ts')).toBe(true);
    expect(carries('@aws-sdk/credential-provider-node/')).toBe(false);
    expect(carries('@aws-sdk/nested-clients')).toBe(false);
  }, 60_000);

  it('is what the afterBundling hook runs: cd to the project, the project’s esbuild', () => {
    // Prepare
    const hooks = HANDLER_BUNDLING.commandHooks;
    const [build] = sidecarBuildsFor(HANDLER_BUNDLING, {
      outfile: '/out/index.mjs',
      projectRoot: '/project',
    });

    // Act
    const commands = hooks?.afterBundling('/project', '/out');

    // Assess
    expect(hooks).toBeInstanceOf(SidecarHooks);
    expect(build).toBeDefined();
    expect(commands).toEqual([
      esbuildCommandLine(build?.options ?? {}),
      `printf '%s' '${build?.packageJson}' > /out/${SIDECAR}/package.json`,
    ]);
    expect(commands?.[0]).toMatch(
      /^cd \/project && npx --no-install esbuild @aws-sdk\/client-sqs --bundle .*--outfile=\/out\/node_modules\/@aws-sdk\/client-sqs\/index\.mjs/,
    );
    expect(hooks?.beforeBundling('/project', '/out')).toEqual([]);
    expect(hooks?.beforeInstall('/project', '/out')).toEqual([]);
  });

  it.each([
    [
      'another command hook',
      {
        ...BUNDLE_OPTIONS,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: () => ['echo hi'],
        },
      },
      /does not reproduce bundling\.commandHooks/,
    ],
    [
      'a sidecar the bundle also inlines',
      { ...HANDLER_BUNDLING, externalModules: [] },
      /sidecar @aws-sdk\/client-sqs must be in bundling\.externalModules/,
    ],
  ])('refuses %s', (_, bundling, message) => {
    // Act
    const mapping = () =>
      esbuildOptionsFor(bundling, { entry: '/p/a.ts', outfile: '/p/o.mjs', projectRoot: '/p' });

    // Assess
    expect(mapping).toThrow(message);
  });

  it('renders only options it knows to the command line', () => {
    // Act
    const rendering = () =>
      esbuildCommandLine({ absWorkingDir: '/p', entryPoints: ['a'], splitting: true });

    // Assess
    expect(rendering).toThrow(/cannot render option splitting/);
  });
});
