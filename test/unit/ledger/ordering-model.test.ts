/**
 * Model-based test of the ordering rules alone: an entity's events delivered in any order, with
 * duplicates and retries, through `decide` / `settle` onto a fake platform, end in the state that
 * applying them once each in version order gives. The end-to-end suite checks the same against
 * the simulator with the real handlers; this one explores many more histories per second.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Applied,
  type ApplyDecision,
  decide,
  settle,
} from '../../../lambdas/core/ledger/decide';
import {
  EMPTY_ENTITY,
  type EntityDoc,
  type OrderedEvent,
} from '../../../lambdas/core/ledger/entity';
import type { EventKind } from '../../../lambdas/core/ledger/event-version';
import { orderedEvent } from './ordered-event';

type Fields = Record<string, string>;
type Platform = { present: false } | { present: true; fields: Fields };

const apply = (platform: Platform, event: OrderedEvent, names: readonly string[]): Platform => {
  const sets = Object.fromEntries(names.map((n) => [n, String(event.sets[n])]));
  switch (event.kind) {
    case 'create':
      return platform.present
        ? { present: true, fields: { ...platform.fields, ...sets } }
        : { present: true, fields: sets };
    case 'change':
      return platform.present
        ? { present: true, fields: { ...platform.fields, ...sets } }
        : platform;
    case 'delete':
      return { present: false };
    case 'move':
      return platform;
  }
};

/** The model: every event once, in version order, on a platform without the entity. */
const inOrder = (events: readonly OrderedEvent[]): Platform =>
  [...events]
    .sort((a, b) => (a.version < b.version ? -1 : 1))
    .reduce<Platform>((p, e) => apply(p, e, Object.keys(e.sets)), { present: false });

/** Whether the lookup of a redelivered create finds the record already holding its fresh fields. */
const inPlace = (platform: Platform, event: OrderedEvent, decision: ApplyDecision): boolean =>
  platform.present &&
  Object.entries(event.sets)
    .filter(([name]) => decision.entity !== 'present' || decision.fresh.includes(name))
    .every(([name, value]) => platform.fields[name] === String(value));

const withRestored = (platform: Platform, decision: ApplyDecision): Platform =>
  decision.restore && platform.present
    ? { present: true, fields: { ...platform.fields, ...(decision.restore as Fields) } }
    : platform;

/**
 * Delivery through the ledger rules; `arrivals` is the arrival order (duplicates included).
 * `lost[i]` says whether the answer to the i-th platform call is lost: the call is applied, but
 * the ledger settles it as uncertain and the event is retried.
 */
const delivered = (
  arrivals: readonly OrderedEvent[],
  maxReceives: number,
  lost: readonly boolean[] = [],
): Platform => {
  let doc: EntityDoc = EMPTY_ENTITY;
  let platform: Platform = { present: false };
  let calls = 0;
  const queue = arrivals.map((event) => ({ event, receives: 0 }));
  while (queue.length > 0) {
    const item = queue.shift()!;
    item.receives += 1;
    const { event } = item;
    const decision = decide(doc, event);
    let applied: Applied = { kind: 'unchanged' };
    let retry = decision.kind === 'wait';
    if (decision.kind === 'apply') {
      if (decision.recreate) {
        platform = { present: true, fields: { ...decision.recreate.keep } as Fields };
        applied = { kind: 'applied' };
      } else if (event.kind === 'delete') {
        platform = { present: false };
        applied = { kind: 'absent' };
      } else if (
        event.kind === 'create' &&
        decision.ourEarlierAttempt &&
        inPlace(platform, event, decision)
      ) {
        // The add's lookup finds its earlier attempt landed: nothing sent, limbo restored.
        platform = withRestored(platform, decision);
        applied = { kind: 'applied' };
      } else if (event.kind === 'create' && !platform.present) {
        const created = apply(platform, event, Object.keys(event.sets));
        const fields = created.present ? created.fields : {};
        platform = { present: true, fields: { ...fields, ...(decision.restore as Fields) } };
        applied = { kind: 'applied' };
      } else if (event.kind === 'change' && !platform.present) {
        retry = true; // the platform answers NORECORDFOUND: its create may still be on its way
      } else {
        platform = apply(
          platform,
          event,
          decision.entity === 'present' ? decision.fresh : Object.keys(event.sets),
        );
        platform = withRestored(platform, decision);
        applied = { kind: 'applied' };
      }
      if (lost[calls] === true && applied.kind !== 'unchanged') {
        applied = { kind: 'uncertain' };
        retry = true;
      }
      calls += 1;
    }
    doc = settle(doc, event, decision, applied).doc;
    if (retry && item.receives < maxReceives) queue.push(item);
  }
  return platform;
};

const FIELDS = ['state', 'agent', 'queue'] as const;

const show = (e: OrderedEvent): string =>
  `${e.kind}@${Number(e.version.slice(12, 15))}${JSON.stringify(e.sets).replaceAll('"', '')}`;

const eventArb = fc
  .record({
    time: fc.integer({ min: 0, max: 12 }),
    kind: fc.constantFrom<EventKind>('create', 'create', 'change', 'change', 'delete'),
    data: fc.integer({ min: 0, max: 99 }),
    extra: fc.subarray([...FIELDS]),
    value: fc.integer({ min: 0, max: 9 }),
  })
  .map(({ time, kind, data, extra, value }) => {
    const sets: Record<string, string> =
      kind === 'delete'
        ? {}
        : Object.fromEntries([
            ...(kind === 'create' ? [['data', `d${data}`]] : []),
            ...(kind === 'change' && extra.length === 0 ? [['state', `s${value}`]] : []),
            ...extra.map((f) => [f, `${f}${value}`]),
          ]);
    const hash = `${kind}:${JSON.stringify(sets)}:${data}`;
    return orderedEvent(
      kind,
      Date.UTC(2026, 0, 1) + time,
      hash,
      sets,
      Buffer.from(hash).toString('hex'),
    );
  });

const historyArb = fc
  .array(eventArb, { minLength: 1, maxLength: 8 })
  .map((events) => [...new Map(events.map((e) => [e.key, e])).values()]);

describe('ordering rules against the in-order model', () => {
  it('any arrival order, with duplicates, ends as the events applied once in version order', () => {
    fc.assert(
      fc.property(
        historyArb.chain((events) =>
          fc.tuple(
            fc.constant(events),
            fc.shuffledSubarray([...events, ...events], {
              minLength: events.length * 2,
              maxLength: events.length * 2,
            }),
          ),
        ),
        ([events, arrivals]) => {
          // Prepare: every event arrives at least once (the subarray keeps both copies)
          // Act
          const actual = delivered(arrivals, events.length * 3 + 2);
          // Assess
          expect(actual, `arrivals: ${arrivals.map(show).join(' ')}`).toEqual(inOrder(events));
        },
      ),
      { numRuns: Number(process.env.ORDERING_RUNS ?? 3000) },
    );
  });

  it('ends the same when answers are lost: every call applied, some unanswered and retried', () => {
    fc.assert(
      fc.property(
        historyArb.chain((events) =>
          fc.tuple(
            fc.constant(events),
            fc.shuffledSubarray([...events, ...events], {
              minLength: events.length * 2,
              maxLength: events.length * 2,
            }),
            fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
          ),
        ),
        ([events, arrivals, lost]) => {
          // Prepare: the first calls lose their answers as `lost` says, later ones are answered
          // Act
          const actual = delivered(arrivals, events.length * 3 + 2, lost);
          // Assess
          expect(actual, `arrivals: ${arrivals.map(show).join(' ')}; lost: ${lost}`).toEqual(
            inOrder(events),
          );
        },
      ),
      { numRuns: Number(process.env.ORDERING_RUNS ?? 3000) },
    );
  });

  it('a redelivered copy after the event settled is a DUPLICATE and changes nothing', () => {
    // Prepare
    const [create] = fc.sample(
      eventArb.filter((e) => e.kind === 'create'),
      { numRuns: 1, seed: 7 },
    );
    const doc = settle(EMPTY_ENTITY, create!, decide(EMPTY_ENTITY, create!), {
      kind: 'applied',
    }).doc;
    // Act
    const again = decide(doc, create!);
    // Assess
    expect(again).toMatchObject({ kind: 'skip', code: 'DUPLICATE' });
  });
});
