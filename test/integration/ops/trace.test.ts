/**
 * `ops trace` end to end against moto: a user whose ledger entry says it joined and left (the
 * leave applied, a late join skipped as stale), with one dead letter in the delete-user DLQ and
 * an unrelated one next to it.
 */
import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoDbLedgerStore } from '../../../lambdas/core/ledger/dynamodb-ledger-store';
import type { EntityDoc } from '../../../lambdas/core/ledger/entity';
import { eventVersion } from '../../../lambdas/core/ledger/event-version';
import { userLocation } from '../../../lambdas/core/ledger/locations';
import { LEDGER_TABLE_OUTPUT_KEY } from '../../../lib/stack-outputs';
import { motoEndpoint, motoSqsClient, stubMotoEnvironment } from '../../support/aws-clients';
import { createLedgerTable, motoDynamoDbClient } from '../../support/ledger-table';
import { runOpsCaptured } from '../../support/ops-run';
import { createActionStack, seedDeadLetters } from './ops-fixture';

const sqs = motoSqsClient();
const dynamoDb = motoDynamoDbClient(motoEndpoint());
const LEAVER = 'grace.leaver@example.com';

beforeEach(() => {
  stubMotoEnvironment();
});

afterEach(() => {
  vi.unstubAllEnvs();
});

const at = (minute: number, kind: 'create' | 'delete') =>
  eventVersion(Date.UTC(2026, 10, 24, 8, minute), kind, 'a'.repeat(16));

describe('ops trace', () => {
  it("shows a user's ledger history, its dead letters with reasons, and a log query", async () => {
    // Prepare: the ledger as the handlers leave it after a join at 08:00 and a leave at 08:30
    const stack = await createActionStack(sqs, 'delete-user');
    const table = await createLedgerTable(dynamoDb);
    const store = new DynamoDbLedgerStore({ tableName: table, client: dynamoDb });
    const key = userLocation(LEAVER);
    const doc: EntityDoc = {
      present: false,
      deletedAt: at(30, 'delete'),
      fields: {},
      creates: [],
      settled: [`add-user@${at(0, 'create')}`, `delete-user@${at(30, 'delete')}`],
      uncertain: [],
    };
    await store.claim(key, { token: 't', until: Date.now() + 1000, eventKey: 'e' }, Date.now());
    await store.commit(key, 't', doc);
    await seedDeadLetters(sqs, stack, [
      JSON.stringify({ correlationId: 'leave-again', loginUserId: LEAVER }),
      JSON.stringify({ correlationId: 'someone-else', loginUserId: 'other@example.com' }),
    ]);
    const outputs = { ...stack.outputs, [LEDGER_TABLE_OUTPUT_KEY]: table };
    await writeFile(stack.outputsFile, JSON.stringify({ [stack.stackName]: outputs }));

    // Act
    const run = await runOpsCaptured(['trace', 'delete-user', LEAVER, ...stack.args], {
      clients: { sqs, dynamoDb },
    });

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`ledger key         ${key}`);
    expect(run.stdout).toContain('on the platform    no');
    expect(run.stdout).toContain('deleted at         2026-11-24T08:30:00.000Z');
    expect(run.stdout).toMatch(
      /2026-11-24T08:00:00\.000Z {2}add-user\n {4}2026-11-24T08:30:00\.000Z {2}delete-user/,
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
