/**
 * cfn-lint (pinned, installed into .tools/venv by the test setup) finds nothing in the
 * synthesized templates.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config';
import { ensurePythonTools } from '../../local/aws-emulator/python-tools';
import { runProcess } from '../support/run-process';
import { configWith, synth } from './synth';

/**
 * W3005 ("dependency already enforced by a GetAtt"): CDK adds an explicit DependsOn from each
 * function to its role next to the GetAtt, so the role's policy exists before the function
 * does. Redundant, harmless, and not ours to change.
 */
const IGNORED_CHECKS = ['W3005'];

interface LintFinding {
  readonly Rule: { readonly Id: string };
  readonly Level: string;
  readonly Message: string;
}

const cfnLint = (
  executable: string,
  templateFile: string,
): Promise<{ code: number | null; findings: LintFinding[]; stderr: string }> =>
  runProcess(executable, [
    '--format',
    'json',
    '--ignore-checks',
    ...IGNORED_CHECKS,
    '--',
    templateFile,
  ]).then(({ code, stdout, stderr }) => {
    try {
      return { code, findings: JSON.parse(stdout || '[]') as LintFinding[], stderr };
    } catch {
      throw new Error(`cfn-lint printed no JSON (exit ${code}): ${stdout}${stderr}`);
    }
  });

const variants = [
  ['the example config', () => loadConfig('example')],
  [
    'an existing bus, an existing alarm topic and a secret given by ARN',
    () =>
      configWith({
        eventBus: { existingBusArn: 'arn:aws:events:eu-central-1:111122223333:event-bus/crm' },
        alarms: { topicArn: 'arn:aws:sns:eu-central-1:111122223333:ops' },
        apiKey: {
          secretId: 'arn:aws:secretsmanager:eu-central-1:111122223333:secret:cc/api-key-AbC123',
          secretsRegion: 'eu-central-1',
          kmsKeyArn:
            'arn:aws:kms:eu-central-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
        },
        actions: {
          'add-user': { batchSize: 200, maxBatchingWindowSeconds: 30, timeoutSeconds: 900 },
        },
      }),
  ],
] as const;

describe('cfn-lint', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ccs-cfn-lint-'));
  let cfnLintPath: string;

  beforeAll(async () => {
    cfnLintPath = (await ensurePythonTools()).cfnLint;
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(variants)('finds nothing in the template of %s', async (name, config) => {
    // Prepare
    const { template } = synth(config());
    const file = join(dir, `${name.replace(/\W+/g, '-')}.template.json`);
    writeFileSync(file, JSON.stringify(template.toJSON(), null, 2));

    // Act
    const result = await cfnLint(cfnLintPath, file);

    // Assess
    expect(result.findings.map((f) => `${f.Level} ${f.Rule.Id}: ${f.Message}`)).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
  });
});
