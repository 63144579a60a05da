/**
 * Random histories of entities, as producers send them: each campaign record (by clientId) and
 * each user gets a few events in time order, every message addressed where the entity is at that
 * moment of its history (a record moved by a transfer is addressed in its new campaign). With
 * `staleAddresses`, a lagging producer also addresses some later steps of a moved record to the
 * campaign it left, at their own time; what each does there is the oracle's rule (model.ts).
 *
 * Two shapes. `historiesArb` is the first suite's: one move per record, never back. `historyArb`
 * adds what issue 23 asks for: chains of moves (back to a campaign the record left included),
 * the same clientId in two campaigns at once, and steps that name the record by its platform id
 * only (a family doing so then moves and deletes none of its records by clientId, as
 * decisions.md asks of a producer). Shared by the convergence suites and the bench.
 */
import fc from 'fast-check';
import type { SimulatorState } from '../simulator';
import type { ModelEvent } from './model';

export const CAMPAIGNS = ['Leads', 'Callbacks', 'Nurture'] as const;
const AGENTS = ['agent.a@example.com', 'agent.b@example.com', ''] as const;
const QUEUES = ['Sales', 'Retention'] as const;
const START = Date.UTC(2026, 10, 24, 8);
const MINUTE = 60_000;

/** One step of a record's history, in the values the histories draw from. */
export type RecordStep = Step;
type Step =
  | {
      readonly kind: 'upsert';
      readonly name: number;
      readonly agent?: number;
      readonly later?: number;
    }
  | {
      readonly kind: 'status';
      readonly state: 'NOTWORKED' | 'WORKED' | 'COMPLETED' | 'REMOVED';
      readonly agent?: number;
      readonly queue?: number;
    }
  | { readonly kind: 'transfer'; readonly to: number; readonly queue?: number }
  | { readonly kind: 'delete' };

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

/** One step of a record; transfers weigh 1 in the first suite's shape, more for move chains. */
const stepArb = (transferWeight: number): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          kind: fc.constant('upsert' as const),
          name: fc.nat(3),
          agent: optional(fc.nat(2)),
          later: optional(fc.nat(3)),
        },
        { requiredKeys: ['kind', 'name'] },
      ),
    },
    {
      weight: 3,
      arbitrary: fc.record(
        {
          kind: fc.constant('status' as const),
          state: fc.constantFrom('NOTWORKED', 'WORKED', 'COMPLETED', 'REMOVED'),
          agent: optional(fc.nat(2)),
          queue: optional(fc.nat(1)),
        },
        { requiredKeys: ['kind', 'state'] },
      ),
    },
    {
      weight: transferWeight,
      arbitrary: fc.record(
        { kind: fc.constant('transfer' as const), to: fc.nat(1), queue: optional(fc.nat(1)) },
        { requiredKeys: ['kind', 'to'] },
      ),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const) }) },
  );

/** Minutes between an entity's events: mostly apart, sometimes the same instant (a tie). */
const gapArb = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 30 }) },
  { weight: 1, arbitrary: fc.constant(0) },
);

/** The tie rule's order of event kinds (lambdas/core/ledger/event-version.ts). */
const RANK = { upsert: 1, status: 2, transfer: 3, delete: 4 } as const;

const iso = (ms: number): string => new Date(ms).toISOString();

/** The message of a step other than a transfer, addressed at `common.campaignName`. */
export const eventOf = (
  step: Exclude<Step, { kind: 'transfer' }>,
  common: { correlationId: string; occurredAt: string; campaignName: string; clientId: string },
  atMs: number,
): ModelEvent => {
  const { clientId } = common;
  switch (step.kind) {
    case 'upsert':
      return {
        action: 'add-or-update-campaign-record',
        message: {
          ...common,
          previewRecordData: [{ key: 'Name', value: `Lead ${clientId} v${step.name}` }],
          ...(step.agent === undefined ? {} : { preferredAgent: AGENTS[step.agent] }),
          ...(step.later === undefined
            ? {}
            : { nextEarliestWorkTimeUTC: START + step.later * 3_600_000 }),
        },
      };
    case 'status':
      return {
        action: 'change-campaign-record-status',
        message: {
          ...common,
          previewRecordStateEnum: step.state,
          ...(step.state === 'WORKED' ? { nextEarliestWorkTimeUTC: atMs } : {}),
          ...(step.agent === undefined ? {} : { preferredAgent: AGENTS[step.agent] }),
          ...(step.queue === undefined ? {} : { skillQueue: QUEUES[step.queue] }),
        },
      };
    default:
      return { action: 'delete-campaign-record', message: common };
  }
};

/** The message of a transfer step to `to`. */
export const transferOf = (
  step: Extract<Step, { kind: 'transfer' }>,
  common: { correlationId: string; occurredAt: string; campaignName: string; clientId: string },
  to: string,
): ModelEvent => ({
  action: 'transfer-campaign-record',
  message: {
    ...common,
    transferToCampaign: to,
    ...(step.queue === undefined ? {} : { skillQueue: QUEUES[step.queue] }),
  },
});

/**
 * Minute of each step: the gaps, except that producers mean what the tie rule says: events at
 * one instant happen add < change < move < delete. One that means another order, or addresses
 * the record in its new campaign at the instant of its move, gives the later event a later time.
 */
const minutesOf = (steps: readonly { step: Step; gap: number }[]): number[] => {
  let minute = 0;
  let previous = 0;
  let moved = false;
  return steps.map(({ step, gap }) => {
    const rank = RANK[step.kind];
    minute += gap === 0 && (moved || rank < previous) ? 1 : gap;
    previous = rank;
    moved = step.kind === 'transfer';
    return minute;
  });
};

/** The first suite's record: one move, never back; a second transfer step becomes a delete. */
const recordHistory = (
  clientId: string,
  steps: readonly { step: Step; gap: number }[],
): ModelEvent[] => {
  let campaign: string = CAMPAIGNS[0];
  const visited: string[] = [campaign];
  const minutes = minutesOf(steps);
  return steps.map(({ step }, index) => {
    const atMs = START + (minutes[index] ?? 0) * MINUTE;
    const common = {
      correlationId: `${clientId}-${index}`,
      occurredAt: iso(atMs),
      campaignName: campaign,
      clientId,
    };
    if (step.kind !== 'transfer') return eventOf(step, common, atMs);
    const others = CAMPAIGNS.filter((c) => !visited.includes(c));
    const to = visited.length > 1 ? undefined : others[step.to % others.length];
    if (to === undefined) return eventOf({ kind: 'delete' }, common, atMs);
    visited.push(to);
    campaign = to;
    return transferOf(step, common, to);
  });
};

const userHistory = (
  loginUserId: string,
  steps: readonly { add: boolean; gap: number }[],
): ModelEvent[] => {
  let minute = 0;
  let deleted = false;
  return steps.map(({ add, gap }, index) => {
    // An add at the instant of a delete would be ordered before it (the tie rule).
    minute += gap === 0 && deleted && add ? 1 : gap;
    deleted = !add;
    const common = {
      correlationId: `${loginUserId}-${index}`,
      occurredAt: iso(START + minute * MINUTE),
      loginUserId,
    };
    return add
      ? {
          action: 'add-user',
          message: { ...common, firstName: 'Ada', lastName: 'Lovelace', userTemplateName: 'Agent' },
        }
      : { action: 'delete-user', message: common };
  });
};

const usersArb = (users: number) =>
  fc.array(
    fc.array(fc.record({ add: fc.boolean(), gap: gapArb }), { minLength: 1, maxLength: 5 }),
    { minLength: users, maxLength: users },
  );

/** One event of a history, and how it is delivered when that differs from the model's event. */
export interface PlannedEvent extends ModelEvent {
  /**
   * Delivered naming the record by `previewRecordId` only, without `clientId`: the id the
   * platform gave the record that, at the end of the first part, held this clientId in this
   * campaign. The model applies the event as it is, by clientId.
   */
  readonly byId?: { readonly campaignName: string; readonly clientId: string };
}

/**
 * A history in the order it is delivered: the first part until every message is applied or
 * dead-lettered (and those redriven), then the rest. Every event of the rest is newer than every
 * event of its entity in the first part. The model applies all of them, in version order.
 */
export interface History {
  readonly first: readonly ModelEvent[];
  /** Empty unless some steps name the record by previewRecordId. */
  readonly rest: readonly PlannedEvent[];
}

export const eventsOf = (history: History): ModelEvent[] => [...history.first, ...history.rest];

/** Histories of `records` campaign records and `users` users: the first suite's shape. */
export const historiesArb = (records: number, users: number): fc.Arbitrary<History> =>
  fc
    .tuple(
      fc.array(
        fc.array(fc.record({ step: stepArb(1), gap: gapArb }), { minLength: 1, maxLength: 7 }),
        { minLength: records, maxLength: records },
      ),
      usersArb(users),
    )
    .map(([recordSteps, userSteps]) => ({
      first: [
        ...recordSteps.flatMap((steps, i) => recordHistory(`c-${i}`, steps)),
        ...userSteps.flatMap((steps, i) => userHistory(`u${i}@example.com`, steps)),
      ],
      rest: [],
    }));

// ---- issue 23's shapes -----------------------------------------------------------------------

export interface HistoryShape {
  /** Record families: one clientId each. */
  readonly records: number;
  readonly users: number;
  /** Transfers one record line may make (any campaign but its own, back included); more become deletes. */
  readonly maxMoves: number;
  /** Some families hold their clientId in a second campaign from the start (a second line). */
  readonly twins: boolean;
  /**
   * Splits each family into a first part that holds a record and the rest, where status
   * changes, transfers and deletes of that record may name it by previewRecordId only.
   */
  readonly byPreviewRecordId: boolean;
  /**
   * Some status changes, deletes and transfers of a line whose record has moved are addressed to
   * the campaign that record left last, as a CRM that lags behind its own moves sends them
   * (never those naming the record by previewRecordId). Off, the histories are draw for draw
   * those of the shape without this field. (A `byPreviewRecordId` shape's histories changed once
   * on their own, when a family naming a record by id stopped moving it by clientId: see
   * `walkFamily`'s caller.)
   * @default false
   */
  readonly staleAddresses?: boolean;
}

interface LineStep {
  readonly step: Step;
  readonly gap: number;
  /** Asked to name the record by previewRecordId (honoured where the record is still the one the first part left). */
  readonly byId: boolean;
  /** Asked to address the campaign the line's record left (honoured where it has left one). */
  readonly stale?: boolean;
}

interface FamilyOutline {
  readonly lines: readonly (readonly LineStep[])[];
  /** Picks where the first part ends among the places where the family holds a record. */
  readonly split: number;
}

interface Timed {
  readonly line: number;
  readonly index: number;
  readonly step: Step;
  readonly byId: boolean;
  readonly stale: boolean;
  readonly atMs: number;
}

/**
 * A family's steps in time order. The second line is half a minute after the first, so the two
 * never tie; a transfer beyond the line's `maxMoves` becomes a delete before times are given.
 */
const timedSteps = (lines: FamilyOutline['lines'], maxMoves: number): Timed[] =>
  lines
    .flatMap((steps, line) => {
      let moves = 0;
      const capped = steps.map((s) => {
        if (s.step.kind !== 'transfer') return s;
        moves += 1;
        return moves > maxMoves ? { ...s, step: { kind: 'delete' as const } } : s;
      });
      const minutes = minutesOf(capped);
      return capped.map((s, index) => ({
        line,
        index,
        step: s.step,
        byId: s.byId,
        stale: s.stale ?? false,
        atMs: START + (minutes[index] ?? 0) * MINUTE + line * 30_000,
      }));
    })
    .sort((a, b) => a.atMs - b.atMs || a.line - b.line || a.index - b.index);

/**
 * What the in-order model does to a family, as far as addressing needs: which campaigns hold the
 * clientId (each holding a numbered record, an incarnation) and where each line's record is. A
 * transfer into a campaign that holds the clientId already has no effect, and the line's record
 * stays; a transfer of a record that is not there re-homes the line (its next add lands there).
 * A stale step is addressed to the campaign the line's record left last, and the line stays where
 * it is; a stale delete or transfer acts on whatever that campaign holds then (nothing, a twin's
 * record, a later add's). A status change moves nothing, so the walk need not know its rule.
 */
class FamilyWalk {
  readonly held = new Map<string, number>();
  readonly at: string[];
  /** Per line, the campaign its record left on its last move: none once it re-homes or adds anew. */
  readonly #left: (string | undefined)[] = [];
  #incarnations = 0;

  constructor(lines: number) {
    this.at = Array.from({ length: lines }, (_, line) => CAMPAIGNS[line] ?? CAMPAIGNS[0]);
  }

  /** The step's campaign and, for a transfer, its destination; then its effect. */
  take(line: number, step: Step, stale = false): { campaign: string; to?: string } {
    const left = stale && step.kind !== 'upsert' ? this.#left[line] : undefined;
    const campaign = left ?? this.at[line] ?? CAMPAIGNS[0];
    switch (step.kind) {
      case 'upsert':
        if (!this.held.has(campaign)) {
          this.held.set(campaign, ++this.#incarnations);
          this.#left[line] = undefined;
        }
        return { campaign };
      case 'status':
        return { campaign };
      case 'delete':
        this.held.delete(campaign);
        return { campaign };
      case 'transfer': {
        const others = CAMPAIGNS.filter((c) => c !== campaign);
        const to = others[step.to % others.length] ?? CAMPAIGNS[0];
        const record = this.held.get(campaign);
        if (this.held.has(to)) return { campaign, to };
        if (record !== undefined) {
          this.held.delete(campaign);
          this.held.set(to, record);
        }
        if (left !== undefined) return { campaign, to };
        this.#left[line] = record === undefined ? undefined : campaign;
        this.at[line] = to;
        return { campaign, to };
      }
    }
  }
}

const familyHistory = (
  clientId: string,
  outline: FamilyOutline,
  shape: HistoryShape,
): { first: ModelEvent[]; rest: PlannedEvent[] } => {
  const timed = timedSteps(outline.lines, shape.maxMoves);
  // Where the first part may end: after a step that leaves the family holding a record. The
  // probe walks the steps as drawn; the walk below changes only steps after the split (by id,
  // so never stale; a status instead of a move), so the two agree up to any split chosen here
  // (held by test/reliability/convergence/histories.test.ts, with stale addresses on).
  let split = timed.length;
  if (shape.byPreviewRecordId) {
    const probe = new FamilyWalk(outline.lines.length);
    const ends = timed.flatMap((t, i) => {
      probe.take(t.line, t.step, t.stale);
      return probe.held.size > 0 ? [i + 1] : [];
    });
    split = ends[outline.split % Math.max(1, ends.length)] ?? timed.length;
  }
  // A family whose rest names a record by id is walked again with every move and delete of the
  // rest by id or, where no id names what it addresses, as a status change instead: a move or
  // delete by clientId, delivered first, could take that record from where a message by id looks
  // for it, even one the history addresses to a campaign the record had left by then (the ledger
  // then makes the record anew, under an id no message names: docs/decisions.md, known limit 6).
  const once = walkFamily(clientId, timed, split, outline, false);
  return once.byId ? walkFamily(clientId, timed, split, outline, true) : once;
};

/**
 * The family's events for its steps in time order: those before `split` the first part, the rest
 * after it. `allById`: every move and delete of the rest is named by id, or made a status change.
 */
const walkFamily = (
  clientId: string,
  timed: readonly Timed[],
  split: number,
  outline: FamilyOutline,
  allById: boolean,
): { first: ModelEvent[]; rest: PlannedEvent[]; byId: boolean } => {
  const walk = new FamilyWalk(outline.lines.length);
  /** Per line, the record its steps address at the end of the first part, and where it was. */
  const own: ({ incarnation: number; campaign: string } | undefined)[] = [];
  const first: ModelEvent[] = [];
  const rest: PlannedEvent[] = [];
  const namedById = new Set<number>();
  timed.forEach((t, i) => {
    if (i === split) {
      outline.lines.forEach((_, line) => {
        const campaign = walk.at[line] ?? CAMPAIGNS[0];
        const incarnation = walk.held.get(campaign);
        own[line] = incarnation === undefined ? undefined : { incarnation, campaign };
      });
    }
    const mine = own[t.line];
    // Still the record the first part left at the line's place: its platform id names it. A
    // producer that names a record by its id keeps doing so for the moves and deletes that
    // follow: one naming it by clientId could take it from where a late message by id looks
    // for it, and no search can then tell which record that id was (docs/decisions.md).
    const sameRecord =
      i >= split &&
      t.step.kind !== 'upsert' &&
      mine !== undefined &&
      walk.held.get(walk.at[t.line] ?? '') === mine.incarnation;
    const removes = t.step.kind === 'transfer' || t.step.kind === 'delete';
    const byId = sameRecord && (t.byId || ((allById || namedById.has(t.line)) && removes));
    if (byId) namedById.add(t.line);
    // Once the record it named is gone, a move or delete of the line's next record would be
    // by clientId: the producer changes that record's status instead.
    const step: Step =
      i >= split && (allById || namedById.has(t.line)) && removes && !byId
        ? { kind: 'status', state: 'COMPLETED' }
        : t.step;
    // The rest is a minute later, so every event of it is newer than the first part's.
    const atMs = t.atMs + (i >= split ? MINUTE : 0);
    const { campaign, to } = walk.take(t.line, step, t.stale && !byId);
    const common = {
      correlationId: `${clientId}-${t.line}-${t.index}`,
      occurredAt: iso(atMs),
      campaignName: campaign,
      clientId,
    };
    const event =
      step.kind === 'transfer'
        ? transferOf(step, common, to ?? campaign)
        : eventOf(step, common, atMs);
    if (i < split) first.push(event);
    else
      rest.push(
        byId && mine ? { ...event, byId: { campaignName: mine.campaign, clientId } } : event,
      );
  });
  return { first, rest, byId: namedById.size > 0 };
};

/** One step in three of a line asks to be stale-addressed, when the shape has them at all. */
const staleArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant(false) },
  { weight: 1, arbitrary: fc.constant(true) },
);

const lineArb = (maxSteps: number, staleAddresses: boolean): fc.Arbitrary<LineStep[]> => {
  const drawn = { step: stepArb(3), gap: gapArb, byId: fc.boolean() };
  // Drawn only when asked: an extra draw per step would change every history of a fixed seed.
  const step: fc.Arbitrary<LineStep> = staleAddresses
    ? fc.record({ ...drawn, stale: staleArb })
    : fc.record(drawn);
  return fc.array(step, { minLength: 1, maxLength: maxSteps });
};

/**
 * Histories of issue 23's shapes: move chains, twins, steps naming the record by its id; and,
 * when asked, steps addressed to the campaign their record left.
 */
export const historyArb = (shape: HistoryShape): fc.Arbitrary<History> => {
  const line = (maxSteps: number) => lineArb(maxSteps, shape.staleAddresses ?? false);
  return fc
    .tuple(
      fc.array(
        fc.record({
          lines: shape.twins
            ? fc.oneof(fc.tuple(line(10)), fc.tuple(line(8), line(6)))
            : fc.tuple(line(10)),
          split: fc.nat(),
        }),
        { minLength: shape.records, maxLength: shape.records },
      ),
      usersArb(shape.users),
    )
    .map(([families, userSteps]) => {
      const parts = families.map((plan, i) => familyHistory(`c-${i}`, plan, shape));
      return {
        first: [
          ...parts.flatMap((part) => part.first),
          ...userSteps.flatMap((steps, i) => userHistory(`u${i}@example.com`, steps)),
        ],
        rest: parts.flatMap((part) => part.rest),
      };
    });
};

/**
 * The rest as it is sent: each step marked by id names its record by the previewRecordID the
 * platform holds for it now (read once the first part has drained), without its clientId. Steps
 * whose record is not where the first part should have left it are listed as unresolved and
 * carry an id no record has.
 */
export const resolveById = (
  events: readonly PlannedEvent[],
  platform: SimulatorState,
): { readonly messages: ModelEvent[]; readonly unresolved: PlannedEvent[] } => {
  const unresolved: PlannedEvent[] = [];
  const messages = events.map(({ action, message, byId }) => {
    if (byId === undefined) return { action, message };
    const record = platform.findByClientId(byId.campaignName, byId.clientId);
    if (record === undefined) unresolved.push({ action, message, byId });
    const { clientId: _named, ...rest } = message as Record<string, unknown>;
    return {
      action,
      message: { ...rest, previewRecordId: record?.previewRecordID ?? 'PR-unresolved' },
    };
  });
  return { messages, unresolved };
};
