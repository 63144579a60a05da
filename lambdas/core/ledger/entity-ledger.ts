import { randomUUID } from 'node:crypto';
import { isConflictCode, type Outcome, type OutcomeCode } from '../pipeline/outcome';
import type { CallOptions, PlatformCaller } from '../platform/platform-caller';
import { aliasTarget } from './alias-target';
import type {
  AnyEntityKind,
  Effect,
  EventSource,
  Replayed,
  StepAnswer,
  StoredEvent,
} from './entity-kind';
import { sameEvent, type Version } from './event-version';
import { type LedgerDoc, parseLedgerDoc } from './ledger-doc';
import type { ClaimResult, LedgerStore } from './ledger-store';
import { messageOutcome } from './message-outcome';

/**
 * The mechanism of the entity ledger, for any kind of entity: per message, claim the entity (a
 * lease), add its event to the entity's events, replay them on the kind's model of the platform,
 * bring the platform from what the ledger knows to that desired state with the kind's steps (one
 * call at a time, learning from each answer), and commit. Two messages of one entity never run
 * at once; a crashed holder's lease expires and the next one reads the platform first.
 */

export interface EntityLedgerOptions {
  readonly store: LedgerStore;
  /**
   * Days an event is kept before it is folded into the entity's snapshot, and a deleted entity's
   * item is kept: at least the retry window plus the DLQ retention, so a redriven dead letter is
   * still ordered. @default 15
   */
  readonly tombstoneDays?: number;
  /** Days the item of an entity that exists is kept after its last event. @default 400 */
  readonly historyDays?: number;
  /** Size above which the oldest settled events are folded early (DynamoDB allows 400 KB). @default 64 KiB */
  readonly maxItemBytes?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** One message's event, as the ledger orders it. */
export interface NewEvent {
  readonly key: string;
  readonly v: Version;
  readonly action: string;
  readonly op: unknown;
  readonly source?: EventSource;
}

/** A message's event for the ledger: its version, and the key every copy of it shares. */
export const newEvent = (
  action: string,
  v: Version,
  op: unknown,
  source?: EventSource,
): NewEvent => ({
  key: `${action}@${v}`,
  v,
  action,
  op,
  ...(source === undefined ? {} : { source }),
});

export interface ApplyRequest {
  /** Who the entity is on the platform (the kind's id). */
  readonly id: unknown;
  readonly event: NewEvent;
  readonly platform: PlatformCaller;
  readonly call: CallOptions;
  /** Epoch ms by which the message's work must end. */
  readonly deadline: number;
  /** Another name the message used for the entity (a previewRecordId), to index. */
  readonly alias?: string;
  /**
   * No redelivery follows: a retryable failure now goes to the DLQ, and the event leaves the
   * entity's events until a redrive brings it back (a dead letter is not applied).
   */
  readonly lastReceive?: boolean;
}

/** A lease outlives the invocation by this much, then anyone may take the entity over. */
const LEASE_GRACE_MS = 5_000;
/** Waits between claims of a busy entity: short, because its holder is usually one call away. */
const BUSY_WAITS_MS = [50, 100, 200, 400, 800, 1600];
/** Calls one message may make for its entity; the steps need a few, a flapping platform more. */
const MAX_STEPS = 12;
const DAY_SECONDS = 86_400;
const DEFAULT_MAX_ITEM_BYTES = 64 * 1024;

const outcome = (category: Outcome['category'], code: OutcomeCode, message: string): Outcome => ({
  category,
  code,
  message,
  attempts: 0,
});

type Doc = LedgerDoc<unknown, unknown, unknown, unknown>;

const byVersion = (a: StoredEvent<unknown>, b: StoredEvent<unknown>) =>
  a.v < b.v ? -1 : a.v > b.v ? 1 : 0;

export class EntityLedger {
  readonly #store: LedgerStore;
  readonly #tombstoneSeconds: number;
  readonly #historySeconds: number;
  readonly #maxItemBytes: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: EntityLedgerOptions) {
    this.#store = options.store;
    this.#tombstoneSeconds = (options.tombstoneDays ?? 15) * DAY_SECONDS;
    this.#historySeconds = (options.historyDays ?? 400) * DAY_SECONDS;
    this.#maxItemBytes = options.maxItemBytes ?? DEFAULT_MAX_ITEM_BYTES;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** The store, for the aliases the kinds resolve names with. */
  get store(): LedgerStore {
    return this.#store;
  }

  async apply(kind: AnyEntityKind, request: ApplyRequest): Promise<Outcome> {
    const key = kind.keyOf(request.id);
    const token = randomUUID();
    const claim = await this.#claim(key, token, request.event.key, request.deadline);
    if (claim.kind === 'busy') return busy(key);
    let doc: Doc;
    try {
      doc = this.#docOf(kind, claim, request.id);
    } catch (error) {
      await this.#store.release(key, token);
      throw error;
    }
    let result: { doc: Doc; outcome: Outcome };
    try {
      result = await this.#settle(kind, doc, request);
    } catch (error) {
      // A step threw (a bug, or the key source down) after calls that may have landed: nothing
      // learnt is kept, and what the ledger knows goes into doubt, so the next holder reads
      // first, as after a crash.
      try {
        const doubted = { ...doc, known: kind.doubt(doc.known) };
        await this.#store.commit(
          key,
          token,
          doubted,
          this.#expiry(this.#keepSeconds(kind, doubted)),
        );
      } catch {
        // The lease then expires, and the next holder takes over in doubt all the same.
      }
      throw error;
    }
    if (request.alias !== undefined && !(result.doc.aliases ?? []).includes(request.alias)) {
      await this.#store.writeAlias(
        request.alias,
        aliasTarget(request.id),
        this.#expiry(this.#historySeconds),
      );
      result = {
        ...result,
        doc: { ...result.doc, aliases: [...(result.doc.aliases ?? []), request.alias] },
      };
    }
    const committed = this.#compact(kind, result.doc);
    await this.#store.commit(
      key,
      token,
      committed,
      this.#expiry(this.#keepSeconds(kind, committed)),
    );
    return result.outcome;
  }

  /** How long an item is kept: to the tombstone horizon once nothing of its entity is left. */
  #keepSeconds(kind: AnyEntityKind, doc: Doc): number {
    const replayed = kind.replay(kind.start(doc.known, doc.snapshot?.state), doc.events);
    return kind.isGone(replayed.state, doc.known) ? this.#tombstoneSeconds : this.#historySeconds;
  }

  /** The entity's item as this version reads it; a new one when it has none (or an older schema). */
  #docOf(kind: AnyEntityKind, claim: Extract<ClaimResult, { kind: 'claimed' }>, id: unknown): Doc {
    const parsed = parseLedgerDoc(claim.doc, kind.name, kind.parts);
    const doc: Doc = parsed ?? {
      schema: kind.parts.schema,
      kind: kind.name,
      id,
      events: [],
      known: (claim.doc === undefined ? undefined : kind.migrate?.(claim.doc)) ?? kind.unknown,
    };
    // The previous holder crashed or ran out of time: any call it made may have landed.
    return claim.takenOverFrom === undefined ? doc : { ...doc, known: kind.doubt(doc.known) };
  }

  /** Adds the event, brings the platform to its replay, and says what the message got. */
  async #settle(
    kind: AnyEntityKind,
    before: Doc,
    request: ApplyRequest,
  ): Promise<{ doc: Doc; outcome: Outcome }> {
    const event = asHeld(before.events, request.event);
    const repeat = alreadyHeld(before, event);
    if (repeat !== undefined) return repeat;
    // An event not settled yet (a conflict redriven, a redelivery) is received again: its
    // message is alive once more, so the horizon that may drop it counts from now.
    const events = received(before.events, event, this.#now());
    const worked = await work(kind, before, events, request);
    const decided = this.#decide(kind, before, events, event, worked);
    // Refused as a conflict, whether the replay foresaw it or a step found it on the platform
    // (a user made outside since the ledger looked): a redrive after an operator's fix reads again.
    const known = isConflict(decided) ? kind.recheck(worked.known) : worked.known;
    return {
      doc: {
        ...before,
        known,
        events: noted(events, event.key, decided, request.lastReceive === true),
      },
      outcome: decided,
    };
  }

  /**
   * What the message got: how its work ended, and what its event does in the replay (the rules:
   * message-outcome.ts).
   */
  #decide(
    kind: AnyEntityKind,
    before: Doc,
    events: readonly StoredEvent<unknown>[],
    event: NewEvent,
    worked: Worked,
  ): Outcome {
    const start = kind.start(worked.known, before.snapshot?.state);
    const withIt = worked.replayed ?? kind.replay(start, events);
    const effect: Effect = withIt.effects.get(event.key) ?? { kind: 'applied' };
    return messageOutcome({
      effect,
      failure: worked.unsettled,
      wrote: worked.wrote,
      doubted: worked.doubted,
      overtaken: events.some((e) => e.v > event.v && withIt.effects.get(e.key)?.kind === 'applied'),
      keptByPlatform: () => kind.keptByPlatform?.(worked.known, withIt.state, event.op, event.v),
      // A second replay, so only when the outcome turns on it.
      stale: () =>
        effect.kind === 'applied' &&
        sameValues(
          kind,
          withIt.state,
          kind.replay(
            start,
            events.filter((e) => e.key !== event.key),
          ).state,
        ),
      alreadyCode: (doubted) => kind.alreadyCode(event.op, doubted),
    });
  }

  /**
   * Folds the oldest settled events into the snapshot the replay starts from, once the ledger
   * has held them past the tombstone horizon (no copy of their messages can come back then: the
   * retry window and the DLQ's retention are shorter), or while the item is too large. An event
   * never settled (a conflict no one redrove, a message whose last receive crashed) is dropped
   * past the horizon, as a dead letter's event is: it must not hold back the folding behind it.
   */
  #compact(kind: AnyEntityKind, doc: Doc): Doc {
    const horizon = this.#now() - this.#tombstoneSeconds * 1000;
    let folded = doc;
    // The item's JSON length, stringified whole once and then kept by what each step takes out
    // and puts in: stringifying it again per folded event was quadratic in its events.
    let size: number | undefined;
    /** The length the item loses with its oldest event (and the comma before the next). */
    const withoutOldest = (oldest: StoredEvent<unknown>) =>
      jsonLength(oldest) + (folded.events.length > 1 ? 1 : 0);
    for (;;) {
      const oldest = folded.events[0];
      if (oldest === undefined) return folded;
      const tooOld = (oldest.received ?? 0) < horizon;
      if (oldest.settled !== true) {
        if (!tooOld) return folded;
        if (size !== undefined) size -= withoutOldest(oldest);
        folded = { ...folded, events: folded.events.slice(1) };
        continue;
      }
      size ??= jsonLength(folded);
      if (!tooOld && size <= this.#maxItemBytes) return folded;
      const start = kind.start(folded.known, folded.snapshot?.state);
      const state = kind.replay(start, [oldest]).state;
      const archive = [...(folded.snapshot?.keep ?? []), oldest];
      const snapshot = { v: oldest.v, state, keep: kind.keep(state, archive) };
      size +=
        jsonLength(snapshot) -
        (folded.snapshot === undefined ? -SNAPSHOT_KEY_LENGTH : jsonLength(folded.snapshot)) -
        withoutOldest(oldest);
      folded = { ...folded, events: folded.events.slice(1), snapshot };
    }
  }

  async #claim(
    key: string,
    token: string,
    eventKey: string,
    deadline: number,
  ): Promise<ClaimResult> {
    const lease = { token, until: deadline + LEASE_GRACE_MS, eventKey };
    let claim = await this.#store.claim(key, lease, this.#now());
    for (const wait of BUSY_WAITS_MS) {
      if (claim.kind === 'claimed' || this.#now() + wait >= deadline) break;
      await this.#sleep(wait);
      claim = await this.#store.claim(key, lease, this.#now());
    }
    return claim;
  }

  #expiry(seconds: number): number {
    return Math.floor(this.#now() / 1000) + seconds;
  }
}

/**
 * The event under the key the ledger holds it by: a copy whose version differs from the held
 * one's only by its hash (its op was stored under older words) is that event.
 */
const asHeld = (events: readonly StoredEvent<unknown>[], event: NewEvent): NewEvent => {
  if (events.some((e) => e.key === event.key)) return event;
  const held = events.find((e) => e.action === event.action && sameEvent(e, event));
  return held === undefined ? event : { ...event, key: held.key, v: held.v };
};

/**
 * A copy of an event the ledger settled (a duplicate, counted), or one older than everything it
 * keeps (folded past the tombstone horizon): no work, and what the message got.
 */
const alreadyHeld = (before: Doc, event: NewEvent): { doc: Doc; outcome: Outcome } | undefined => {
  const existing = before.events.find((e) => e.key === event.key);
  if (existing?.settled === true) {
    const events = before.events.map((e) =>
      e.key === event.key ? { ...e, repeats: (e.repeats ?? 0) + 1 } : e,
    );
    return {
      doc: { ...before, events },
      outcome: outcome('success', 'DUPLICATE', 'this event was already applied or skipped'),
    };
  }
  if (existing === undefined && before.snapshot !== undefined && event.v <= before.snapshot.v) {
    return {
      doc: before,
      outcome: outcome(
        'success',
        'STALE_SKIPPED',
        'older than the events the ledger keeps for this entity (past the tombstone horizon)',
      ),
    };
  }
  return undefined;
};

/** The entity's events with this one, in version order, marked received at `now`. */
const received = (
  events: readonly StoredEvent<unknown>[],
  event: NewEvent,
  now: number,
): StoredEvent<unknown>[] =>
  events.some((e) => e.key === event.key)
    ? events.map((e) => (e.key === event.key ? { ...e, received: now } : e))
    : [...events, { ...event, received: now }].sort(byVersion);

/** How a message's turns on the platform went, so far or in the end. */
interface Turns {
  /** What the ledger knows of the platform. */
  readonly known: unknown;
  /** The last step's failure, or unanswered call; undefined once a step got its answer. */
  readonly failure: Outcome | undefined;
  /** The last write of this message the platform confirmed. */
  readonly wrote: Outcome | undefined;
  /** A write of this message went unanswered (a read then told what it did). */
  readonly doubted: boolean;
  /**
   * Requests that got no answer, across the message's calls: an unanswered write is read back
   * and sent again at most as often as the caller would retry one call.
   */
  readonly unanswered: number;
}

/** How a message's work on the platform ended. */
interface Worked extends Omit<Turns, 'failure' | 'unanswered'> {
  /** Why the platform does not hold the replay yet: undefined once it does. */
  readonly unsettled: Outcome | undefined;
  /** The replay from `known`, when no step ran after it was made (it serves the outcome too). */
  readonly replayed: Replayed<unknown> | undefined;
}

/**
 * Brings the platform from what the ledger knows to the replay of `events`, one step at
 * a time, learning from each answer, until nothing is left to do, the time is up, a step fails,
 * the unanswered calls reach the caller's retries, or the steps run out.
 */
const work = async (
  kind: AnyEntityKind,
  before: Doc,
  events: readonly StoredEvent<unknown>[],
  request: ApplyRequest,
): Promise<Worked> => {
  const all = [...(before.snapshot?.keep ?? []), ...events].sort(byVersion);
  const context = { id: before.id, events: all, platform: request.platform, call: request.call };
  let turns: Turns = {
    known: kind.forMessage?.(before.known) ?? before.known,
    failure: undefined,
    wrote: undefined,
    doubted: false,
    unanswered: 0,
  };
  for (let calls = 0; calls < MAX_STEPS; calls += 1) {
    const replayed = kind.replay(kind.start(turns.known, before.snapshot?.state), events);
    const [step] = kind.steps(replayed.state, turns.known, all);
    if (step === undefined) return ended(turns, undefined, replayed);
    if (!request.platform.mayStartRequest(request.deadline)) {
      return ended(turns, outOfTime(), replayed);
    }
    const answer = await kind.run(step, { ...context, known: turns.known });
    turns = learnt(kind, turns, step, answer);
    if (answer.status === 'failed') return ended(turns, turns.failure);
    if (answer.status === 'uncertain' && turns.unanswered >= request.platform.maxAttempts) {
      return ended(turns, turns.failure);
    }
  }
  return ended(
    turns,
    turns.failure ??
      outcome(
        'retryable',
        'ENTITY_UNSETTLED',
        `the entity needed more than ${MAX_STEPS} calls; the rest is retried`,
      ),
  );
};

/**
 * The turns after `step` ended as `answer`: an unanswered call leaves the known state in doubt
 * (the next steps read first), an answered one clears the failure before it.
 */
const learnt = (
  kind: AnyEntityKind,
  turns: Turns,
  step: { readonly kind: string },
  answer: StepAnswer,
): Turns => {
  const known = kind.learn(turns.known, step, answer);
  const { outcome: got } = answer;
  switch (answer.status) {
    case 'failed':
      return { ...turns, known, failure: got };
    case 'uncertain':
      return {
        ...turns,
        known,
        failure: got,
        doubted: true,
        unanswered: turns.unanswered + Math.max(1, got.attempts),
      };
    case 'done': {
      const wrote = step.kind !== 'read' && got.category === 'success' && got.attempts > 0;
      return { ...turns, known, failure: undefined, ...(wrote ? { wrote: got } : {}) };
    }
  }
};

const ended = (
  { known, wrote, doubted }: Turns,
  unsettled: Outcome | undefined,
  replayed?: Replayed<unknown>,
): Worked => ({ known, wrote, doubted, unsettled, replayed });

const outOfTime = (): Outcome =>
  outcome(
    'retryable',
    'DEADLINE_EXCEEDED',
    'no time left before the invocation ends; the rest of the entity’s work is retried',
  );

/**
 * The events with what the message got: a final outcome settles its event (a copy is then a
 * duplicate), except a conflict, which a redrive must try again; a message that goes to the DLQ
 * (a permanent refusal, or a retryable failure on its last receive) takes its event out: a dead
 * letter is not applied, and must not hold back the entity's other events, until a redrive
 * brings it back; a retryable one leaves it waiting for its redelivery.
 */
const noted = (
  events: readonly StoredEvent<unknown>[],
  key: string,
  got: Outcome,
  lastReceive: boolean,
): StoredEvent<unknown>[] => {
  const conflict = isConflict(got);
  const deadLettered =
    got.category === 'permanent' || (got.category === 'retryable' && lastReceive);
  if (deadLettered && !conflict) return events.filter((e) => e.key !== key);
  if (got.category === 'retryable') return [...events];
  return events.map((e) => {
    if (e.key !== key) return e;
    const first = e.outcome === undefined ? { outcome: got.code } : {};
    return conflict ? { ...e, ...first } : { ...e, ...first, settled: true as const };
  });
};

const isConflict = (got: Outcome): boolean => isConflictCode(got.code);

const jsonLength = (value: unknown): number => JSON.stringify(value)?.length ?? 0;

/** `,"snapshot":`, which an item without one gains with its first. */
const SNAPSHOT_KEY_LENGTH = ',"snapshot":'.length;

const sameValues = (kind: AnyEntityKind, a: unknown, b: unknown): boolean =>
  JSON.stringify(kind.values(a)) === JSON.stringify(kind.values(b));

const busy = (key: string): Outcome =>
  outcome(
    'retryable',
    'ENTITY_BUSY',
    `another message of the same entity (${key.split('#')[0]}) is being applied; retried later`,
  );
