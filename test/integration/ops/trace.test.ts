/**
 * `ops trace` end to end against moto and the simulator: a user added and deleted (the delete
 * applied, then delivered again and skipped as a duplicate, a late add skipped as stale), with
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

const at = (minute: number, rank: 'add' | 'delete') =>
  eventVersion(Date.UTC(2026, 10, 24, 8, minute), rank, 'a'.repeat(16));

describe('ops trace', () => {
  it("shows a user's ledger history, its dead letters with reasons, and a log query", async () => {
    // Prepare: the entity ledger on moto after an add at 08:00, a delete at 08:30 (delivered
    // twice) and an add of 08:10 arriving late, each through the ledger as the handlers run it.
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
    const addOp = {
      kind: 'add',
      user: { firstName: 'Grace', lastName: 'Hopper', userTemplateName: 'Agent' },
    };
    // The first add from before sources were kept; the delete from the SCIM endpoint.
    for (const [action, minute, kind, op, source] of [
      ['add-user', 0, 'add', addOp, undefined],
      ['delete-user', 30, 'delete', { kind: 'delete' }, 'scim'],
      ['delete-user', 30, 'delete', { kind: 'delete' }, 'scim'],
      ['add-user', 10, 'add', addOp, 'queue'],
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

    // Act: a trace by the read of the same kind (a read orders nothing; it shows what it reads).
    const byRead = await stack.ops(['trace', 'query-user-existence', LEAVER], {
      clients: { sqs, dynamoDb: ledgerClient },
    });

    // Assess: the same entity, and the same desired state, from the user kind's own replay.
    expect(byRead.code).toBe(0);
    expect(byRead.stdout).toContain(`ledger key         ${key}`);
    expect(byRead.stdout).toContain('desired            no (since 2026-11-24T08:30:00.000Z)');
  });
});
