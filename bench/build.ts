/** Bundles the handlers exactly as the stack does, and the bench's own worker scripts. */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as esbuild from 'esbuild';
import type { ActionName } from '../lambdas/actions';
import { handlerEntry } from '../lib/action-pipeline';
import { esbuildOptionsFor, HANDLER_BUNDLING } from '../lib/bundling';
import { OUT_DIR, PROJECT_ROOT } from './paths';

export interface ModuleShare {
  /** An npm package (`zod`) or a project folder (`lambdas/core`). */
  readonly name: string;
  readonly bytes: number;
}

export interface HandlerBundle {
  readonly action: ActionName;
  /** Absolute path of `index.mjs`. */
  readonly file: string;
  readonly bytes: number;
  readonly buildMs: number;
  /** Bytes in the output per package / project folder, largest first. */
  readonly packages: readonly ModuleShare[];
  /** Bytes in the output per input file, largest first. */
  readonly files: readonly ModuleShare[];
}

const packageOf = (input: string): string => {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (inPackage?.[1]) return inPackage[1];
  const parts = input.split('/');
  return parts.length > 2 ? parts.slice(0, 2).join('/') : input;
};

const largestFirst = (totals: Map<string, number>): ModuleShare[] =>
  [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);

/** A bundle the bench compares the deployed one with: another entry and/or other options. */
export interface BundleVariant {
  /** Folder name of the bundle. */
  readonly name: string;
  /** @default the action's own entry point */
  readonly entry?: string;
  /** @default HANDLER_BUNDLING, the stack's */
  readonly bundling?: nodejs.BundlingOptions;
}

/** One handler with the stack's options (plus a metafile) into `<OUT_DIR>/bundles/<name>/`. */
export const bundleHandler = async (
  action: ActionName,
  variant?: BundleVariant,
): Promise<HandlerBundle> => {
  const file = join(OUT_DIR, 'bundles', variant?.name ?? action, 'index.mjs');
  const bundling = variant?.bundling ?? HANDLER_BUNDLING;
  const started = performance.now();
  const { metafile } = await esbuild.build({
    ...esbuildOptionsFor(bundling, {
      entry: variant?.entry ?? handlerEntry(action),
      outfile: file,
      projectRoot: PROJECT_ROOT,
    }),
    metafile: true,
  });
  const buildMs = performance.now() - started;

  const output = Object.values(metafile.outputs).find((o) => o.entryPoint !== undefined);
  if (!output) throw new Error(`esbuild reported no output for ${action}`);
  const byPackage = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const name = packageOf(input);
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    byFile.set(input, bytesInOutput);
  }
  return {
    action,
    file,
    bytes: (await stat(file)).size,
    buildMs,
    packages: largestFirst(byPackage),
    files: largestFirst(byFile),
  };
};

const WORKERS = {
  container: 'container',
  eventSource: 'event-source',
  coldStartHandler: 'cold-start-handler',
  coldStartSdk: 'cold-start-sdk',
} as const;

export type WorkerScripts = { readonly [K in keyof typeof WORKERS]: string };

/**
 * The worker scripts as plain ESM, so each child is a bare `node` process (no TypeScript
 * loader in the measured process). Packages stay external and resolve from node_modules.
 */
export const buildWorkers = async (): Promise<WorkerScripts> => {
  const outdir = join(OUT_DIR, 'workers');
  await esbuild.build({
    absWorkingDir: PROJECT_ROOT,
    entryPoints: Object.values(WORKERS).map((name) => ({
      in: join('bench', 'workers', `${name}.ts`),
      out: name,
    })),
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node24',
    outdir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  const path = (name: string): string => join(outdir, `${name}.mjs`);
  return {
    container: path(WORKERS.container),
    eventSource: path(WORKERS.eventSource),
    coldStartHandler: path(WORKERS.coldStartHandler),
    coldStartSdk: path(WORKERS.coldStartSdk),
  };
};
