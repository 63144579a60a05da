/**
 * The real CLI as a child process (`tsx ops/main.ts`), configured only through the
 * standard AWS environment variables, as an operator runs it.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  countMessages,
  motoEndpoint,
  motoEnvironment,
  motoSqsClient,
  receiveAllMessages,
  TEST_REGION,
} from '../../support/aws-clients';
import { REPO_ROOT, repoTool } from '../../support/repo-paths';
import { type ProcessRun, runProcess } from '../../support/run-process';
import { bodiesOf, createActionStack, seedDeadLetters, tempDir } from './ops-fixture';

const sqs = motoSqsClient();

/** Runs the CLI with exactly `env` (plus PATH), so no AWS setting of the machine leaks in. */
const runCli = (args: readonly string[], env: Record<string, string>): Promise<ProcessRun> =>
  runProcess(repoTool('tsx'), ['ops/main.ts', ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
  });

describe('ops CLI', () => {
  it('sends a message to the queue', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'query-user-existence');
    const file = path.join(await tempDir(), 'query.json');
    await writeFile(file, JSON.stringify({ correlationId: 'cli-1', loginUserId: 'x@example.com' }));
    const home = await tempDir();

    // Act
    const run = await runCli(['send', 'query-user-existence', file, ...stack.args], {
      HOME: home,
      ...motoEnvironment(),
    });

    // Assess
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^sent 1\/1 to the query-user-existence queue: message id \S+, correlationId cli-1\n$/,
    );
    const received = await receiveAllMessages(sqs, stack.queues.queueUrl, { atLeast: 1 });
    expect(bodiesOf(received)).toEqual(['{"correlationId":"cli-1","loginUserId":"x@example.com"}']);
  });

  it('redrives with plain progress lines when stderr is not a terminal', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'delete-user');
    await seedDeadLetters(
      sqs,
      stack,
      Array.from({ length: 11 }, (_, i) => JSON.stringify({ loginUserId: `gone${i}@example.com` })),
    );

    // Act
    const run = await runCli(['dlq', 'redrive', 'delete-user', '--per-message', ...stack.args], {
      HOME: await tempDir(),
      ...motoEnvironment(),
    });

    // Assess
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('\r');
    expect(run.stderr).toContain('redrive delete-user: 10/11 (moved 10, failed 0)\n');
    expect(run.stderr).toContain('redrive delete-user: 11/11 (moved 11, failed 0)\n');
    expect(run.stdout).toContain('moved 11, failed 0');
    expect(await countMessages(sqs, stack.queues.deadLetterQueue.queueUrl)).toBe(0);
    expect(await countMessages(sqs, stack.queues.queueUrl)).toBe(11);
  });

  it('says which credentials to set when there are none', async () => {
    // Prepare: no credentials anywhere (no env, no profile files, no instance metadata).
    const home = await tempDir();

    // Act
    const run = await runCli(['dlq', 'list', 'add-user', '--stack', 'AnyStack'], {
      HOME: home,
      AWS_REGION: TEST_REGION,
      AWS_CONFIG_FILE: path.join(home, 'no-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(home, 'no-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_ENDPOINT_URL_CLOUDFORMATION: motoEndpoint(),
    });

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Error: No AWS credentials found');
    expect(run.stderr).toContain('AWS_PROFILE');
    expect(run.stderr).toContain('AWS_ACCESS_KEY_ID');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('says to set a region when there is none', async () => {
    // Prepare
    const {
      AWS_REGION: _region,
      AWS_DEFAULT_REGION: _default,
      ...withoutRegion
    } = motoEnvironment();

    // Act
    const run = await runCli(['dlq', 'list', 'add-user', '--stack', 'AnyStack'], {
      HOME: await tempDir(),
      ...withoutRegion,
    });

    // Assess
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No AWS region: set AWS_REGION');
  });

  it('prints a command help with its options', async () => {
    // Act
    const run = await runCli(['dlq', 'redrive', '--help'], {});

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'Usage: npm run ops -- dlq redrive <action> [--max N] [--per-message]',
    );
    expect(run.stdout).toContain('--outputs-file <file>');
  });
});
