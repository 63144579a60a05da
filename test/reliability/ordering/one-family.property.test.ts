/**
 * The ordering model on one entity at a time, with shrinking: a record family's or a user's
 * events, delivered in any order with copies, one message at a time, through the entity ledger
 * and the real platform steps against the simulator, must leave the platform as the events
 * applied once each in version order leave a fresh one. Some answers are lost (the call is
 * applied, the answer never comes). The full convergence suite delivers many entities at once
 * through the handlers; this one finds the smallest history that breaks a rule.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActionName, actionDefinition, parseMessage } from '../../../lambdas/actions';
import { EntityLedger, newEvent } from '../../../lambdas/core/ledger/entity-ledger';
import { eventTime } from '../../../lambdas/core/ledger/event-time';
import { versionOf } from '../../../lambdas/core/ledger/event-version';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import { entityKindOf } from '../../../lambdas/entities';
import { eventOf, type RecordStep, transferOf } from '../../../local/convergence/histories';
import {
  applyInOrder,
  compareStates,
  type ModelEvent,
  project,
} from '../../../local/convergence/model';
import { type RunningSimulator, startSimulator } from '../../../local/simulator';
import { propertySeed, sizeFromEnv } from '../../support/size-from-env';
import { settingsFor, TENANT } from '../support/harness';

const API_KEY = 'sk-one-family-7d1e2c';
const RUNS = sizeFromEnv('ONE_FAMILY_RUNS', 300);
const CAMPAIGNS = ['A', 'B', 'C'] as const;
const START = Date.UTC(2026, 10, 24, 8);
const at = (minute: number) => new Date(START + minute * 60_000).toISOString();

let actual: RunningSimulator | undefined;
let expected: RunningSimulator | undefined;

beforeAll(async () => {
  [actual, expected] = await Promise.all(
    [1, 2].map((seed) => startSimulator({ ...TENANT, apiKey: API_KEY, seed: propertySeed(seed) })),
  );
});

afterAll(async () => {
  await Promise.all([actual?.close(), expected?.close()]);
});

/** One step of a record's history, in the shared histories' values (agent and queue by index). */
const recordStepArb: fc.Arbitrary<RecordStep> = fc.oneof(
  fc.record(
    { kind: fc.constant('upsert' as const), name: fc.nat(2), agent: fc.nat(2) },
    { requiredKeys: ['kind', 'name'] },
  ),
  fc.record(
    {
      kind: fc.constant('status' as const),
      state: fc.constantFrom('NOTWORKED' as const, 'COMPLETED' as const, 'REMOVED' as const),
      queue: fc.nat(1),
    },
    { requiredKeys: ['kind', 'state'] },
  ),
  fc.record({ kind: fc.constant('transfer' as const), to: fc.nat(2) }),
  fc.record({ kind: fc.constant('delete' as const) }),
);

/**
 * One line of a record's history, starting in `start`: each event addressed to where a producer
 * believes the record is at that point, its message as the shared histories write it. `offset`
 * (seconds) keeps two lines' times apart.
 */
const lineArb = (start: string, offset: number, tag: string) =>
  fc
    .array(fc.tuple(recordStepArb, fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 6 })
    .map((steps) => {
      let campaign: string = start;
      let minute = 0;
      return steps.map(([step, gap], i): ModelEvent => {
        minute += Math.max(1, gap);
        const atMs = Date.parse(at(minute)) + offset * 1000;
        const common = {
          correlationId: `${tag}${i}`,
          occurredAt: new Date(atMs).toISOString(),
          campaignName: campaign,
          clientId: 'c-1',
        };
        if (step.kind !== 'transfer') return eventOf(step, common, atMs);
        const to = CAMPAIGNS.filter((c) => c !== campaign)[step.to % 2] as string;
        campaign = to;
        return transferOf(step, common, to);
      });
    });

/** A record family's history: one record's events. */
const familyArb = lineArb(CAMPAIGNS[0], 0, 'e');

/** The same clientId in two campaigns at once: two lines of events, moves between them included. */
const twinsArb = fc
  .tuple(lineArb(CAMPAIGNS[0], 0, 'a'), lineArb(CAMPAIGNS[1], 30, 'b'))
  .map(([a, b]) => [...a, ...b]);

const userArb = fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }).map((joins) =>
  joins.map((join, i): ModelEvent => {
    const common = {
      correlationId: `u${i}`,
      occurredAt: at(i + 1),
      loginUserId: 'ada@example.com',
    };
    return join
      ? {
          action: 'add-user',
          message: { ...common, firstName: 'Ada', lastName: 'L', userTemplateName: 'Agent' },
        }
      : { action: 'delete-user', message: common };
  }),
);

/** Each event's message through the ledger, as the message pipeline sends it there. */
const deliver = async (
  arrivals: readonly ModelEvent[],
  lost: readonly boolean[],
  sim: RunningSimulator,
  ledger = new EntityLedger({ store: new InMemoryLedgerStore(), sleep: async () => {} }),
  options: { readonly down?: boolean; readonly maxReceives?: number } = {},
): Promise<ModelEvent[]> => {
  const gaveUp: ModelEvent[] = [];
  const settings = settingsFor(sim.baseUrl);
  const platform = new PlatformCaller(
    settings,
    { getKey: async () => API_KEY, refreshKey: async () => API_KEY },
    { maxAttempts: 1, requestTimeoutMs: 2000 },
  );
  let calls = 0;
  const queue = arrivals.map((event) => ({ event, receives: 0 }));
  while (queue.length > 0) {
    const item = queue.shift() as (typeof queue)[number];
    item.receives += 1;
    const action = actionDefinition(item.event.action as ActionName);
    const parsed = parseMessage(action.name, item.event.message);
    if (!parsed.success || action.ordering === undefined) throw new Error('invalid test message');
    const message = parsed.message as Record<string, unknown>;
    const kind = entityKindOf(action);
    if (kind === undefined) throw new Error('not a write');
    const name = action.ordering.name(message as never, settings.campaignRegion);
    if (!('id' in name)) throw new Error('named by id');
    const op = action.ordering.op(message as never);
    const v = versionOf(
      action.ordering.rank,
      op,
      eventTime({ occurredAt: message.occurredAt as string }, 0).ms,
    );
    // Lost answers: the simulator applies the request and drops the connection.
    sim.setFaults(
      options.down === true
        ? { serverErrorRate: 1 }
        : lost[calls] === true
          ? { lostResponseRate: 1 }
          : {},
    );
    calls += 1;
    const outcome = await ledger.apply(kind, {
      id: name.id,
      event: newEvent(action.name, v, op),
      platform,
      call: { deadline: Date.now() + 30_000 },
      deadline: Date.now() + 30_000,
      // As the pipeline says it: a message that gives up here goes to the DLQ, and its event
      // leaves the entity's events until a redrive brings it back.
      lastReceive: item.receives >= (options.maxReceives ?? 12),
    });
    sim.setFaults({});
    if (outcome.category !== 'retryable') continue;
    if (item.receives < (options.maxReceives ?? 12)) queue.push(item);
    else gaveUp.push(item.event);
  }
  return gaveUp;
};

const arrivalsOf = (events: readonly ModelEvent[]) =>
  fc.tuple(
    fc.constant(events),
    fc.shuffledSubarray([...events, ...events], {
      minLength: events.length * 2,
      maxLength: events.length * 2,
    }),
    fc.array(fc.boolean(), { maxLength: 6 }),
  );

const check = async (
  [events, arrivals, lost]: readonly [
    readonly ModelEvent[],
    readonly ModelEvent[],
    readonly boolean[],
  ],
  outage = false,
) => {
  if (!actual || !expected) throw new Error('simulators not started');
  // Prepare
  actual.reset();
  expected.reset();
  // Act: the delivery (through an outage, then every message that gave up redriven)
  if (outage) {
    const ledger = new EntityLedger({ store: new InMemoryLedgerStore(), sleep: async () => {} });
    const dead = await deliver(arrivals, lost, actual, ledger, { down: true, maxReceives: 2 });
    await deliver([...dead].reverse(), lost, actual, ledger);
  } else {
    await deliver(arrivals, lost, actual);
  }
  await applyInOrder(events, expected, settingsFor(expected.baseUrl), API_KEY);
  // Assess
  const diverged = compareStates(project(expected, events), project(actual, events)).filter(
    (v) => !v.converged,
  );
  expect(
    diverged,
    `arrivals: ${arrivals.map((e) => `${e.action}@${(e.message as { occurredAt: string }).occurredAt.slice(11, 16)}`).join(' ')}\n${JSON.stringify(diverged, null, 1)}`,
  ).toEqual([]);
};

describe('one entity at a time, through the ledger and the simulator', () => {
  it.each([
    [
      'a record family ends as its events applied once each in order, whatever the arrival order',
      familyArb,
      false,
      RUNS,
    ],
    [
      'two records with one clientId in two campaigns end as their events applied once each in order',
      twinsArb,
      false,
      RUNS,
    ],
    [
      'a record family still ends so when an outage sends its messages to the DLQ and they are redriven',
      familyArb,
      true,
      Math.ceil(RUNS / 3),
    ],
    [
      'a user still ends so when an outage sends its messages to the DLQ and they are redriven',
      userArb,
      true,
      Math.ceil(RUNS / 3),
    ],
    [
      'a user ends as its events applied once each in order, whatever the arrival order',
      userArb,
      false,
      Math.ceil(RUNS / 3),
    ],
  ] as const)('%s', async (_name, arb, outage, numRuns) => {
    await fc.assert(
      fc.asyncProperty(
        arb.chain((events) => arrivalsOf(events)),
        (input) => check(input, outage),
      ),
      { numRuns, seed: propertySeed(20261127) },
    );
  });
});
