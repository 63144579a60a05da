/**
 * The SCIM function in-process against the simulator over a real socket, with in-memory ledger,
 * brake and token secret: what a test needs to call it as API Gateway would and look at what
 * reached the platform.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { deleteUser } from '../../../lambdas/actions/delete-user';
import { createActionHandler } from '../../../lambdas/core/entry/invocation-entry';
import type { HeldMessage } from '../../../lambdas/core/entry/ports';
import { EntityLedger } from '../../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import { InMemoryBrakeStore } from '../../../lambdas/core/resilience/in-memory-brake-store';
import {
  BRAKE_RELEASED_ATTRIBUTE,
  MassDeleteBrake,
} from '../../../lambdas/core/resilience/mass-delete-brake';
import { user } from '../../../lambdas/entities/user';
import { createScimHandler } from '../../../lambdas/scim/scim-handler';
import { inMemoryProfileLister } from '../../../lambdas/scim/scim-profiles';
import { oktaUser as oktaSends } from '../../../local/scim/idp-sequences';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import {
  callScim,
  InMemoryApiKeySource,
  InMemorySecretStore,
  lambdaContext,
  type ScimAnswer,
  sqsEvent,
  sqsRecord,
} from '../../../testkit';
import { lateBound } from '../../support/late-bound';
import { settingsFor, TENANT, TEST_KEY } from '../core/client-fixtures';

export const SCIM_TOKEN = 'scim-token-1f2e3d';
export const DEFAULT_TEMPLATE = 'Agent';
export const EXTENSION = 'urn:contact-center-sync:params:scim:schemas:extension:platform:2.0:User';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** A PATCH request's body of `operations` (RFC 7644 §3.5.2). */
export const patch = (...operations: unknown[]) => ({
  schemas: [PATCH_SCHEMA],
  Operations: operations,
});

export interface ScimCall {
  readonly body?: unknown;
  /** A raw body, sent as it is (a body that is not JSON). */
  readonly rawBody?: string;
  readonly token?: string | null;
  readonly query?: Record<string, string>;
}

/** A running SCIM function with its own stores; `call` sends one request as API Gateway would. */
export const buildScim = (
  sim: RunningSimulator,
  options: {
    readonly brakeLimit?: number;
    readonly now?: () => number;
    /** The time API Gateway stamps on each request. @default `now` */
    readonly receivedAt?: () => number;
  } = {},
) => {
  const ledgerStore = new InMemoryLedgerStore();
  const secret = new InMemorySecretStore(SCIM_TOKEN);
  const tokens = new InMemoryApiKeySource({ store: secret, maxAgeSeconds: 300 });
  const held: HeldMessage[] = [];
  const brakeStore = new InMemoryBrakeStore();
  const now = options.now ?? Date.now;
  const receivedAt = options.receivedAt ?? now;
  const platform = new PlatformCaller(settingsFor(sim.baseUrl), new InMemoryApiKeySource(TEST_KEY));
  const logger = new Logger({ serviceName: 'scim-test', logLevel: 'SILENT' });
  const metrics = new Metrics({ namespace: 'Test', serviceName: 'scim-test' });
  const handler = createScimHandler({
    platform,
    ledgerStore,
    listProfiles: inMemoryProfileLister(ledgerStore),
    tokens,
    defaults: { userTemplateName: DEFAULT_TEMPLATE, createInCloudConnect: false },
    maxResults: 100,
    logger,
    metrics,
    now,
    ...(options.brakeLimit === undefined
      ? {}
      : {
          brake: {
            gate: new MassDeleteBrake('delete-user', brakeStore, {
              limit: options.brakeLimit,
              windowMs: 3_600_000,
            }),
            held: { hold: async (message: HeldMessage) => void held.push(message) },
          },
        }),
  });
  let requests = 0;
  const call = async (method: string, path: string, c: ScimCall = {}): Promise<ScimAnswer> => {
    requests += 1;
    return callScim(handler, {
      method,
      path,
      query: c.query,
      token: c.token === null ? null : (c.token ?? secret.value),
      body: c.body,
      ...(c.rawBody === undefined ? {} : { rawBody: c.rawBody }),
      requestId: `req-${requests}`,
      requestTimeEpoch: receivedAt(),
    });
  };
  /** delete-user's queue handler on the same ledger and platform, as the stack runs it. */
  const deleteUserQueue = createActionHandler(deleteUser, {
    platform,
    ledger: { ledger: new EntityLedger({ store: ledgerStore }), entity: user },
    deadLetters: { send: async () => {} },
    logger,
    metrics,
    maxReceiveCount: 3,
  });
  /** Delivers a held message as `brake release` sends it back to the source queue. */
  const release = async (message: HeldMessage) =>
    deleteUserQueue(
      sqsEvent(
        sqsRecord(message.body, {
          messageAttributes: {
            [BRAKE_RELEASED_ATTRIBUTE]: {
              dataType: 'String',
              stringValue: new Date(now()).toISOString(),
            },
          },
        }),
      ),
      lambdaContext(),
    );
  return { call, ledgerStore, secret, held, brakeStore, release, logger, metrics };
};

/** One simulator for the file, reset before each test. */
export const scimSimulator = () => {
  const sim = lateBound<RunningSimulator>('the simulator');
  beforeAll(async () => {
    sim.set(await startSimulator({ ...TENANT, apiKey: TEST_KEY }));
  });
  afterAll(async () => {
    await sim.peek()?.close();
  });
  beforeEach(() => sim.value().reset());
  return sim.standIn;
};

export type Scim = ReturnType<typeof buildScim>;

/**
 * `scimSimulator`, and before each test a fresh SCIM function (`buildScim` with its defaults)
 * against it: a test that needs other options builds its own.
 */
export const scimPerTest = () => {
  const sim = scimSimulator();
  const scim = lateBound<Scim>('the SCIM function');
  beforeEach(() => scim.set(buildScim(sim)));
  return { sim, scim: scim.standIn };
};

/** A User as Entra ID's default mappings send it (attributes the platform cannot hold included). */
export const entraUser = (userName: string, overrides: Record<string, unknown> = {}) => ({
  schemas: [USER_SCHEMA, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
  externalId: `entra-${userName}`,
  userName,
  active: true,
  displayName: 'Ada Lovelace',
  title: 'Analyst',
  emails: [{ primary: true, type: 'work', value: userName }],
  preferredLanguage: 'en-GB',
  name: { formatted: 'Ada Lovelace', familyName: 'Lovelace', givenName: 'Ada' },
  addresses: [{ type: 'work', formatted: '1 Main St', primary: true }],
  phoneNumbers: [{ type: 'work', value: '+44 20 7946 0000' }],
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': {
    employeeNumber: '701984',
    department: 'Sales',
  },
  ...overrides,
});

/** A User as Okta sends it on create, with an externalId of its own per user name. */
export const oktaUser = (userName: string, overrides: Record<string, unknown> = {}) => ({
  ...oktaSends(userName, true),
  externalId: `00u${userName.length}okta`,
  password: 'xY7!secret-never-kept',
  ...overrides,
});

/** Requests the simulator served, of every kind. */
export const platformRequests = (sim: RunningSimulator): number => sim.stats.snapshot().requests;
