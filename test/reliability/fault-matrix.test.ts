/**
 * The fault matrix: the same 1 000+ mixed messages (all eight actions, four phases) run through
 * the real handlers with SQS semantics against the simulator, once per fault. Each run must
 * account for every message: applied on the simulator (its history / the result bus) or in a
 * DLQ with a reason; nothing lost; nothing applied twice where that changes the outcome (the
 * final state equals the fault-free run's); a retryable fault never dead-letters a message
 * before its last receive; no key, name, e-mail, phone number or record value in the logs.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_NAMES } from '../../lambdas/actions';
import { EntityLedger } from '../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../lambdas/core/ledger/in-memory-ledger-store';
import { startSimulator } from '../../local/simulator';
import {
  API_KEY,
  convergenceRun,
  type Platforms,
  type RunStats,
} from './convergence/convergence-check';
import { historiesArb } from './convergence/histories';
import {
  type FaultProfile,
  MAX_RECEIVE_COUNT,
  type MessageFate,
  type RunControls,
  type RunReport,
  runScenario,
} from './support/fault-run';
import { TENANT } from './support/harness';
import { buildScenario, PHONE_PREFIX, PII_MARKER } from './support/scenario';

const scenario = buildScenario();
const reports: RunReport[] = [];
let baseline: RunReport;

/** Switches a simulator fault on for `length` requests out of every `every`. */
const windows =
  (every: number, length: number, on: (c: RunControls) => void, off: (c: RunControls) => void) =>
  (n: number, controls: RunControls): void => {
    if (n % every === 1) on(controls);
    if (n % every === 1 + length) off(controls);
  };

const KEY_2 = 'sk-live-rotated-second-6a5b4c3d2e';
const KEY_3 = 'sk-live-rotated-third-0f1e2d3c4b';

interface MatrixProfile extends FaultProfile {
  /**
   * Requests the simulator applies after the client gave up can land after the retry: a late
   * add then arrives as an update and drops the clientId item the first add stored. No client
   * can prevent that without an idempotency key in the API (docs/reliability.md).
   */
  readonly lateApplies?: true;
  /**
   * A fault that outlasts every receive: messages give up (dead-lettered as retryable on their
   * last receive), and the messages that depend on them may then be refused (NORECORDFOUND).
   */
  readonly outlastsReceives?: true;
  /** The fault always costs some messages a receive (it cannot be retried away in process). */
  readonly forcesRedelivery?: true;
}

const PROFILES: readonly MatrixProfile[] = [
  {
    name: '5xx bursts (20 of every 100 requests)',
    beforeRequest: windows(
      100,
      20,
      (c) => c.simulator.setFaults({ serverErrorRate: 1 }),
      (c) => c.simulator.setFaults({}),
    ),
  },
  { name: '429 without Retry-After', simulatorFaults: { throttleRate: 0.25 } },
  { name: '429 with Retry-After', simulatorFaults: { throttleRate: 0.25, retryAfterSeconds: 1 } },
  { name: 'connection resets', simulatorFaults: { connectionResetRate: 0.2 } },
  {
    name: 'no response within the client timeout',
    simulatorFaults: { hangRate: 0.08 },
    http: { requestTimeoutMs: 100 },
  },
  {
    name: 'responses slower than the client timeout (applied late)',
    beforeRequest: windows(
      100,
      15,
      (c) => c.simulator.setFaults({ latencyMs: 300 }),
      (c) => c.simulator.setFaults({}),
    ),
    http: { requestTimeoutMs: 100 },
    settleMs: 500,
    lateApplies: true,
  },
  { name: 'HTTP 200 with FAILED / FAIL', simulatorFaults: { failedStatusRate: 0.25 } },
  { name: 'malformed bodies (HTML error page)', simulatorFaults: { malformedBodyRate: 0.25 } },
  {
    name: 'lost responses (applied, connection dropped)',
    simulatorFaults: { lostResponseRate: 0.1 },
  },
  {
    name: 'API key rotated mid-run',
    beforeRequest: (n, c) => {
      // The platform switches first; the secret follows 40 requests later; then both at once.
      if (n === 300) {
        c.simulator.setApiKey(KEY_2);
        c.apiKeys.push(KEY_2);
        c.inject('keyRotation');
      }
      if (n === 340) c.secretStore.rotate(KEY_2);
      if (n === 700) {
        c.secretStore.rotate(KEY_3);
        c.simulator.setApiKey(KEY_3);
        c.apiKeys.push(KEY_3);
        c.inject('keyRotation');
      }
    },
  },
  {
    name: 'Secrets Manager throttled / unavailable',
    forcesRedelivery: true,
    secretReadFails: (read) => read <= 12 || (read >= 17 && read <= 24),
  },
  { name: 'DLQ send failing', deadLetterSendFailures: 2, forcesRedelivery: true },
  { name: 'result bus failing', resultPublishFailures: 25, forcesRedelivery: true },
  {
    name: 'platform outage outlasting every receive (all requests 5xx for a stretch)',
    beforeRequest: (n, c) => {
      if (n === 400) c.simulator.setFaults({ serverErrorRate: 1 });
      if (n === 3400) c.simulator.setFaults({});
    },
    outlastsReceives: true,
  },
  {
    name: 'Lambda deadline reached mid-batch',
    forcesRedelivery: true,
    // Every 3rd invocation has 35 ms left after the 2 s safety margin, and every request takes
    // 10 ms of the handler's clock: the first records of its batch get through, the rest meet
    // the deadline and are redelivered.
    remainingTimeMs: (invocation) => (invocation % 3 === 0 ? 2035 : undefined),
    virtualMsPerRequest: 10,
    recordConcurrency: 1,
  },
];

interface Accounting {
  readonly messages: number;
  readonly faults: number;
  readonly applied: number;
  /** `category:code` → count. */
  readonly deadLettered: Readonly<Record<string, number>>;
  /** In a DLQ without a reason (moved by the redrive policy). */
  readonly redriven: number;
  /** Applied more than once (add-or-update, status change: the same request again). */
  readonly reapplied: number;
  /** Receives beyond each message's first: redeliveries the faults caused. */
  readonly redeliveries: number;
  /** Records or users whose final state differs from the fault-free run's. */
  readonly changed: number;
  readonly lost: number;
}

const isApplied = (fate: MessageFate): boolean => fate.applied > 0;

/** Records and users (by campaign + clientId, or loginUserId) that differ from the baseline's. */
const changedEntries = (report: RunReport): number => {
  const byKey = (state: readonly string[]) =>
    new Map(
      state.map((entry) => [JSON.stringify((JSON.parse(entry) as unknown[]).slice(0, 2)), entry]),
    );
  const expected = byKey(baseline.finalState);
  const actual = byKey(report.finalState);
  const keys = new Set([...expected.keys(), ...actual.keys()]);
  return [...keys].filter((key) => expected.get(key) !== actual.get(key)).length;
};

const account = (report: RunReport): Accounting => {
  const deadLettered: Record<string, number> = {};
  let redriven = 0;
  for (const fate of report.fates) {
    for (const letter of fate.deadLetters) {
      if (!letter.reason) {
        redriven += 1;
        continue;
      }
      // 500, 502 and 503 are drawn at random by the simulator: one line for all of them.
      const code = letter.reason.errorCode.replace(/^HTTP_5\d\d$/, 'HTTP_5xx');
      const key = `${letter.reason.errorCategory}:${code}`;
      deadLettered[key] = (deadLettered[key] ?? 0) + 1;
    }
  }
  return {
    messages: report.fates.length,
    faults: Object.values(report.faults).reduce((sum, n) => sum + n, 0),
    applied: report.fates.filter(isApplied).length,
    deadLettered,
    redriven,
    reapplied: report.fates.filter((f) => f.message.expect.kind === 'write' && f.applied > 1)
      .length,
    redeliveries: report.fates.reduce((sum, f) => sum + Math.max(0, f.receives - 1), 0),
    changed: changedEntries(report),
    lost: report.fates.filter((f) => !isApplied(f) && f.deadLetters.length === 0).length,
  };
};

/** Ops whose repetition leaves the same state: the platform replaces data / sets a state. */
const REPEATABLE = new Set([
  'addOrUpdateCampaignRecord',
  'addOrUpdateCampaignRecord:update',
  'changeCampaignRecordStatus',
]);

const expectSoundAccounting = (report: RunReport, profile: MatrixProfile = { name: '' }): void => {
  const accounting = account(report);
  // Nothing lost, every dead letter carries its reason.
  expect(accounting.lost).toBe(0);
  expect(accounting.redriven).toBe(0);
  expect(report.crashedInvocations).toBe(0);
  for (const fate of report.fates) {
    const { expect: expected, id } = fate.message;
    for (const letter of fate.deadLetters) {
      expect(letter.reason?.errorMessage, id).toMatch(/\S/);
      // A retryable failure is dead-lettered only on the last receive.
      if (letter.reason?.errorCategory === 'retryable') {
        expect(letter.receiveCount, id).toBe(MAX_RECEIVE_COUNT);
      }
    }
    if (profile.outlastsReceives) {
      // Applied, or dead-lettered with a reason (once); a 5xx is never applied.
      expect(fate.deadLetters.length + (fate.applied > 0 ? 1 : 0), id).toBe(1);
      continue;
    }
    if (expected.kind === 'dead-letter') {
      // Refused by design: dead-lettered once, at once, never applied.
      expect(fate.applied, id).toBe(0);
      expect(
        fate.deadLetters.map((l) => [l.reason?.errorCategory, l.reason?.errorCode]),
        id,
      ).toEqual([['permanent', expected.errorCode]]);
      continue;
    }
    // Faults never turn into a permanent refusal: valid messages end applied.
    expect(
      fate.deadLetters.filter((l) => l.reason?.errorCategory === 'permanent'),
      id,
    ).toEqual([]);
    expect(fate.applied, id).toBeGreaterThan(0);
    if (expected.kind === 'write' && !REPEATABLE.has(expected.op)) {
      expect(fate.applied, id).toBe(1);
    }
  }
};

const expectNoLeaks = (report: RunReport): void => {
  for (const key of report.apiKeys) {
    expect(report.logs).not.toContain(key);
    const reasons = report.fates.flatMap((f) => f.deadLetters.map((l) => l.reason));
    expect(JSON.stringify(reasons)).not.toContain(key);
    expect(JSON.stringify(report.resultEvents)).not.toContain(key);
  }
  expect(report.logs.toLowerCase()).not.toContain(PII_MARKER);
  expect(report.logs).not.toContain(PHONE_PREFIX);
};

const table = (): string => {
  const rows = [baseline, ...reports].map((report) => {
    const a = account(report);
    const letters = Object.entries(a.deadLettered)
      .sort()
      .map(([reason, n]) => `${reason} ${n}`)
      .join(', ');
    const faults = Object.entries(report.faults)
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ');
    return `| ${report.name} | ${a.messages} | ${a.faults}${faults ? ` (${faults})` : ''} | ${a.redeliveries} | ${a.applied} | ${letters} | ${a.redriven} | ${a.reapplied} | ${a.changed} | ${a.lost} |`;
  });
  return [
    '| fault | messages | faults injected | redeliveries | applied | dead-lettered (category:code n) | in DLQ without reason | applied twice | final state changed | lost |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
};

beforeAll(async () => {
  baseline = await runScenario(scenario, { name: 'none (baseline)' });
});

afterAll(() => {
  if (baseline) console.log(`Fault matrix (maxReceiveCount ${MAX_RECEIVE_COUNT}):\n${table()}`);
});

describe('the fault matrix scenario', () => {
  it('has over a thousand messages of all eight actions, a few of them invalid', () => {
    // Prepare
    const actions = new Set(scenario.messages.map((m) => m.action));

    // Act
    const invalid = scenario.messages.filter((m) => m.expect.kind === 'dead-letter');

    // Assess
    expect(scenario.messages.length).toBeGreaterThanOrEqual(1000);
    expect(actions).toEqual(new Set(ACTION_NAMES));
    expect(invalid.length).toBeGreaterThan(0);
    expect(invalid.length).toBeLessThan(scenario.messages.length / 20);
  });

  it('without faults applies every valid message once and dead-letters the invalid ones', () => {
    // Assess
    expectSoundAccounting(baseline);
    expectNoLeaks(baseline);
    expect(account(baseline)).toMatchObject({ reapplied: 0, redeliveries: 0, changed: 0 });
    expect(baseline.faults).toEqual({});
  });
});

describe.each(PROFILES)('with $name', (profile) => {
  it('accounts for every message: applied or dead-lettered with a reason, none lost, same final state', async () => {
    // Act
    const report = await runScenario(scenario, profile);
    reports.push(report);

    // Assess
    expect(account(report).faults).toBeGreaterThan(0);
    if (profile.forcesRedelivery) expect(account(report).redeliveries).toBeGreaterThan(0);
    expectSoundAccounting(report, profile);
    if (profile.outlastsReceives) {
      // The check above is the point: messages gave up on their last receive, with a reason.
      const reasons = Object.keys(account(report).deadLettered);
      expect(reasons.some((reason) => reason.startsWith('retryable:HTTP_5'))).toBe(true);
    } else if (profile.lateApplies) {
      // The only change a late duplicate may make: the add's clientId item is gone.
      expect(report.finalStateIgnoringClientIdItem).toEqual(
        baseline.finalStateIgnoringClientIdItem,
      );
    } else {
      expect(report.finalState).toEqual(baseline.finalState);
    }
    expectNoLeaks(report);
  });
});

/**
 * The matrix's workload above touches each record once per phase, so its final state can be
 * compared per message. Real traffic sends several events per entity: these cells run random
 * histories of several events per record and user (adds, updates, status changes, transfers,
 * deletes; joins and leaves), shuffled, doubled and delivered over all queues at once through
 * each platform fault of the matrix, with the entity ledger on, and hold every entity against
 * the model (its events applied once each, in order). Nothing may be lost, and every dead
 * letter (redriven once, as an operator would) must carry its reason.
 */
const HISTORIES_PER_FAULT = Number(process.env.FAULT_MATRIX_HISTORIES ?? 40);
// Not here: requests the platform applies after the client gave up. One can land after a
// newer request of the same entity, and no client can order that (the API has no conditional
// write); see the known limits in docs/decisions.md.
const platformFaultProfiles = PROFILES.filter((profile) => profile.simulatorFaults !== undefined);

describe('several messages per entity, through each platform fault', () => {
  let platforms: Platforms | undefined;
  const stats: RunStats = { messages: 0, redeliveries: 0, deadLetters: 0, entities: 0 };

  beforeAll(async () => {
    const [actual, expected] = await Promise.all(
      [11, 12].map((seed) => startSimulator({ ...TENANT, apiKey: API_KEY, seed })),
    );
    if (!actual || !expected) throw new Error('simulators not started');
    platforms = { actual, expected };
  });

  afterAll(async () => {
    await Promise.all([platforms?.actual.close(), platforms?.expected.close()]);
    console.info(`fault matrix, several messages per entity: ${JSON.stringify(stats)}`);
  });

  it.each(platformFaultProfiles)('end in the model state with $name', async (profile) => {
    await fc.assert(
      fc.asyncProperty(historiesArb(4, 2), fc.nat(), async (events, seed) => {
        // Prepare
        const ledger = new EntityLedger({
          store: new InMemoryLedgerStore(),
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms / 20)),
        });
        if (!platforms) throw new Error('simulators not started');

        // Act + Assess (convergenceRun asserts: nothing lost, reasons, every entity converged)
        await convergenceRun(platforms, ledger, events, seed, stats, {
          ...(profile.simulatorFaults === undefined ? {} : { faults: profile.simulatorFaults }),
          ...(profile.http?.requestTimeoutMs === undefined
            ? {}
            : { requestTimeoutMs: profile.http.requestTimeoutMs }),
        });
      }),
      { numRuns: HISTORIES_PER_FAULT, seed: 20261125, endOnFailure: true },
    );
  });
});
