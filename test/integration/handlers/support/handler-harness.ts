/**
 * Runs the REAL Lambda entry points (`lambdas/handlers/<action>.ts`) against the platform
 * simulator over loopback and the shared moto server: a secret holding the API key, a
 * dead-letter queue, and a result bus whose rule delivers `contact-center-sync` events to a
 * queue. The environment contract is set with `vi.stubEnv` before each (re-)import, exactly as
 * Lambda would set it, so the entry point wires its own AWS SDK clients from the standard
 * `AWS_ENDPOINT_URL_*` variables.
 *
 * Secrets Manager goes through a counting proxy in front of moto so tests can assert how many
 * `GetSecretValue` calls the handler really made. One harness per test file; `reset()` between
 * tests. Every resource has a unique name because other files use the same moto server.
 *
 * Test files get it through `handlerHarness` / `harnessPerFile`, which register that lifecycle
 * once, here, so that a change to the wiring is made in one place.
 */
import type { Message } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, vi } from 'vitest';
import { type ActionName, RESULT_EVENT_SOURCE } from '../../../../lambdas/actions';
import {
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../../../local/simulator';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../../testkit';
import {
  type BusRuleToQueue,
  createBusRuleToQueue,
  createQueue,
  createSecret,
  motoEndpoint,
  motoEnvironment,
  motoEventBridgeClient,
  motoSecretsManagerClient,
  motoSqsClient,
  putSecretValue,
  receiveAllMessages,
  TEST_REGION,
  type TestQueue,
  uniqueName,
} from '../../../support/aws-clients';
import { lateBound } from '../../../support/late-bound';
import {
  clearLedgerTable,
  createLedgerTable,
  motoDynamoDbClient,
} from '../../../support/ledger-table';
import { TEST_TENANT } from '../../../support/test-tenant';
import { type ForwardingProxy, startForwardingProxy } from './forwarding-proxy';
import { captureOutput, type OutputCapture } from './output-capture';

/** A Lambda entry point as the runtime sees it. */
export type LambdaEntry = (event: unknown, context: Context) => Promise<unknown>;

/** Static imports of the eight entry points, so each is typed and resolvable by the bundler. */
const ENTRY_POINTS: { readonly [A in ActionName]: () => Promise<{ handler: LambdaEntry }> } = {
  'add-or-update-campaign-record': () =>
    import('../../../../lambdas/handlers/add-or-update-campaign-record'),
  'search-campaign-records': () => import('../../../../lambdas/handlers/search-campaign-records'),
  'change-campaign-record-status': () =>
    import('../../../../lambdas/handlers/change-campaign-record-status'),
  'transfer-campaign-record': () => import('../../../../lambdas/handlers/transfer-campaign-record'),
  'delete-campaign-record': () => import('../../../../lambdas/handlers/delete-campaign-record'),
  'add-user': () => import('../../../../lambdas/handlers/add-user'),
  'query-user-existence': () => import('../../../../lambdas/handlers/query-user-existence'),
  'delete-user': () => import('../../../../lambdas/handlers/delete-user'),
};

export const TENANT = TEST_TENANT;

/** Long enough to be redacted if it ever reached an error text (see platform-caller). */
export const INITIAL_API_KEY = 'sk-initial-4f9a2c7e1b8d';
export const MAX_RECEIVE_COUNT = 3;
/** Campaign region the deployment defaults to (messages may name another). */
export const CAMPAIGN_REGION = 'eu-central-1';

/** A dead letter as moto holds it: the body and the reason attributes. */
export interface DeadLetter {
  readonly body: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** A result event as the rule delivered it to the results queue. */
export interface DeliveredEvent {
  readonly source: string;
  readonly 'detail-type': string;
  readonly detail: {
    readonly correlationId: string;
    readonly request: unknown;
    readonly result: unknown;
  };
}

export interface HarnessOptions {
  /** Simulator options besides the tenant and key (e.g. `campaigns`, `userDirectory`). */
  readonly simulator?: Partial<Omit<SimulatorOptions, 'apiKey' | keyof typeof TENANT>>;
}

/**
 * A platform on which only the campaigns `Leads` and `Callbacks` exist: a message naming any
 * other (the tests use `Closed`) is answered FAILED, the per-message retryable failure a record
 * action's mixed batch or last receive needs.
 */
export const LEADS_AND_CALLBACKS: HarnessOptions = {
  simulator: { campaigns: ['Leads', 'Callbacks'] },
};

export type EnvOverrides = Readonly<Record<string, string | undefined>>;

export interface Harness {
  readonly sim: RunningSimulator;
  readonly secretName: string;
  /** The entity ledger table in moto (emptied by `reset`). */
  readonly ledgerTableName: string;
  readonly deadLetterQueue: TestQueue;
  readonly resultRoute: BusRuleToQueue;
  readonly output: OutputCapture;
  /** The handler environment contract (plus the moto SDK variables), with overrides applied. */
  environment(overrides?: EnvOverrides): Record<string, string | undefined>;
  /** Sets the environment and imports a fresh copy of the action's entry point (a cold start). */
  load(action: ActionName, overrides?: EnvOverrides): Promise<LambdaEntry>;
  /** `load` for any entry point (`entry` imports its module), such as the SCIM function's. */
  coldStart<E>(entry: () => Promise<{ readonly handler: E }>, overrides?: EnvOverrides): Promise<E>;
  /** Starts another simulator (other options) that `load` can point at via `API_BASE_URL`. */
  startExtraSimulator(options: HarnessOptions['simulator']): Promise<RunningSimulator>;
  /** A proxy in front of the simulator that can fail chosen requests (point `API_BASE_URL` at it). */
  startPlatformProxy(): Promise<ForwardingProxy>;
  /** Dead letters in moto (removed from the queue once read). */
  deadLetters(expected?: number): Promise<DeadLetter[]>;
  /** Result events delivered to the results queue (removed once read). */
  resultEvents(expected?: number): Promise<DeliveredEvent[]>;
  /** GetSecretValue requests that reached Secrets Manager so far. */
  getSecretValueCalls(): number;
  /** Rotates the key: a new secret version in moto and the simulator accepting only it. */
  rotateApiKey(newKey: string): Promise<void>;
  /** Clears simulator data/faults, both queues and the captured output. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const attributesOf = (message: Message): Record<string, string> =>
  Object.fromEntries(
    Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
      name,
      value.StringValue ?? '',
    ]),
  );

export const startHarness = async (options: HarnessOptions = {}): Promise<Harness> => {
  const moto = motoEndpoint();
  const sqs = motoSqsClient();
  const events = motoEventBridgeClient();
  const secrets = motoSecretsManagerClient();
  const dynamodb = motoDynamoDbClient(moto);
  const extraSimulators: RunningSimulator[] = [];
  const platformProxies: ForwardingProxy[] = [];

  const simulatorOptions = (extra: HarnessOptions['simulator'] = {}): SimulatorOptions => ({
    ...TENANT,
    apiKey: INITIAL_API_KEY,
    secretsRegion: TEST_REGION,
    ...extra,
  });

  const [sim, proxy, secret, deadLetterQueue, resultRoute, ledgerTableName] = await Promise.all([
    startSimulator(simulatorOptions(options.simulator)),
    startForwardingProxy(moto),
    createSecret(secrets, INITIAL_API_KEY, uniqueName('api-key')),
    createQueue(sqs, { name: uniqueName('handler-dlq') }),
    createBusRuleToQueue(events, sqs, { eventPattern: { source: [RESULT_EVENT_SOURCE] } }),
    createLedgerTable(dynamodb),
  ]);
  const output = captureOutput();
  let rotated = false;

  const environment = (overrides: EnvOverrides = {}): Record<string, string | undefined> => ({
    ...motoEnvironment(moto),
    AWS_ENDPOINT_URL: moto,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: proxy.endpoint,
    PLATFORM_CODE: TENANT.platformCode,
    COMPANY_CODE: TENANT.companyCode,
    ENVIRONMENT_NAME: TENANT.environmentName,
    API_BASE_URL: sim.baseUrl,
    CAMPAIGN_REGION,
    API_KEY_SECRET_ID: secret.name,
    API_KEY_SECRETS_REGION: TEST_REGION,
    API_KEY_MAX_AGE_SECONDS: '300',
    DEAD_LETTER_QUEUE_URL: deadLetterQueue.queueUrl,
    MAX_RECEIVE_COUNT: String(MAX_RECEIVE_COUNT),
    RESULT_EVENT_BUS_NAME: resultRoute.busName,
    LEDGER_TABLE_NAME: ledgerTableName,
    POWERTOOLS_SERVICE_NAME: 'contact-center-sync',
    POWERTOOLS_LOG_LEVEL: 'DEBUG',
    ...overrides,
  });

  const drain = (queueUrl: string, expected: number): Promise<Message[]> =>
    receiveAllMessages(sqs, queueUrl, { atLeast: expected, afterwards: 'delete' });

  const coldStart = async <E>(
    entry: () => Promise<{ readonly handler: E }>,
    overrides?: EnvOverrides,
  ): Promise<E> => {
    for (const [name, value] of Object.entries(environment(overrides))) vi.stubEnv(name, value);
    // A fresh module graph: the entry point reads the environment and builds its clients at
    // import time, as in a new Lambda container.
    vi.resetModules();
    return (await entry()).handler;
  };

  return {
    sim,
    secretName: secret.name,
    ledgerTableName,
    deadLetterQueue,
    resultRoute,
    output,
    environment,
    load: (action, overrides) => coldStart(ENTRY_POINTS[action], overrides),
    coldStart,
    startExtraSimulator: async (extra) => {
      const started = await startSimulator(simulatorOptions(extra));
      extraSimulators.push(started);
      return started;
    },
    startPlatformProxy: async () => {
      const started = await startForwardingProxy(sim.baseUrl);
      platformProxies.push(started);
      return started;
    },
    deadLetters: async (expected = 0) =>
      (await drain(deadLetterQueue.queueUrl, expected)).map((message) => ({
        body: message.Body ?? '',
        attributes: attributesOf(message),
      })),
    resultEvents: async (expected = 0) =>
      (await drain(resultRoute.queue.queueUrl, expected)).map(
        (message) => JSON.parse(message.Body ?? '{}') as DeliveredEvent,
      ),
    getSecretValueCalls: () => proxy.count('GetSecretValue'),
    rotateApiKey: async (newKey) => {
      await putSecretValue(secrets, secret.name, newKey);
      sim.setApiKey(newKey);
      for (const extra of extraSimulators) extra.setApiKey(newKey);
      rotated = true;
    },
    reset: async () => {
      sim.reset();
      for (const extra of extraSimulators) extra.reset();
      for (const platformProxy of platformProxies) platformProxy.intercept(undefined);
      if (rotated) {
        await putSecretValue(secrets, secret.name, INITIAL_API_KEY);
        rotated = false;
      }
      await Promise.all([
        drain(deadLetterQueue.queueUrl, 0),
        drain(resultRoute.queue.queueUrl, 0),
        clearLedgerTable(dynamodb, ledgerTableName),
      ]);
      output.clear();
    },
    close: async () => {
      output.restore();
      vi.unstubAllEnvs();
      await Promise.all([
        sim.close(),
        proxy.close(),
        ...extraSimulators.map((extra) => extra.close()),
        ...platformProxies.map((platformProxy) => platformProxy.close()),
      ]);
      sqs.destroy();
      events.destroy();
      secrets.destroy();
      dynamodb.destroy();
    },
  };
};

export interface HandlerHarnessOptions extends HarnessOptions {
  /** Environment overrides for the entry point loaded before all tests (e.g. a missing DLQ). */
  readonly env?: EnvOverrides;
}

const registerHarness = (
  options: HandlerHarnessOptions,
  action: ActionName | undefined,
): { harness: Harness; handler: LambdaEntry } => {
  const harness = lateBound<Harness>('the handler harness');
  const handler = lateBound<LambdaEntry>(`the ${action ?? 'unnamed'} entry point`);
  beforeAll(async () => {
    harness.set(await startHarness(options));
    if (action) handler.set(await harness.value().load(action, options.env));
  });
  afterAll(async () => {
    await harness.peek()?.close();
  });
  beforeEach(async () => {
    await harness.value().reset();
  });
  return { harness: harness.standIn, handler: handler.standIn };
};

/**
 * The lifecycle of a test file that loads its entry points itself: start the harness (moto
 * secret, DLQ, result bus, simulator) before all tests, reset it before each, close it after
 * all. Call it at the top level of the file.
 */
export const harnessPerFile = (options: HarnessOptions = {}): Harness =>
  registerHarness(options, undefined).harness;

/**
 * `harnessPerFile` plus the action's real entry point, cold-started once before all tests with
 * the handler environment (and `options.env`). Call it at the top level of the file.
 */
export const handlerHarness = (
  action: ActionName,
  options: HandlerHarnessOptions = {},
): { readonly harness: Harness; readonly handler: LambdaEntry } => registerHarness(options, action);

/**
 * The set-up of a "redelivery after a lost response" test: delivers `message` once while the
 * platform applies it but its response is lost, then switches the fault off. Returns what the
 * handler answered to that first delivery.
 */
export const deliverLosingResponse = async (
  harness: Harness,
  handler: LambdaEntry,
  message: unknown,
  messageId: string,
  /** Only the answers of these endpoints are lost. @default every answer */
  endpoints?: readonly string[],
): Promise<unknown> => {
  harness.sim.setFaults({ lostResponseRate: 1, ...(endpoints === undefined ? {} : { endpoints }) });
  const response = await handler(sqsEvent(sqsRecord(message, { messageId })), lambdaContext());
  harness.sim.setFaults({});
  return response;
};

/**
 * Registers, in the calling `describe` (or file), a proxy in front of the simulator that can
 * fail chosen requests: for a mixed batch that needs some requests to fail (the simulator's own
 * faults hit every request alike). Point an entry point at it with `API_BASE_URL`; `reset`
 * switches its interception off between tests.
 */
export const platformProxy = (harness: Harness): ForwardingProxy => {
  const proxy = lateBound<ForwardingProxy>('the platform proxy');
  beforeAll(async () => {
    proxy.set(await harness.startPlatformProxy());
  });
  return proxy.standIn;
};
