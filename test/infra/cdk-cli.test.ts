/**
 * `npx cdk synth -c config=<name>` through the real CDK CLI and `bin/app.ts`: works with no AWS
 * credentials and no Docker (local esbuild), and a bad config stops it with the field named.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_NAMES } from '../../lambdas/actions';
import { REPO_BIN, REPO_ROOT, repoTool } from '../support/repo-paths';
import { type ProcessRun, runProcess } from '../support/run-process';
import { minimalConfigInput } from './synth';

/** An environment with no way to reach AWS credentials and no Docker. */
const offlineEnvironment = (home: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('AWS_') && !name.startsWith('CDK_') && name !== 'DOCKER_HOST') {
      env[name] = value;
    }
  }
  return {
    ...env,
    // The project's Node 24 and tools first, as `npx` would.
    PATH: `${REPO_BIN}${delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    AWS_CONFIG_FILE: join(home, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    CDK_DOCKER: join(home, 'no-docker'),
    CDK_DISABLE_CLI_TELEMETRY: 'true',
  };
};

const cdkSynth = (configName: string, outdir: string, home: string): Promise<ProcessRun> =>
  runProcess(
    repoTool('cdk'),
    ['synth', '-c', `config=${configName}`, '--no-notices', '--quiet', '--output', outdir],
    { cwd: REPO_ROOT, env: offlineEnvironment(home) },
  );

describe('cdk synth through the CLI', () => {
  const work = mkdtempSync(join(tmpdir(), 'ccs-cdk-cli-'));
  const badName = `zz-test-${randomUUID().slice(0, 8)}`;
  const badFile = join(REPO_ROOT, 'config', `${badName}.json`);
  let good: ProcessRun;
  let bad: ProcessRun;

  beforeAll(async () => {
    writeFileSync(
      badFile,
      JSON.stringify({
        ...minimalConfigInput(),
        apiKey: { secretId: 'k', secretsRegion: 'eu-central-1', maxAgeSeconds: 7200 },
      }),
    );
    [good, bad] = await Promise.all([
      cdkSynth('example', join(work, 'good'), work),
      cdkSynth(badName, join(work, 'bad'), work),
    ]);
  });

  afterAll(() => {
    rmSync(badFile, { force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('synthesizes the example stack offline, without credentials or Docker', () => {
    // Act
    const templateFile = join(work, 'good', 'ContactCenterSync-prod.template.json');

    // Assess
    expect(good.stderr).not.toMatch(/docker/i);
    // cdk.json opts in to every feature flag: none left to the CLI's warning.
    expect(good.stderr + good.stdout).not.toContain('feature flags are not configured');
    expect(good.code, good.stderr).toBe(0);
    const template = JSON.parse(readFileSync(templateFile, 'utf8')) as {
      Resources: Record<string, { Type: string }>;
    };
    const functions = Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function',
    );
    // One per action, the reconcile run and the SCIM endpoint (the example config has both).
    expect(functions).toHaveLength(ACTION_NAMES.length + 2);
  });

  it('bundles every handler as one minified ESM file with a source map, the AWS SDK inside', () => {
    // Prepare
    const assets = readdirSync(join(work, 'good')).filter((entry) => entry.startsWith('asset.'));

    // Act
    const all = assets.map((asset) => join(work, 'good', asset));
    const isReconcile = (bundle: string) =>
      readFileSync(join(bundle, 'index.mjs'), 'utf8').includes('SWEEP_TOO_LONG');
    const bundles = all.filter((bundle) => !isReconcile(bundle));
    const reconcile = all.filter(isReconcile);

    // Assess
    // The action handlers and the SCIM function: the same build.
    expect(bundles).toHaveLength(ACTION_NAMES.length + 1);
    // The reconcile run: the same build, S3 inside.
    expect(reconcile).toHaveLength(1);
    for (const bundle of reconcile) {
      const code = readFileSync(join(bundle, 'index.mjs'), 'utf8');
      expect(existsSync(join(bundle, 'index.mjs.map'))).toBe(true);
      expect(code.match(/(?:from\s*|import\(\s*)"(?!node:)[@a-z][^"]*"/g) ?? []).toEqual([]);
      expect(existsSync(join(bundle, 'node_modules'))).toBe(false);
    }
    for (const bundle of bundles) {
      const code = readFileSync(join(bundle, 'index.mjs'), 'utf8');
      expect(existsSync(join(bundle, 'index.mjs.map'))).toBe(true);
      expect(
        code.startsWith("import { createRequire as __ccsCreateRequire } from 'node:module';"),
      ).toBe(true);
      expect(code).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      // Minified: long lines (esbuild keeps only the newlines inside template literals).
      expect(code.length / code.split('\n').length).toBeGreaterThan(500);
      // The pinned SDK travels inside, every client of it: nothing is left to the runtime's copy.
      const packageImports = code.match(/(?:from\s*|import\(\s*)"(?!node:)[@a-z][^"]*"/g) ?? [];
      expect(packageImports).toEqual([]);
      expect(readdirSync(bundle).sort()).toEqual(['index.mjs', 'index.mjs.map']);
      expect(code).toContain('DynamoDB_20120810');
      expect(code).toContain('"ChangeMessageVisibility"');
    }
  });

  it('stops a bad config with the file and the field named', () => {
    // Assess
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain(
      `config/${badName}.json: apiKey.maxAgeSeconds: must be at most 3600`,
    );
    const written = existsSync(join(work, 'bad')) ? readdirSync(join(work, 'bad')) : [];
    expect(written.filter((file) => file.endsWith('.template.json'))).toEqual([]);
  });
});
