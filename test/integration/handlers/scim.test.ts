/**
 * The REAL SCIM entry point (`lambdas/handlers/scim.ts`), cold-started from its environment,
 * against the simulator over loopback and moto's DynamoDB (the ledger table) and Secrets
 * Manager (the platform key and the SCIM token, each its own secret).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedgerStore } from '../../../lambdas/core/ledger/dynamodb-ledger-store';
import { userKey } from '../../../lambdas/core/ledger/entity-key';
import { callScim, type ScimEntry } from '../../../testkit';
import {
  createQueue,
  createSecret,
  motoSecretsManagerClient,
  motoSqsClient,
  putSecretValue,
  receiveAllMessages,
  uniqueName,
} from '../../support/aws-clients';
import { motoLedgerClient } from '../../support/ledger-table';
import { harnessPerFile } from './support/handler-harness';

const harness = harnessPerFile();
const secrets = motoSecretsManagerClient();
const FIRST_TOKEN = 'scim-token-initial-9c1d';
let tokenSecret = '';
let handler: ScimEntry;

/** Cold-starts the entry point with the SCIM environment (and `overrides`), as a new container. */
const load = (overrides: Record<string, string> = {}): Promise<ScimEntry> =>
  harness.coldStart(() => import('../../../lambdas/handlers/scim'), {
    SCIM_TOKEN_SECRET_ID: tokenSecret,
    SCIM_DEFAULT_USER_TEMPLATE: 'Agent',
    SCIM_MAX_RESULTS: '100',
    ...overrides,
  });

beforeAll(async () => {
  tokenSecret = (await createSecret(secrets, FIRST_TOKEN, uniqueName('scim-token'))).name;
  handler = await load();
});

const call = (method: string, path: string, token: string, body?: unknown, entry = handler) =>
  callScim(entry, { method, path, token, body });

const user = (userName: string) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  userName,
  externalId: 'ext-1',
  name: { givenName: 'Grace', familyName: 'Hopper' },
  emails: [{ value: userName, type: 'work', primary: true }],
  active: true,
});

describe('the SCIM entry point on moto', () => {
  it('creates and deactivates a user, each an event of the ledger with source scim', async () => {
    // Prepare
    const login = 'grace@example.com';

    // Act
    const created = await call('POST', 'Users', FIRST_TOKEN, user(login));
    const onPlatform = harness.sim.state.findUser(login);
    const deactivated = await call('PATCH', `Users/${created.body.id}`, FIRST_TOKEN, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    const listed = await call('GET', 'Users', FIRST_TOKEN);

    // Assess
    expect(created.status).toBe(201);
    expect(onPlatform).toMatchObject({ firstName: 'Grace', userTemplateName: 'Agent' });
    expect(deactivated).toMatchObject({ status: 200, body: { active: false } });
    expect(harness.sim.state.findUser(login)).toBeUndefined();
    expect(listed.body).toMatchObject({ totalResults: 1, Resources: [{ active: false }] });
    const store = new DynamoDbLedgerStore({
      tableName: harness.ledgerTableName,
      client: motoLedgerClient(),
    });
    const item = (await store.read(userKey(login))) as {
      events: { action: string; source?: string }[];
    };
    expect(item.events.map((e) => [e.action, e.source])).toEqual([
      ['add-user', 'scim'],
      ['delete-user', 'scim'],
    ]);
  });

  it('accepts a rotated token at once and refuses the old one', async () => {
    // Prepare
    const rotated = 'scim-token-rotated-5e7f';
    expect((await call('GET', 'Users', FIRST_TOKEN)).status).toBe(200);
    await putSecretValue(secrets, tokenSecret, rotated);

    try {
      // Act
      const withNew = await call('GET', 'Users', rotated);
      const withOld = await call('GET', 'Users', FIRST_TOKEN);

      // Assess
      expect(withNew.status).toBe(200);
      expect(withOld).toMatchObject({
        status: 401,
        body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' },
      });
    } finally {
      await putSecretValue(secrets, tokenSecret, FIRST_TOKEN);
    }
  });
});

describe("the SCIM entry point with delete-user's brake on moto", () => {
  it('parks a delete past the limit in the held queue once, and answers 503 each time', async () => {
    // Prepare
    const sqs = motoSqsClient();
    const held = await createQueue(sqs, { name: uniqueName('held') });
    const braked = await load({
      HELD_QUEUE_URL: held.queueUrl,
      DELETE_BRAKE_LIMIT: '1',
      DELETE_BRAKE_WINDOW_SECONDS: '3600',
    });
    const one = await call('POST', 'Users', FIRST_TOKEN, user('one@example.com'), braked);
    const two = await call('POST', 'Users', FIRST_TOKEN, user('two@example.com'), braked);

    // Act
    const first = await call('DELETE', `Users/${one.body.id}`, FIRST_TOKEN, undefined, braked);
    const second = await call('DELETE', `Users/${two.body.id}`, FIRST_TOKEN, undefined, braked);
    const repeated = await call('DELETE', `Users/${two.body.id}`, FIRST_TOKEN, undefined, braked);
    const parked = await receiveAllMessages(sqs, held.queueUrl, { atLeast: 1 });

    // Assess
    expect([first.status, second.status, repeated.status]).toEqual([204, 503, 503]);
    expect(parked.map((m) => JSON.parse(m.Body ?? '{}').loginUserId)).toEqual(['two@example.com']);
    expect(harness.sim.state.findUser('two@example.com')).toBeDefined();
    expect(harness.sim.state.findUser('one@example.com')).toBeUndefined();
  });
});
