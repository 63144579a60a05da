/**
 * What ordering costs (issue 23), as ratios within one run: the convergence suite's move-chain
 * histories (up to four transfers per record, back included; a clientId in two campaigns at
 * once) go through the real handlers, with the entity ledger in memory, to a simulator in this
 * process; once in order (each message once, one at a time) and once shuffled, doubled and
 * through platform faults with a redrive. The in-order model applies the same histories to a
 * second simulator. Requests are counted where they land: the platform's at each simulator,
 * DynamoDB's at the ledger store. At the end of each history every item the ledger holds is
 * read back and sized as JSON.
 */
import type { SQSEvent } from 'aws-lambda';
import fc from 'fast-check';
import { ACTION_NAMES, type ActionName, actionDefinition } from '../lambdas/actions';
import { createActionHandler } from '../lambdas/core/entry/invocation-entry';
import { EntityLedger } from '../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../lambdas/core/ledger/in-memory-ledger-store';
import { PlatformCaller } from '../lambdas/core/platform/platform-caller';
import type { PlatformSettings } from '../lambdas/core/platform/platform-settings';
import { orderedWith } from '../lambdas/entities';
import {
  DELIVERY_FAULTS,
  type DeadLetter,
  type DeliveryMode,
  deliverPart,
  type Invoke,
} from '../local/convergence/delivery';
import { eventsOf, type HistoryShape, historyArb } from '../local/convergence/histories';
import { applyInOrder, compareStates, project, versionOrder } from '../local/convergence/model';
import { createRunMetrics, discardLogSink, RunLogger } from '../local/run/run-logger';
import { type RunningSimulator, startSimulator } from '../local/simulator';
import { seededRandom } from '../local/simulator/faults';
import { lambdaContext } from '../testkit';
import { markdownTable, percentile, type Row, ratio } from './report';

export const ORDERING_TARGETS = {
  /** Platform requests against the in-order model's, delivered in order. */
  requestsInOrder: 1.05,
  /** The same, shuffled, doubled and through faults. */
  requestsShuffled: 1.5,
  ledgerRequestsPerMessage: 2,
  /** DynamoDB's item limit is 400 KB; a tenth of it leaves room for a family's long life. */
  itemBytesP99: 40 * 1024,
} as const;

/** The suite's move-chain histories (test/reliability/convergence-histories.test.ts). */
const SHAPE: HistoryShape = {
  records: 5,
  users: 2,
  maxMoves: 4,
  twins: true,
  byPreviewRecordId: false,
};
const SEED = 20261127;
const API_KEY = 'bench-ordering-key-0123456789';
const TENANT = { platformCode: 'CCPLATFORM', companyCode: 'acme', environmentName: 'qa' };
const MAX_RECEIVE_COUNT = 5;

export interface OrderingSide {
  readonly histories: number;
  /** Events of the histories: the messages a producer sent, each once. */
  readonly events: number;
  /** Platform requests of the handlers (retries, look-ups and refused calls included). */
  readonly requests: number;
  /** Platform requests of the in-order model for the same histories: one per event. */
  readonly modelRequests: number;
  /** DynamoDB requests of the ledger (claims, commits, releases, reads). */
  readonly ledgerRequests: number;
  /** SQS messages the handlers received: copies, redeliveries and the redrive included. */
  readonly receives: number;
  readonly entities: number;
  /** Entities that did not end as the model says. */
  readonly offModel: number;
  /**
   * In order only, where each message's requests are its own: the messages the handlers applied
   * or skipped (not dead-lettered), and their platform and DynamoDB requests. The rest were
   * refused in that order (a conflict the replay foresees): dead-lettered on their first receive.
   */
  readonly answered?: {
    readonly messages: number;
    readonly requests: number;
    readonly ledgerRequests: number;
  };
}

export interface OrderingResult {
  readonly inOrder: OrderingSide;
  readonly shuffled: OrderingSide;
  /** JSON size of every item the ledger held at the end of a history, both sides, ascending. */
  readonly itemBytes: readonly number[];
}

const platformSettings = (baseUrl: string): PlatformSettings => ({
  ...TENANT,
  baseUrl,
  campaignRegion: 'eu-central-1',
  secretsRegion: 'eu-west-2',
});

/** The ordered actions' handlers as the functions wire them, quiet, on one ledger. */
const handlersFor = (
  baseUrl: string,
  ledger: EntityLedger,
  deadLetters: { entries: DeadLetter[] },
): Invoke => {
  const apiKey = { getKey: async () => API_KEY, refreshKey: async () => API_KEY };
  const settings = platformSettings(baseUrl);
  const handlers = new Map(
    ACTION_NAMES.filter((action) => actionDefinition(action).ordering !== undefined).map(
      (action) => [
        action,
        createActionHandler(actionDefinition(action), {
          // The convergence suite's client settings: fast retries, a generous timeout.
          platform: new PlatformCaller(settings, apiKey, {
            requestTimeoutMs: 2000,
            maxAttempts: 3,
            baseDelayMs: 2,
            maxDelayMs: 10,
          }),
          deadLetters: {
            send: async (body, reason) => {
              deadLetters.entries.push({ body, reason });
            },
          },
          logger: new RunLogger({ action, sink: discardLogSink }),
          metrics: createRunMetrics(action, discardLogSink),
          maxReceiveCount: MAX_RECEIVE_COUNT,
          ...orderedWith(actionDefinition(action), ledger),
          campaignRegion: settings.campaignRegion,
        }),
      ],
    ),
  );
  return async (action: string, event: SQSEvent) =>
    handlers.get(action as ActionName)?.(event, lambdaContext({ remainingMs: 60_000 }));
};

const side = async (
  mode: DeliveryMode,
  histories: readonly ReturnType<typeof eventsOf>[],
  platforms: { readonly actual: RunningSimulator; readonly expected: RunningSimulator },
  itemBytes: number[],
): Promise<OrderingSide> => {
  const { actual, expected } = platforms;
  const totals = { events: 0, requests: 0, modelRequests: 0, ledgerRequests: 0, receives: 0 };
  let entities = 0;
  let offModel = 0;
  const answered = { messages: 0, requests: 0, ledgerRequests: 0 };
  for (const [n, events] of histories.entries()) {
    actual.reset();
    expected.reset();
    const store = new InMemoryLedgerStore();
    // Busy entities are waited for 20× faster, as in the suite: one process plays every function.
    const ledger = new EntityLedger({
      store,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms / 20)),
    });
    const deadLetters = { entries: [] as DeadLetter[] };
    const invoke = handlersFor(actual.baseUrl, ledger, deadLetters);
    const ledgerRequests = () =>
      Object.values(store.requests).reduce((sum, count) => sum + count, 0);
    const deliverOne = (batch: typeof events, name: string) =>
      deliverPart(batch, invoke, actual, deadLetters, {
        mode,
        faults: DELIVERY_FAULTS,
        random: seededRandom(SEED + n),
        maxReceiveCount: MAX_RECEIVE_COUNT,
        name,
      });
    // In order, one message at a time, so each message's requests can be told apart.
    const batches = mode === 'in-order' ? versionOrder(events).map((e) => [e]) : [events];
    for (const [b, batch] of batches.entries()) {
      const before = { requests: actual.stats.requests, ledger: ledgerRequests() };
      const part = await deliverOne(batch, `${mode}-${n}-${b}`);
      totals.receives +=
        part.delivered.messages +
        part.delivered.redeliveries +
        part.redriven.messages +
        part.redriven.redeliveries;
      if (mode === 'in-order' && part.letters.length === 0) {
        answered.messages += 1;
        answered.requests += actual.stats.requests - before.requests;
        answered.ledgerRequests += ledgerRequests() - before.ledger;
      }
    }
    await applyInOrder(events, expected, platformSettings(expected.baseUrl), API_KEY);
    totals.events += events.length;
    totals.requests += actual.stats.requests;
    totals.modelRequests += expected.stats.requests;
    totals.ledgerRequests += ledgerRequests();
    const verdicts = compareStates(project(expected, events), project(actual, events));
    entities += verdicts.length;
    offModel += verdicts.filter((verdict) => !verdict.converged).length;
    // Read after the requests were counted: these reads are the bench's, not the handlers'.
    for (const key of store.keys()) {
      itemBytes.push(Buffer.byteLength(JSON.stringify((await store.read(key)) ?? null)));
    }
  }
  return {
    histories: histories.length,
    ...totals,
    entities,
    offModel,
    ...(mode === 'in-order' ? { answered } : {}),
  };
};

export const measureOrdering = async (options: {
  readonly histories: number;
}): Promise<OrderingResult> => {
  const histories = fc
    .sample(historyArb(SHAPE), { seed: SEED, numRuns: options.histories })
    .map(eventsOf);
  const [actual, expected] = await Promise.all(
    [1, 2].map((seed) => startSimulator({ ...TENANT, apiKey: API_KEY, seed })),
  );
  if (!actual || !expected) throw new Error('simulators not started');
  const itemBytes: number[] = [];
  try {
    const platforms = { actual, expected };
    const inOrder = await side('in-order', histories, platforms, itemBytes);
    const shuffled = await side('shuffled', histories, platforms, itemBytes);
    return { inOrder, shuffled, itemBytes: itemBytes.sort((a, b) => a - b) };
  } finally {
    await Promise.all([actual.close(), expected.close()]);
  }
};

const pass = (ok: boolean) => (ok ? 'PASS' : 'MISS');

const requestRow = (name: string, s: OrderingSide, target: number): Row => {
  const value = s.requests / s.events;
  const baseline = s.modelRequests / s.events;
  return {
    metric: `platform requests per message, ${name}`,
    value: value.toFixed(3),
    baseline: `${baseline.toFixed(3)} (in-order model)`,
    ratio: ratio(value / baseline),
    target: `ratio ≤ ${target.toFixed(2)}`,
    verdict: pass(value / baseline <= target),
  };
};

export const orderingRows = (r: OrderingResult): Row[] => {
  const ledgerPerMessage = r.inOrder.ledgerRequests / r.inOrder.events;
  const p99 = percentile(r.itemBytes, 99);
  return [
    requestRow('in order (move chains)', r.inOrder, ORDERING_TARGETS.requestsInOrder),
    requestRow(
      'shuffled, doubled, faults (move chains)',
      r.shuffled,
      ORDERING_TARGETS.requestsShuffled,
    ),
    {
      metric: 'DynamoDB ledger requests per message, in order (move chains)',
      value: ledgerPerMessage.toFixed(2),
      baseline: '-',
      ratio: '-',
      target: `≤ ${ORDERING_TARGETS.ledgerRequestsPerMessage}`,
      verdict: pass(ledgerPerMessage <= ORDERING_TARGETS.ledgerRequestsPerMessage),
    },
    {
      metric: `ledger item size, p99 of ${r.itemBytes.length} items`,
      value: `${p99} B`,
      baseline: `max ${percentile(r.itemBytes, 100)} B`,
      ratio: '-',
      target: `≤ ${ORDERING_TARGETS.itemBytesP99 / 1024} KiB`,
      verdict: pass(p99 <= ORDERING_TARGETS.itemBytesP99),
    },
    ...(r.inOrder.answered === undefined
      ? []
      : [
          {
            metric:
              'in order, messages answered (not dead-lettered): platform / DynamoDB requests each',
            value: `${(r.inOrder.answered.requests / r.inOrder.answered.messages).toFixed(3)} / ${(r.inOrder.answered.ledgerRequests / r.inOrder.answered.messages).toFixed(2)}`,
            baseline: `${r.inOrder.answered.messages} of ${r.inOrder.events} messages`,
            ratio: '-',
            target: '-',
            verdict: 'info' as const,
          },
        ]),
    {
      metric: 'entities off the in-order model (move chains)',
      value: `${r.inOrder.offModel} in order, ${r.shuffled.offModel} shuffled`,
      baseline: `${r.inOrder.entities} entities each`,
      ratio: '-',
      target: '-',
      verdict: 'info',
    },
  ];
};

export const orderingMarkdown = (r: OrderingResult): string[] => [
  '### Ordering',
  '',
  `${r.inOrder.histories} histories of the convergence suite's move chains (${SHAPE.records} records with up to ${SHAPE.maxMoves} transfers each, back included, some holding their clientId in two campaigns; ${SHAPE.users} users), through the real handlers and the in-memory ledger to a simulator in the bench process. In order: each message once, one at a time, in version order, no faults. Shuffled: some messages twice, shuffled, all queues at once, the suite's platform faults (lost answers included), then a redrive of the dead letters. The model applies each history's events once each, in order, to a second simulator.`,
  '',
  markdownTable(
    [
      'delivery',
      'events',
      'SQS receives',
      'platform requests',
      'model requests',
      'DynamoDB requests',
      'entities off the model',
    ],
    (
      [
        ['in order', r.inOrder],
        ['shuffled, doubled, faults', r.shuffled],
      ] as const
    ).map(([name, s]) => [
      name,
      String(s.events),
      String(s.receives),
      String(s.requests),
      String(s.modelRequests),
      String(s.ledgerRequests),
      `${s.offModel} of ${s.entities}`,
    ]),
  ),
  '',
  ...(r.inOrder.answered === undefined
    ? []
    : [
        `In order, ${r.inOrder.answered.messages} of ${r.inOrder.events} messages were answered (applied or skipped) and cost ${r.inOrder.answered.requests} platform and ${r.inOrder.answered.ledgerRequests} DynamoDB requests; the other ${r.inOrder.events - r.inOrder.answered.messages} are refused in that order (a destination holding the clientId already), which the model applies to nothing: the handlers dead-lettered them on their first receive, with a claim and a commit each and no platform request.`,
        '',
      ]),
  `Ledger items (JSON of each document the store held at the end of a history, both deliveries): ${r.itemBytes.length} items, median ${percentile(r.itemBytes, 50)} B, p99 ${percentile(r.itemBytes, 99)} B, max ${percentile(r.itemBytes, 100)} B.`,
  '',
];
