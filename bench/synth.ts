/**
 * `cdk synth` wall time for the example config, and a check that the bench's bundles are
 * byte-identical to the assets that synth produced (so "bundled as the stack bundles it" holds).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stackNameFor } from '../lib/config';
import type { HandlerBundle } from './build';
import { PROJECT_ROOT } from './paths';
import { CONFIG_NAME, type Scenario } from './scenario';

export interface SynthAsset {
  readonly action: string;
  readonly bytes: number;
  /** The asset holds one JavaScript file, `index.mjs`, equal to the bench's byte for byte. */
  readonly identical: boolean;
}

export interface SynthResult {
  readonly seconds: number;
  readonly command: string;
  readonly assets: readonly SynthAsset[];
}

const OUTPUT_KEPT = 8 * 1024;
const FUNCTION_DESCRIPTION = 'contact-center-sync: ';

const run = (command: string, args: readonly string[]): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: PROJECT_ROOT,
      // No telemetry or notices: the bench stays on this machine.
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (text: string): void => {
      output = (output + text).slice(-OUTPUT_KEPT);
    };
    child.stdout?.setEncoding('utf8').on('data', keep);
    child.stderr?.setEncoding('utf8').on('data', keep);
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`cdk synth failed (exit code ${code}):\n${output.trim()}`));
    });
  });

interface TemplateResource {
  readonly Type: string;
  readonly Properties?: { readonly Description?: unknown };
  readonly Metadata?: Readonly<Record<string, unknown>>;
}

/** Every JavaScript and package.json file of a folder, relative to it (maps differ in paths). */
const comparedFiles = async (folder: string): Promise<string[]> =>
  (await readdir(folder, { recursive: true }))
    .filter((name) => name.endsWith('.mjs') || name.endsWith('package.json'))
    .sort();

const sameAsset = async (assetDir: string, bundle: HandlerBundle): Promise<boolean> => {
  if ((await comparedFiles(assetDir)).join('\n') !== 'index.mjs') return false;
  const [a, b] = await Promise.all([readFile(join(assetDir, 'index.mjs')), readFile(bundle.file)]);
  return a.equals(b);
};

export const measureSynth = async (
  scenario: Scenario,
  bundles: readonly HandlerBundle[],
): Promise<SynthResult> => {
  const outDir = await mkdtemp(join(tmpdir(), 'ccs-bench-synth-'));
  const args = ['synth', '-c', `config=${CONFIG_NAME}`, '--quiet', '--no-notices', '-o', outDir];
  try {
    const started = performance.now();
    await run(join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk'), args);
    const seconds = (performance.now() - started) / 1000;

    const stackName = stackNameFor(scenario.config);
    const template = JSON.parse(
      await readFile(join(outDir, `${stackName}.template.json`), 'utf8'),
    ) as { Resources: Record<string, TemplateResource> };
    const assets: SynthAsset[] = [];
    for (const resource of Object.values(template.Resources)) {
      const description = resource.Properties?.Description;
      const assetPath = resource.Metadata?.['aws:asset:path'];
      if (resource.Type !== 'AWS::Lambda::Function' || typeof assetPath !== 'string') continue;
      if (typeof description !== 'string' || !description.startsWith(FUNCTION_DESCRIPTION))
        continue;
      const action = description.slice(FUNCTION_DESCRIPTION.length);
      const bundle = bundles.find((b) => b.action === action);
      // Only the action handlers are measured; the reconcile run has its own bundle and no bench.
      if (bundle === undefined) continue;
      const asset = await readFile(join(outDir, assetPath, 'index.mjs'));
      const identical = await sameAsset(join(outDir, assetPath), bundle);
      assets.push({ action, bytes: asset.length, identical });
    }
    return { seconds, command: `cdk ${args.slice(0, -1).join(' ')} <tmpdir>`, assets };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
};
