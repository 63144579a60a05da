/**
 * `ops trace` end to end against moto: a user who joined and left (the leave applied, then
 * delivered again and skipped as a duplicate, a late join skipped as stale), with one dead
 * letter in the delete-user DLQ and an unrelated one next to it.
 */
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Applied } from '../../../lambdas/core/ledger/decide';
import { DynamoDbLedgerStore } from '../../../lambdas/core/ledger/dynamodb-ledger-store';
import { type ApplyStep, EntityLedger } from '../../../lambdas/core/ledger/entity-ledger';
import { eventVersion } from '../../../lambdas/core/ledger/event-version';
import { userLocation } from '../../../lambdas/core/ledger/locations';
import { LEDGER_TABLE_OUTPUT_KEY } from '../../../lib/stack-outputs';
import { motoEndpoint, motoSqsClient, useMotoEnvironment } from '../../support/aws-clients';
import {
  createLedgerTable,
  motoDynamoDbClient,
  motoLedgerClient,
} from '../../support/ledger-table';
import { runOpsCaptured } from '../../support/ops-run';
import { createActionStack, seedDeadLetters } from './ops-fixture';

const sqs = motoSqsClient();
const dynamoDb = motoDynamoDbClient(motoEndpoint());
const ledgerClient = motoLedgerClient(motoEndpoint());
const LEAVER = 'grace.leaver@example.com';

useMotoEnvironment();

const at = (minute: number, kind: 'create' | 'delete') =>
  eventVersion(Date.UTC(2026, 10, 24, 8, minute), kind, 'a'.repeat(16));

describe('ops trace', () => {
  it("shows a user's ledger history, its dead letters with reasons, and a log query", async () => {
    // Prepare: the entity ledger on moto after a join at 08:00, a leave at 08:30 (delivered
    // twice) and a join of 08:10 arriving late, each through the ledger as the handlers run it.
    const stack = await createActionStack(sqs, 'delete-user');
    const table = await createLedgerTable(dynamoDb);
    const ledger = new EntityLedger({
      store: new DynamoDbLedgerStore({ tableName: table, client: ledgerClient }),
    });
    const key = userLocation(LEAVER);
    const platformSays =
      (applied: Applied): ApplyStep =>
      async () => ({
        outcome: { category: 'success', code: 'SUCCESS', message: 'applied', attempts: 1 },
        applied,
      });
    const deadline = Date.now() + 10_000;
    for (const [action, minute, kind, applied] of [
      ['add-user', 0, 'create', { kind: 'applied', ours: true }],
      ['delete-user', 30, 'delete', { kind: 'absent' }],
      ['delete-user', 30, 'delete', { kind: 'absent' }],
      ['add-user', 10, 'create', { kind: 'applied', ours: true }],
    ] as const) {
      const version = at(minute, kind);
      const event = {
        key: `${action}@${version}`,
        attemptKey: `${action}#${minute}`,
        version,
        kind,
        sets: {},
      };
      await ledger.apply(key, event, platformSays(applied), deadline);
    }
    await seedDeadLetters(sqs, stack, [
      JSON.stringify({ correlationId: 'leave-again', loginUserId: LEAVER }),
      JSON.stringify({ correlationId: 'someone-else', loginUserId: 'other@example.com' }),
    ]);
    const outputs = { ...stack.outputs, [LEDGER_TABLE_OUTPUT_KEY]: table };
    await writeFile(stack.outputsFile, JSON.stringify({ [stack.stackName]: outputs }));

    // Act
    const run = await runOpsCaptured(['trace', 'delete-user', LEAVER, ...stack.args], {
      clients: { sqs, dynamoDb: ledgerClient },
    });

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`ledger key         ${key}`);
    expect(run.stdout).toContain('on the platform    no');
    expect(run.stdout).toContain('deleted at         2026-11-24T08:30:00.000Z');
    expect(run.stdout).toMatch(
      /2026-11-24T08:00:00\.000Z {2}add-user +SUCCESS\n {4}2026-11-24T08:10:00\.000Z {2}add-user +STALE_SKIPPED\n {4}2026-11-24T08:30:00\.000Z {2}delete-user +SUCCESS, then 1 duplicate skipped\n/,
    );
    expect(run.stdout).toContain('"correlationId":"leave-again"');
    expect(run.stdout).toContain('errorCode       VALIDATION');
    expect(run.stdout).not.toContain('someone-else');
    // Personal data stays redacted without --show-body.
    expect(run.stdout).not.toContain(`"loginUserId":"${LEAVER}"`);
    expect(run.stdout).toContain(`filter entity = "${key}"`);
  });

  it('asks for the campaign of a record', async () => {
    // Prepare
    const stack = await createActionStack(sqs, 'delete-campaign-record');

    // Act
    const run = await runOpsCaptured(['trace', 'delete-campaign-record', 'C-1', ...stack.args]);

    // Assess
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--campaign <name>');
  });
});
