/**
 * How `--deployed` decides each message's fate from what the deployed stack shows, against a
 * stand-in for MiniStack that behaves as 1.5.33 was seen to: a function's log line can arrive
 * after the invocation it belongs to and wait for the function's next invocation, a DLQ can
 * show a dead letter before the log group shows its line, and a queue drains over several
 * looks. The real run (test/deploy/npm-start-deployed.test.ts) takes the same paths in MiniStack.
 */
import { describe, expect, it } from 'vitest';
import type { ActionName } from '../../../lambdas/actions';
import type {
  DeployedDeadLetter,
  DeployedObservation,
  LoggedDisposition,
} from '../../../local/backends';
import { runDeployedPipeline } from '../../../local/run/deployed-pipeline';
import type { InputEvent, Scenario } from '../../../local/run/event-input';
import type { MessageFate } from '../../../local/run/pipeline';
import { runSettingsFrom } from '../../../local/run/run-settings';
import type { EventBridgeEvent } from '../../../testkit';

const settings = runSettingsFrom({ allowedSources: ['hr'] }, 'test');

const addUser = (correlationId: string, source = 'hr'): InputEvent => ({
  file: 'day.json',
  index: 0,
  format: 'eventbridge',
  source,
  detailType: 'add-user',
  detail: { correlationId, loginUserId: `${correlationId}@example.com` },
  envelope: {},
});

const scenarioOf = (...events: InputEvent[]): Scenario => ({
  origin: 'test',
  phases: [{ file: 'day.json', events }],
  seed: { users: [] },
  expectations: undefined,
});

/** What the stand-in's function does with one message, and when the run can see it. */
interface Behaviour {
  /** Dead-lettered with this code instead of applied. */
  readonly deadLetter?: string;
  /** Its log line waits in the worker until the function's next invocation. */
  readonly lineHeldBack?: boolean;
  /** Looks before its log line shows (the DLQ shows its letter at once). */
  readonly lineAfterLooks?: number;
  /** Looks during which it is still in its queue. */
  readonly queuedForLooks?: number;
  /** Nothing about it ever shows. */
  readonly vanishes?: boolean;
}

/** MiniStack's bus, queues, functions, log groups and DLQs, as the run sees them. */
const standIn = (behaviours: Readonly<Record<string, Behaviour>>) => {
  let looks = 0;
  const flushed: ActionName[] = [];
  const put: { id: string; event: EventBridgeEvent; lookPut: number }[] = [];
  return {
    flushed,
    looks: () => looks,
    stack: {
      putEvents: async (events: readonly EventBridgeEvent[]) =>
        events.map((event, i) => {
          const id = `event-${put.length + i}`;
          // The deployed rule: add-user from source "hr" only.
          if (event.source === 'hr') put.push({ id, event, lookPut: looks });
          return id;
        }),
      flushLogs: async (actions: readonly ActionName[]) => {
        flushed.push(...actions);
      },
      observe: async (): Promise<DeployedObservation> => {
        looks += 1;
        const dispositions: LoggedDisposition[] = [];
        const deadLetters: DeployedDeadLetter[] = [];
        let queued = 0;
        for (const { id, event, lookPut } of put) {
          const correlationId = String((event.detail as { correlationId?: unknown }).correlationId);
          const behaviour = behaviours[correlationId] ?? {};
          const age = looks - lookPut;
          if (behaviour.vanishes) continue;
          if (age <= (behaviour.queuedForLooks ?? 0)) {
            queued += 1;
            continue;
          }
          const line: LoggedDisposition = {
            action: 'add-user',
            kind: behaviour.deadLetter ? 'dead-lettered' : 'applied',
            correlationId,
            messageId: `sqs-${id}`,
            receiveCount: 1,
            code: behaviour.deadLetter ?? 'SUCCESS',
            timestamp: lookPut,
          };
          const lineShown =
            (behaviour.lineHeldBack !== true || flushed.includes('add-user')) &&
            age > (behaviour.lineAfterLooks ?? 0);
          if (lineShown) dispositions.push(line);
          if (behaviour.deadLetter) {
            deadLetters.push({
              action: 'add-user',
              messageId: `dlq-${id}`,
              body: JSON.stringify({ ...event, id }),
              reason: {
                action: 'add-user',
                errorCategory: 'permanent',
                errorCode: behaviour.deadLetter,
                errorMessage: 'firstName: is required',
                sourceMessageId: `sqs-${id}`,
                correlationId,
              },
            });
          }
        }
        return { dispositions, deadLetters, results: [], queued };
      },
    },
  };
};

const run = async (
  behaviours: Readonly<Record<string, Behaviour>>,
  events: readonly InputEvent[],
  phaseTimeoutMs = 5_000,
) => {
  const fake = standIn(behaviours);
  const decided: { fate: MessageFate; atLook: number }[] = [];
  const result = await runDeployedPipeline({
    scenario: scenarioOf(...events),
    settings,
    stack: fake.stack,
    account: '000000000000',
    observer: { fate: (fate) => decided.push({ fate, atLook: fake.looks() }) },
    pollMs: 1,
    phaseTimeoutMs,
  });
  return { result, decided, flushed: fake.flushed };
};

const fateOf = (fates: readonly MessageFate[], correlationId: string) =>
  fates.find((fate) => fate.correlationId === correlationId);

describe('runDeployedPipeline', () => {
  it('invokes a function again when its log line is held back, and reports the line, not a loss', async () => {
    // Act
    const { result, flushed } = await run({ late: { lineHeldBack: true } }, [
      addUser('on-time'),
      addUser('late'),
    ]);

    // Assess
    expect(fateOf(result.fates, 'late')).toMatchObject({
      kind: 'applied',
      code: 'SUCCESS',
      receives: 1,
    });
    expect(fateOf(result.fates, 'on-time')).toMatchObject({ kind: 'applied', code: 'SUCCESS' });
    expect(new Set(flushed)).toEqual(new Set(['add-user']));
  });

  it('waits for the function line of a dead letter the DLQ shows first', async () => {
    // Act
    const { result } = await run({ bad: { deadLetter: 'INVALID_MESSAGE', lineAfterLooks: 3 } }, [
      addUser('bad'),
    ]);

    // Assess
    expect(fateOf(result.fates, 'bad')).toEqual(
      expect.objectContaining({
        kind: 'dead-lettered',
        code: 'INVALID_MESSAGE',
        receives: 1,
        reason: { category: 'permanent', message: 'firstName: is required' },
      }),
    );
  });

  it('calls an event unrouted only once the queues are empty and nothing received it', async () => {
    // Act
    const { decided } = await run({ slow: { queuedForLooks: 4 } }, [
      addUser('slow'),
      addUser('newsletter', 'marketing'),
    ]);

    // Assess
    const unrouted = decided.find(({ fate }) => fate.correlationId === 'newsletter');
    const slow = decided.find(({ fate }) => fate.correlationId === 'slow');
    expect(unrouted?.fate).toMatchObject({ kind: 'unrouted', code: 'UNROUTED', receives: 0 });
    expect(unrouted?.fate.reason?.message).toContain('no deployed function received it');
    expect(slow?.fate.kind).toBe('applied');
    expect(unrouted?.atLook).toBeGreaterThanOrEqual(slow?.atLook ?? Number.POSITIVE_INFINITY);
  });

  it('reports a routed message that nothing shows as lost, saying what was not seen', async () => {
    // Act
    const { result } = await run({ gone: { vanishes: true } }, [addUser('gone')], 50);

    // Assess
    expect(fateOf(result.fates, 'gone')).toMatchObject({ kind: 'lost', code: 'LOST' });
    expect(fateOf(result.fates, 'gone')?.reason?.message).toContain(
      'no deployed function logged a receive of it and no DLQ holds it',
    );
    expect(result.inProcessRetries).toBeUndefined();
  });
});
