/**
 * `ops trace` end to end against moto and the simulator: a user who joined and left (the leave
 * applied, then delivered again and skipped as a duplicate, a late join skipped as stale), with
 * one dead letter in the delete-user DLQ and an unrelated one next to it.
 */
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedgerStore } from '../../../lambdas/core/ledger/dynamodb-ledger-store';
import { userKey } from '../../../lambdas/core/ledger/entity-key';
import { EntityLedger, newEvent } from '../../../lambdas/core/ledger/entity-ledger';
import { eventVersion } from '../../../lambdas/core/ledger/event-version';
import { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import { user } from '../../../lambdas/entities/user';
import { LEDGER_TABLE_OUTPUT_KEY } from '../../../lib/stack-outputs';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import { settingsFor, TENANT } from '../../reliability/support/harness';
import { motoEndpoint, motoSqsClient, useMotoEnvironment } from '../../support/aws-clients';
import {
  createLedgerTable,
  motoDynamoDbClient,
  motoLedgerClient,
} from '../../support/ledger-table';
import { createActionStack, seedDeadLetters } from './ops-fixture';

const sqs = motoSqsClient();
const dynamoDb = motoDynamoDbClient(motoEndpoint());
const ledgerClient = motoLedgerClient(motoEndpoint());
const LEAVER = 'grace.leaver@example.com';
const API_KEY = 'sk-trace-5a9c1e3b';
let sim: RunningSimulator | undefined;

useMotoEnvironment();

beforeAll(async () => {
  sim = await startSimulator({ ...TENANT, apiKey: API_KEY });
});

afterAll(async () => {
  await sim?.close();
});

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
    const key = userKey(LEAVER);
    if (!sim) throw new Error('simulator not started');
    const platform = new PlatformCaller(settingsFor(sim.baseUrl), {
      getKey: async () => API_KEY,
      refreshKey: async () => API_KEY,
    });
    const deadline = Date.now() + 10_000;
    const joinOp = {
      kind: 'join',
      user: { firstName: 'Grace', lastName: 'Hopper', userTemplateName: 'Agent' },
    };
    // The first add from before sources were kept; the leave from the SCIM endpoint.
    for (const [action, minute, kind, op, source] of [
      ['add-user', 0, 'create', joinOp, undefined],
      ['delete-user', 30, 'delete', { kind: 'leave' }, 'scim'],
      ['delete-user', 30, 'delete', { kind: 'leave' }, 'scim'],
      ['add-user', 10, 'create', joinOp, 'queue'],
    ] as const) {
      const v = at(minute, kind);
      await ledger.apply(user, {
        id: { loginUserId: LEAVER },
        event: newEvent(action, v, op, source),
        platform,
        call: { deadline },
        deadline,
      });
    }
    await seedDeadLetters(sqs, stack, [
      JSON.stringify({ correlationId: 'leave-again', loginUserId: LEAVER }),
      JSON.stringify({ correlationId: 'someone-else', loginUserId: 'other@example.com' }),
    ]);
    const outputs = { ...stack.outputs, [LEDGER_TABLE_OUTPUT_KEY]: table };
    await writeFile(stack.outputsFile, JSON.stringify({ [stack.stackName]: outputs }));

    // Act
    const run = await stack.ops(['trace', 'delete-user', LEAVER], {
      clients: { sqs, dynamoDb: ledgerClient },
    });

    // Assess
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`ledger key         ${key}`);
    expect(run.stdout).toMatch(
      /2026-11-24T08:00:00\.000Z {2}add-user +SUCCESS\n {4}2026-11-24T08:10:00\.000Z {2}add-user +STALE_SKIPPED \[from queue\]\n {4}2026-11-24T08:30:00\.000Z {2}delete-user +SUCCESS, then 1 duplicate skipped \[from scim\]\n/,
    );
    expect(run.stdout).toContain('desired            no (since 2026-11-24T08:30:00.000Z)');
    // Made by the queues only: no SCIM section.
    expect(run.stdout).not.toContain('\nSCIM\n');
    expect(run.stdout).toContain('on the platform    no (since 2026-11-24T08:30:00.000Z)');
    expect(run.stdout).toContain('"correlationId":"leave-again"');
    expect(run.stdout).toContain('errorCode       VALIDATION');
    expect(run.stdout).not.toContain('someone-else');
    // Personal data stays redacted without --show-body.
    expect(run.stdout).not.toContain(`"loginUserId":"${LEAVER}"`);
    expect(run.stdout).toContain(`filter entity = "${key}"`);
  });
});
