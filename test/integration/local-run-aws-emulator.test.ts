/**
 * `npm start -- --aws-emulator` as a child process: the example day through moto server (real
 * SQS queues with redrive policies, EventBridge rules, a Secrets Manager secret) with the AWS
 * adapters. The run starts its own moto; the global setup has installed it into .tools/venv.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNpmStart } from '../support/npm-start';
import { REPO_ROOT } from '../support/repo-paths';

describe('npm start -- --aws-emulator', () => {
  it('routes the example events through the emulated bus and queues to their expected outcomes', async () => {
    // Prepare
    const expected = new Map(
      Object.entries(
        JSON.parse(
          readFileSync(path.join(REPO_ROOT, 'examples', 'expected-outcomes.json'), 'utf8'),
        ) as Record<string, string>,
      ).filter(([key]) => !key.startsWith('$')),
    );

    // Act
    const run = await runNpmStart(['--aws-emulator']);

    // Assess
    expect(run.code, `${run.stdout.slice(-3000)}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/queues {4}moto server http:\/\/127\.0\.0\.1:\d+/);
    // Preparing says what it does and for how long (a first run installs moto for ~30 s), on
    // stderr: the report on stdout stays the run's own.
    expect(run.stderr).toMatch(/^Preparing the AWS emulator/m);
    expect(run.stderr).toMatch(/^ {2}starting moto server \(\d+ s\)\n {2}creating the queues/m);
    expect(run.stdout).not.toContain('Preparing the AWS emulator');
    expect(new Map(run.fates.map((f) => [f.correlationId, f.code]))).toEqual(expected);
    expect(run.totals).toMatchObject({ lost: 0, redriven: 0 });
  });
});
