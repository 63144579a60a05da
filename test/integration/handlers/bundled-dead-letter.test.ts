/**
 * The deployed asset, not the TypeScript sources, dead-letters through the SQS client inside
 * its bundle: the handler is bundled as `cdk synth` bundles it (`esbuildOptionsFor` of
 * `HANDLER_BUNDLING`) into a folder outside the project, where no `node_modules` could serve a
 * package it left out, and run in a fresh Node process with the function's environment against
 * moto, as Lambda would run `/var/task/index.mjs`.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlerEntry } from '../../../lib/action-pipeline';
import { esbuildOptionsFor, HANDLER_BUNDLING } from '../../../lib/bundling';
import { sqsEvent, sqsRecord } from '../../../testkit';
import { runProcess } from '../../support/run-process';
import { expectDeadLettered } from './support/expectations';
import { harnessPerFile } from './support/handler-harness';
import { failedIds } from './support/lambda-events';

const ACTION = 'add-or-update-campaign-record';
const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Imports the bundle beside it, invokes it once with the event file, writes what it saw. */
const DRIVER = `
import { readFileSync, writeFileSync } from 'node:fs';
const [eventFile, resultFile] = process.argv.slice(2);
const { handler } = await import('./index.mjs');
const functionName = 'contact-center-sync-${ACTION}';
const response = await handler(JSON.parse(readFileSync(eventFile, 'utf8')), {
  functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:' + functionName,
  memoryLimitInMB: '256',
  awsRequestId: 'bundled-dead-letter',
  logGroupName: '/aws/lambda/' + functionName,
  logStreamName: 'bundled',
  getRemainingTimeInMillis: () => 60000,
});
writeFileSync(resultFile, JSON.stringify({ response }));
process.exit(0);
`;

const harness = harnessPerFile();
let assetDir = '';

beforeAll(async () => {
  assetDir = await mkdtemp(join(tmpdir(), 'ccs-bundled-asset-'));
  await esbuild.build(
    esbuildOptionsFor(HANDLER_BUNDLING, {
      entry: handlerEntry(ACTION),
      outfile: join(assetDir, 'index.mjs'),
      projectRoot: PROJECT_ROOT,
    }),
  );
  await writeFile(join(assetDir, 'driver.mjs'), DRIVER);
}, 120_000);

afterAll(async () => {
  if (assetDir) await rm(assetDir, { recursive: true, force: true });
});

describe('the bundled handler', () => {
  it('dead-letters an invalid message through the SQS client it carries', async () => {
    // Prepare
    const record = sqsRecord({ campaignName: 'Leads', clientId: 42 }, { messageId: 'invalid' });
    const eventFile = join(assetDir, 'event.json');
    const resultFile = join(assetDir, 'result.json');
    await writeFile(eventFile, JSON.stringify(sqsEvent(record)));
    const env = Object.fromEntries(
      Object.entries(harness.environment()).filter(([, value]) => value !== undefined),
    );

    // Act
    const run = await runProcess(process.execPath, ['driver.mjs', eventFile, resultFile], {
      cwd: assetDir,
      env: { ...env, PATH: process.env.PATH },
    });

    // Assess
    expect(run.code, run.stderr).toBe(0);
    const { response } = JSON.parse(await readFile(resultFile, 'utf8'));
    expect(failedIds(response)).toEqual([]);
    await expectDeadLettered(harness, {
      source: record,
      action: ACTION,
      errorCategory: 'permanent',
      errorCode: 'INVALID_MESSAGE',
    });
    // Powertools writes ERROR lines to stderr.
    const lines = `${run.stdout}\n${run.stderr}`
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({ message: 'message dead-lettered', code: 'INVALID_MESSAGE' }),
    );
    expect(harness.sim.stats.requests).toBe(0);
  });
});
