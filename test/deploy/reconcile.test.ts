/**
 * The reconciliation path through the deployed stack: an export and its manifest dropped under
 * `incoming/` start an execution from the bucket's EventBridge notification; the plan step and
 * the Distributed Map (its item reader, its SQS sends) run as deployed, and the action handlers
 * repair the platform. Every assertion is on what reached the platform (or, for a held plan, on
 * what did not), never on the execution's status alone: a Distributed Map that reads nothing
 * still succeeds.
 */
import { createHash } from 'node:crypto';
import { FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import {
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
} from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import {
  RECONCILE_BUCKET_OUTPUT_KEY,
  RECONCILE_STATE_MACHINE_OUTPUT_KEY,
} from '../../lib/stack-outputs';
import type { StateSnapshot } from '../../local/simulator';
import { DEPLOY_API_KEY } from './support/deploy-config';
import { deployedContext } from './support/deployed-context';
import { eventually } from './support/eventually';

const ctx = deployedContext();
const bucket = ctx.output(RECONCILE_BUCKET_OUTPUT_KEY);
const stateMachineArn = ctx.output(RECONCILE_STATE_MACHINE_OUTPUT_KEY);

const user = (loginUserId: string) => ({
  loginUserId,
  firstName: 'Recon',
  lastName: 'Ciled',
  userTemplateName: 'Agent-Standard',
});

/** Drops `file` (JSON Lines of `rows`) and then a manifest for it, as a producer does. */
const drop = async (
  scope: string,
  file: string,
  rows: readonly object[],
  manifestName = file,
): Promise<string> => {
  const text = `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`;
  await ctx.clients.s3.send(
    new PutObjectCommand({ Bucket: bucket, Key: `incoming/${file}`, Body: text }),
  );
  const manifestKey = `incoming/${manifestName.replace(/\.jsonl$/, '')}.manifest.json`;
  const manifest = {
    kind: 'users',
    scope,
    file,
    exportedAt: new Date().toISOString(),
    rowCount: rows.length,
    sha256: createHash('sha256').update(text).digest('hex'),
  };
  await ctx.clients.s3.send(
    new PutObjectCommand({ Bucket: bucket, Key: manifestKey, Body: JSON.stringify(manifest) }),
  );
  return manifestKey;
};

/** The execution the manifest's arrival started, once it has ended. */
const finishedRunOf = (manifestKey: string): Promise<DescribeExecutionCommandOutput> =>
  eventually(
    `the execution started by ${manifestKey} to end`,
    async () => {
      const { executions = [] } = await ctx.clients.sfn.send(
        new ListExecutionsCommand({ stateMachineArn }),
      );
      for (const { executionArn } of executions) {
        const run = await ctx.clients.sfn.send(new DescribeExecutionCommand({ executionArn }));
        const input = JSON.parse(run.input ?? '{}') as { detail?: { object?: { key?: string } } };
        if (input.detail?.object?.key === manifestKey && run.status !== 'RUNNING') return run;
      }
      return undefined;
    },
    90_000,
  );

const planOf = (run: DescribeExecutionCommandOutput) =>
  (JSON.parse(run.output ?? '{}') as { plan?: { outcome?: string; repairs?: number } }).plan;

const usersAdded = (state: StateSnapshot, login: string) =>
  state.history.filter((op) => op.action === 'add-user' && op.loginUserId === login).length;

describe('a reconcile run started by a manifest in the bucket', () => {
  it('repairs the users the platform lacks; a second manifest of the same export plans no changes', async () => {
    // Prepare
    const logins = ['rita.recon@example.com', 'sam.recon@example.com'];

    // Act
    const first = await finishedRunOf(await drop('roster', 'roster-1.jsonl', logins.map(user)));

    // Assess: the repairs went through the Distributed Map, the queues and the handlers.
    const repaired = await eventually('both users added on the platform', async () => {
      const state = await ctx.platform.state();
      return logins.every((login) => usersAdded(state, login) === 1) ? state : undefined;
    });
    expect(logins.map((login) => usersAdded(repaired, login))).toEqual([1, 1]);
    expect(planOf(first)).toMatchObject({ outcome: 'apply', repairs: 2 });

    // Act: the same export again, under a new manifest.
    const second = await finishedRunOf(
      await drop('roster', 'roster-1.jsonl', logins.map(user), 'roster-1-again.jsonl'),
    );

    // Assess
    expect(planOf(second)).toMatchObject({ outcome: 'no-changes' });
    const after = await ctx.platform.state();
    expect(logins.map((login) => usersAdded(after, login))).toEqual([1, 1]);
  });

  it('holds the plan of a plan-only scope: nothing reaches the platform and the run logs its PlansHeld datapoint', async () => {
    // Prepare
    const login = 'hank.held@example.com';

    // Act
    const run = await finishedRunOf(await drop('review', 'review-1.jsonl', [user(login)]));

    // Assess
    expect(planOf(run)).toMatchObject({ outcome: 'held' });
    expect(usersAdded(await ctx.platform.state(), login)).toBe(0);
    // The datapoint as the function emits it (EMF in its log group): MiniStack stores the log
    // but turns no EMF into metrics, so the alarm's own state cannot be seen here.
    const logGroupName = await ctx.physicalId('ReconciliationFunctionLogs');
    const datapoint = await eventually('a ReconcilePlansHeld datapoint for review', async () => {
      const { events = [] } = await ctx.clients.logs.send(
        new FilterLogEventsCommand({ logGroupName }),
      );
      return events.find((event) => {
        const emf = JSON.parse(event.message?.startsWith('{') ? event.message : '{}') as {
          scope?: string;
          ReconcilePlansHeld?: number;
        };
        return emf.scope === 'review' && emf.ReconcilePlansHeld === 1;
      });
    });
    expect(datapoint.message).toContain('"_aws"');
  });

  it('ends FAILED, with the run history saying why, when the platform refuses its reads', async () => {
    // Prepare: the platform's key is rotated, so the plan's reads get 401.
    const login = 'fay.failed@example.com';
    await ctx.platform.setApiKey('rotated-key-the-stack-does-not-know');

    try {
      // Act
      const run = await finishedRunOf(await drop('roster', 'roster-2.jsonl', [user(login)]));

      // Assess
      expect(run.status).toBe('FAILED');
      const { events = [] } = await ctx.clients.sfn.send(
        new GetExecutionHistoryCommand({ executionArn: run.executionArn }),
      );
      const failed = events.find((event) => event.type === 'ExecutionFailed');
      expect(JSON.stringify(failed?.executionFailedEventDetails)).toMatch(/401|api key|API key/i);
      expect(usersAdded(await ctx.platform.state(), login)).toBe(0);
    } finally {
      await ctx.platform.setApiKey(DEPLOY_API_KEY);
    }
  });
});
