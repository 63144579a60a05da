/**
 * The fault matrix: the same 1 000+ mixed messages (all eight actions, four phases, several
 * messages per record and user, shuffled) run through the real handlers with SQS semantics and
 * the entity ledger against the simulator, once per fault. Each run must account for every
 * message: applied, knowingly skipped (STALE_SKIPPED, DUPLICATE, NO_EFFECT) or in a DLQ with a reason;
 * nothing lost; every record and user ends in the model's state (its events applied once each,
 * in `occurredAt` order); a retryable fault never dead-letters a message before its last
 * receive; no key, name, e-mail, phone number or record value in the logs.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_NAMES } from '../../lambdas/actions';
import { EntityLedger } from '../../lambdas/core/ledger/entity-ledger';
import { InMemoryLedgerStore } from '../../lambdas/core/ledger/in-memory-ledger-store';
import { historiesArb } from '../../local/convergence/histories';
import { compareStates } from '../../local/convergence/model';
import { type FaultSettings, startSimulator } from '../../local/simulator';
import { propertySeed, sizeFromEnv } from '../support/size-from-env';
import {
  API_KEY,
  convergenceRun,
  newRunStats,
  type Platforms,
} from './convergence/convergence-check';
import {
  type EntityStates,
  type FaultProfile,
  MAX_RECEIVE_COUNT,
  modelState,
  type RunControls,
  type RunReport,
  runScenario,
} from './support/fault-run';
import { TENANT } from './support/harness';
import {
  buildScenario,
  entityOf,
  PHONE_PREFIX,
  PII_MARKER,
  type ScenarioMessage,
} from './support/scenario';

const scenario = buildScenario();
const reports: RunReport[] = [];
let baseline: RunReport;
/** Every entity as the model leaves it: all the scenario's events once each, in order. */
let model: EntityStates;

/**
 * Switches simulator `faults` on for `length` requests out of every `every`, as a burst. A burst
 * also ends when the queues' clock moves on (messages waited out a visibility timeout): counted
 * in requests only, a burst would outlast every receive of the last few messages of a phase,
 * redelivered minutes apart with hardly any other traffic, which is an outage (its own cell).
 */
const windows = (every: number, length: number, faults: FaultSettings) => {
  const on = (c: RunControls) => c.simulator.setFaults(faults);
  const off = (c: RunControls) => c.simulator.setFaults({});
  let openedAt: number | undefined;
  return (n: number, controls: RunControls): void => {
    if (openedAt !== undefined && controls.queueTime() > openedAt) {
      off(controls);
      openedAt = undefined;
    }
    if (n % every === 1) {
      on(controls);
      openedAt = controls.queueTime();
    }
    if (n % every === 1 + length) {
      off(controls);
      openedAt = undefined;
    }
  };
};

const KEY_2 = 'sk-live-rotated-second-6a5b4c3d2e';
const KEY_3 = 'sk-live-rotated-third-0f1e2d3c4b';

interface MatrixProfile extends FaultProfile {
  /**
   * Requests the simulator applies after the client gave up can land after the retry, and
   * after a newer request of the same entity: an older status change or update then undoes a
   * newer one. No client can prevent that without a conditional write or an idempotency key in
   * the API (docs/decisions.md, known limit 4).
   */
  readonly lateApplies?: true;
  /**
   * A fault that outlasts every receive: messages give up (dead-lettered as retryable on their
   * last receive); a status change whose add gave up then has no effect (NO_EFFECT) and stays in
   * its entity's ledger until a redrive brings the add back.
   */
  readonly outlastsReceives?: true;
  /** The fault always costs some messages a receive (it cannot be retried away in process). */
  readonly forcesRedelivery?: true;
}

const PROFILES: readonly MatrixProfile[] = [
  {
    name: '5xx bursts (20 of every 100 requests)',
    beforeRequest: windows(100, 20, { serverErrorRate: 1 }),
  },
  { name: '429 without Retry-After', simulatorFaults: { throttleRate: 0.25 } },
  {
    name: '429 with Retry-After',
    simulatorFaults: { throttleRate: 0.25, retryAfterSeconds: 1 },
    // A Retry-After longer than the in-process backoff cap ends the receive (the message
    // waits in its visibility instead), so each receive makes one attempt where the other
    // profiles make three: a deployment's 220 receives absorb that, 5 would not.
    maxReceiveCount: 20,
  },
  { name: 'connection resets', simulatorFaults: { connectionResetRate: 0.2 } },
  {
    name: 'no response within the client timeout',
    simulatorFaults: { hangRate: 0.08 },
    http: { requestTimeoutMs: 100 },
  },
  {
    name: 'responses slower than the client timeout (applied late)',
    beforeRequest: windows(100, 15, { latencyMs: 300 }),
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
  /** Ended in success with a platform call (`SUCCESS`, `ALREADY_…`, …). */
  readonly applied: number;
  /** Ended as a skip the ledger knows is right: `STALE_SKIPPED` / `DUPLICATE` / `NO_EFFECT` → count. */
  readonly skipped: Readonly<Record<string, number>>;
  /** `category:code` → count. */
  readonly deadLettered: Readonly<Record<string, number>>;
  /** In a DLQ without a reason (moved by the redrive policy). */
  readonly redriven: number;
  /** Receives beyond each message's first: redeliveries the faults (or the ledger) caused. */
  readonly redeliveries: number;
  /** Writes the platform applied, retries and late copies included. */
  readonly platformWrites: number;
  /** Records and users whose final state differs from the model's (once assessed). */
  readonly offModel: number | undefined;
  readonly lost: number;
}

const SKIPS: ReadonlySet<string> = new Set(['STALE_SKIPPED', 'DUPLICATE', 'NO_EFFECT']);

/** Entities off the model, per run (set when the run is assessed). */
const offModel = new Map<string, number>();

const account = (report: RunReport): Accounting => {
  const deadLettered: Record<string, number> = {};
  const skipped: Record<string, number> = {};
  let redriven = 0;
  for (const fate of report.fates) {
    for (const code of fate.successes.filter((c) => SKIPS.has(c))) {
      skipped[code] = (skipped[code] ?? 0) + 1;
    }
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
    applied: report.fates.filter((f) => f.successes.some((c) => !SKIPS.has(c))).length,
    skipped,
    deadLettered,
    redriven,
    redeliveries: report.fates.reduce((sum, f) => sum + Math.max(0, f.receives - 1), 0),
    platformWrites: report.platformWrites,
    offModel: offModel.get(report.name),
    lost: report.fates.filter((f) => f.successes.length === 0 && f.deadLetters.length === 0).length,
  };
};

/** Bodies sent more than once (a producer re-sent the event): the only duplicates there are. */
const resentBodies = (() => {
  const seen = new Map<string, number>();
  for (const m of scenario.messages) seen.set(m.body, (seen.get(m.body) ?? 0) + 1);
  return new Set([...seen].filter(([, n]) => n > 1).map(([body]) => body));
})();

const expectSoundAccounting = (report: RunReport, profile: MatrixProfile = { name: '' }): void => {
  const accounting = account(report);
  const faultFree = Object.keys(report.faults).length === 0;
  // Nothing lost, every dead letter carries its reason.
  expect(accounting.lost).toBe(0);
  expect(accounting.redriven).toBe(0);
  expect(report.crashedInvocations).toBe(0);
  for (const fate of report.fates) {
    const { expect: expected, id, body } = fate.message;
    // A message that succeeded is deleted: it never comes back to succeed again.
    expect(fate.successes.length, id).toBeLessThanOrEqual(1);
    if (fate.successes.includes('DUPLICATE')) expect(resentBodies.has(body), id).toBe(true);
    for (const letter of fate.deadLetters) {
      expect(letter.reason?.errorMessage, id).toMatch(/\S/);
      // A retryable failure is dead-lettered only on the last receive.
      if (letter.reason?.errorCategory === 'retryable') {
        expect(letter.receiveCount, id).toBe(report.maxReceiveCount);
      }
    }
    // The scenario's permanent refusals are invalid messages: refused before any platform call.
    const refusedBeforeAnyCall =
      expected.kind === 'dead-letter' && expected.errorCategory === 'permanent';
    if (profile.outlastsReceives && !refusedBeforeAnyCall) {
      // Applied (or skipped), or dead-lettered with a reason (once); a 5xx is never applied.
      expect(fate.deadLetters.length + fate.successes.length, id).toBe(1);
      continue;
    }
    if (expected.kind === 'dead-letter') {
      // Refused by design: dead-lettered once, with its reason, never applied.
      expect(fate.successes, id).toEqual([]);
      if (expected.errorCategory === 'permanent' || faultFree) {
        expect(
          fate.deadLetters.map((l) => [l.reason?.errorCategory, l.reason?.errorCode]),
          id,
        ).toEqual([[expected.errorCategory, expected.errorCode]]);
      } else {
        // Retried until its last receive, which may have met the fault instead: the reason is
        // that receive's, and the refusal shows in the receives before.
        expect(
          fate.deadLetters.map((l) => l.reason?.errorCategory),
          id,
        ).toEqual(['retryable']);
        expect(fate.receipts, id).toContain(`retry ${expected.errorCode}`);
      }
      continue;
    }
    // Faults never turn into a refusal: valid messages end applied or knowingly skipped. Except
    // as known limit (3) allows (docs/decisions.md): a request the client gave up on may be
    // applied after the read that followed it, and an add of that user sent again then meets a
    // user the ledger cannot tell from someone else's, which it never adopts.
    const lateLanded =
      profile.lateApplies === true && report.abandoned.has(entityOf(fate.message) ?? '');
    const letters = fate.deadLetters.map(
      (l) => `${l.reason?.errorCategory}:${l.reason?.errorCode}`,
    );
    expect(
      letters.filter((code) => !(lateLanded && code === 'permanent:USER_EXISTS_NOT_OURS')),
      id,
    ).toEqual([]);
    expect(fate.successes, id).toHaveLength(letters.length === 0 ? 1 : 0);
    if (expected.kind === 'read') expect(fate.results, id).toBeGreaterThan(0);
  }
};

/**
 * Every record and user must hold what `expected` (the model) says. With `lateApplies` an
 * entity may differ only where a request of it was given up by the client: the platform can
 * apply that request after a newer one of the same entity (docs/decisions.md, known limit 3).
 */
const expectModelState = (
  report: RunReport,
  expected: EntityStates,
  profile: MatrixProfile = { name: '' },
): void => {
  const off = compareStates(expected, report.state).filter((verdict) => !verdict.converged);
  offModel.set(report.name, off.length);
  const unexplained = profile.lateApplies
    ? off.filter((verdict) => !report.abandoned.has(verdict.entity))
    : off;
  expect(unexplained, JSON.stringify(unexplained.slice(0, 5), null, 1)).toEqual([]);
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

const counts = (entries: Readonly<Record<string, number>>): string =>
  Object.entries(entries)
    .sort()
    .map(([key, n]) => `${key} ${n}`)
    .join(', ');

const table = (): string => {
  const rows = [baseline, ...reports].map((report) => {
    const a = account(report);
    const faults = counts(report.faults);
    return `| ${report.name} | ${a.messages} | ${a.faults}${faults ? ` (${faults})` : ''} | ${a.redeliveries} | ${a.applied} | ${counts(a.skipped)} | ${counts(a.deadLettered)} | ${a.redriven} | ${a.platformWrites} | ${a.offModel ?? '–'} | ${a.lost} |`;
  });
  return [
    '| fault | messages | faults injected | redeliveries | applied | skipped | dead-lettered (category:code n) | in DLQ without reason | platform writes | entities off the model | lost |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
};

beforeAll(async () => {
  [model, baseline] = await Promise.all([
    modelState(scenario.messages),
    runScenario(scenario, { name: 'none (baseline)' }),
  ]);
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

  it('sends every record and user several messages, many in one phase, at distinct times', () => {
    // Prepare: the status changes of records that never come stand alone on purpose
    const writes = scenario.messages.filter(
      (m) => m.expect.kind === 'write' && !m.body.includes('"c-unknown-'),
    );

    // Act
    const byEntity = new Map<string, ScenarioMessage[]>();
    for (const message of writes) {
      const entity = entityOf(message) ?? 'none';
      byEntity.set(entity, [...(byEntity.get(entity) ?? []), message]);
    }
    const timesOf = (messages: readonly ScenarioMessage[]) =>
      new Set(messages.map((m) => (JSON.parse(m.body) as { occurredAt?: string }).occurredAt));
    const inOnePhase = [...byEntity.values()].filter((messages) =>
      messages.some((m) => messages.some((n) => n !== m && n.phase === m.phase)),
    );

    // Assess
    expect(byEntity.has('none')).toBe(false);
    for (const [entity, messages] of byEntity) {
      expect(messages.length, entity).toBeGreaterThanOrEqual(2);
      // Distinct times, except exact copies of one event (re-sent with the same body).
      expect(timesOf(messages).size, entity).toBe(new Set(messages.map((m) => m.body)).size);
    }
    expect(inOnePhase.length).toBeGreaterThan(byEntity.size / 2);
    expect(resentBodies.size).toBeGreaterThan(0);
  });

  it('without faults applies or knowingly skips every valid message, dead-letters the invalid ones, ends in the model state', () => {
    // Assess
    expectSoundAccounting(baseline);
    expectModelState(baseline, model);
    expectNoLeaks(baseline);
    expect(baseline.faults).toEqual({});
    // Shuffled delivery: the ledger puts entities' events back in order by skipping some.
    expect(account(baseline).skipped.STALE_SKIPPED).toBeGreaterThan(0);
    expect(account(baseline).skipped.DUPLICATE).toBeGreaterThan(0);
  });
});

describe.each(PROFILES)('with $name', (profile) => {
  it('accounts for every message (applied, knowingly skipped or dead-lettered with a reason; none lost) and ends in the model state', async () => {
    // Act
    const report = await runScenario(scenario, profile);
    reports.push(report);

    // Assess
    expect(account(report).faults).toBeGreaterThan(0);
    if (profile.forcesRedelivery) expect(account(report).redeliveries).toBeGreaterThan(0);
    expectSoundAccounting(report, profile);
    if (profile.outlastsReceives) {
      // Messages gave up on their last receive, with a reason (the check above). They were
      // never applied (a 5xx changes nothing), so the model is that of the other messages.
      const reasons = Object.keys(account(report).deadLettered);
      expect(reasons.some((reason) => reason.startsWith('retryable:HTTP_5'))).toBe(true);
      const kept = report.fates.filter((f) => f.deadLetters.length === 0).map((f) => f.message);
      expectModelState(report, await modelState(kept, scenario.messages), profile);
    } else {
      expectModelState(report, model, profile);
    }
    expectNoLeaks(report);
  });
});

/**
 * The matrix above runs one fixed workload, phase by phase, one queue after another. These
 * cells run many random histories of several events per record and user (adds, updates, status
 * changes, transfers, deletes; joins and leaves, with same-instant ties), shuffled, doubled and
 * delivered over all queues at once through each platform fault of the matrix, with the entity
 * ledger on, and hold every entity against the model (its events applied once each, in order).
 * Nothing may be lost, and every dead letter (redriven once, as an operator would) must carry
 * its reason.
 */
const HISTORIES_PER_FAULT = sizeFromEnv('FAULT_MATRIX_HISTORIES', 40);
// Not here: requests the platform applies after the client gave up. One can land after a
// newer request of the same entity, and no client can order that (the API has no conditional
// write); see the known limits in docs/decisions.md.
const platformFaultProfiles = PROFILES.filter((profile) => profile.simulatorFaults !== undefined);

describe('several messages per entity, through each platform fault', () => {
  let platforms: Platforms | undefined;
  const stats = newRunStats();

  beforeAll(async () => {
    const [actual, expected] = await Promise.all(
      [11, 12].map((seed) =>
        startSimulator({ ...TENANT, apiKey: API_KEY, seed: propertySeed(seed) }),
      ),
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
      { numRuns: HISTORIES_PER_FAULT, seed: propertySeed(20261125), endOnFailure: true },
    );
  });
});
