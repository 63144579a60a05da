import {
  type ConflictCode,
  callMayHaveBeenApplied,
  type Outcome,
  type OutcomeCode,
} from '../pipeline/outcome';
import type { CallOptions, PlatformCaller } from '../platform/platform-caller';
import type { Version } from './event-version';
import type { DocParts } from './ledger-doc';
import type { LedgerStore } from './ledger-store';

/**
 * The port between the ledger's mechanism (`entity-ledger.ts`: lease, events, replay, steps,
 * commit) and what one kind of platform entity is (a record family, a user). The mechanism
 * names no entity and no action; a kind supplies the model of the platform for one entity and
 * the steps that bring the platform there, as Powertools' idempotency keeps its persistence
 * layer behind one interface.
 */

/** One event of an entity as the ledger keeps it. */
export interface StoredEvent<Op> {
  /** `<action>@<version>`: two copies of one event share it. */
  readonly key: string;
  readonly v: Version;
  readonly action: string;
  /** What the event does, in the entity model's terms, with the values it sets. */
  readonly op: Op;
  /**
   * When the ledger recorded it, or last received it while it was not settled (epoch ms): past
   * the tombstone horizon it is folded into the snapshot, or dropped if it never settled.
   */
  readonly received?: number;
  /** Its message got a final outcome: another copy of it is a duplicate. */
  readonly settled?: true;
  /** The outcome code its message got first (for `ops trace`). */
  readonly outcome?: string;
  /** Copies of it skipped as duplicates since. */
  readonly repeats?: number;
  /** What brought it (absent on items written before sources were kept). */
  readonly source?: EventSource;
}

/** Where an event came from: an action's queue (or EventBridge), the SCIM endpoint, a reconcile apply. */
export const EVENT_SOURCES = ['queue', 'scim', 'reconcile'] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];

/** What an event did in the replay, at its place in version order. */
export type Effect =
  | { readonly kind: 'applied' }
  /** It found nothing to act on (a change to a record not there at its time, a delete of nothing). */
  | { readonly kind: 'none'; readonly code: NoEffectCode; readonly reason: string }
  /** The platform would refuse it (a transfer into an occupied campaign, a join of someone else's login). */
  | { readonly kind: 'conflict'; readonly code: ConflictCode; readonly reason: string };

export type NoEffectCode = 'NO_EFFECT' | 'ALREADY_ABSENT';

export interface Replayed<State> {
  readonly state: State;
  /** By event key. */
  readonly effects: ReadonlyMap<string, Effect>;
}

/** How a step's platform call ended, as far as the ledger's knowledge goes. */
export interface StepAnswer {
  /** What the step's call ended as (its code is the message's code when the step was its work). */
  readonly outcome: Outcome;
  /**
   * `done`: the platform answered and the step's result is known (also a read, or a delete of
   * what was gone); `uncertain`: the call may have been applied although no answer said so;
   * `failed`: the platform did not apply it.
   */
  readonly status: 'done' | 'uncertain' | 'failed';
}

/** A call's status as the ledger learns from it: a failure that may have landed is in doubt. */
export const stepStatus = (outcome: Outcome): StepAnswer['status'] =>
  outcome.category === 'success'
    ? 'done'
    : callMayHaveBeenApplied(outcome)
      ? 'uncertain'
      : 'failed';

/**
 * The context a step runs in: what an operation may consult besides its step (the step says what
 * to do; `known` says what the ledger knows the platform holds as the step starts).
 */
export interface StepContext<Id, Op, Known = unknown> {
  readonly id: Id;
  readonly events: readonly StoredEvent<Op>[];
  readonly known: Known;
  readonly platform: PlatformCaller;
  readonly call: CallOptions;
}

/**
 * What of an entity the platform holds because this integration created it, as far as the ledger
 * knows: the whole entity (a user), or the places it created (a family's records, by campaign).
 */
export type CreatedByUs =
  | { readonly kind: 'entity'; readonly ours: boolean }
  | { readonly kind: 'places'; readonly ours: ReadonlySet<string> };

/**
 * What a ledger item of a kind means to a person (`ops trace`): times and states only, never data
 * values, names or agent ids. The mechanism around it (events, snapshot, parse errors) is the
 * tool's; what the replay wants comes from the kind's own `start` and `replay`.
 */
export interface Describe<Op, State, Known> {
  /** What an event acts on within its entity (a campaign, a move); undefined: the entity itself. */
  target(op: Op): string | undefined;
  /** What the events want (the replay) and what the ledger knows the platform holds, as lines. */
  state(desired: State, known: Known): string[];
}

export interface EntityKind<
  Id,
  Op,
  State,
  Known,
  Step extends { readonly kind: string },
  Answer extends StepAnswer,
> {
  readonly name: string;
  /** How the ledger checks what it persisted of this kind (an item lives 400 days). */
  readonly parts: DocParts<Id, Op, State, Known>;
  /** The ledger key of the entity `id` names. */
  keyOf(id: Id): string;
  /** What the ledger knows of an entity it has never seen. */
  readonly unknown: Known;
  /**
   * Finds the entity a message names by another name (a record by its previewRecordId): its id,
   * and the alias to index, or the outcome when it cannot be found now.
   */
  resolve?(
    name: {
      readonly region: string;
      readonly campaignName: string;
      readonly previewRecordId: string;
    },
    context: {
      readonly platform: PlatformCaller;
      readonly call: CallOptions;
      readonly store: LedgerStore;
    },
  ): Promise<{ readonly id: Id; readonly alias?: string } | { readonly outcome: Outcome }>;
  /**
   * What an item of an older schema version that `parts` no longer reads (not even as
   * `previous`) still tells (undefined: nothing; the entity is then treated as never seen, and
   * the platform is read where that matters).
   */
  migrate?(raw: unknown): Known | undefined;
  /**
   * What the ledger knows once a message was refused as a conflict: the platform state that
   * caused it is read again next time, so a redrive after an operator's fix is decided afresh.
   */
  recheck(known: Known): Known;
  /** What the ledger knows when a call it cannot see may have landed (a crashed holder's). */
  doubt(known: Known): Known;
  /**
   * What the ledger knows as it starts on a message: what held only while an earlier message was
   * applied (reads taken as current then) is dropped. @default what it knows, as it is
   */
  forMessage?(known: Known): Known;
  /**
   * Why work done on the platform after the event (an agent working a record) keeps it from
   * taking effect, when it does; undefined otherwise. `desired`: the replay with the event.
   */
  keptByPlatform?(known: Known, desired: State, op: Op, v: Version): string | undefined;
  /** Where the replay starts: what the platform held before the ledger's first write, then `snapshot`. */
  start(known: Known, snapshot: State | undefined): State;
  replay(start: State, events: readonly StoredEvent<Op>[]): Replayed<State>;
  /**
   * The platform calls that bring it from what the ledger knows to `desired`, in order: reads
   * first wherever the known state is in doubt, then the fewest writes. Only fields whose desired
   * version is newer than the one applied are sent, so work done on the platform since (an agent
   * completing a record) stays. Empty when the platform holds `desired`.
   */
  steps(desired: State, known: Known, events: readonly StoredEvent<Op>[]): readonly Step[];
  /**
   * Sends `step` (one platform call, or a read and a call) and reads its answer. The ledger runs
   * one step at a time and asks `steps` again after each, with what `learn` made of the answer.
   */
  run(step: Step, context: StepContext<Id, Op, Known>): Promise<Answer>;
  /** What the ledger knows after `step` ended as `answer`. Pure. */
  learn(known: Known, step: Step, answer: Answer): Known;
  /**
   * Reconciliation's "created by us" (what a scope may delete without being told to delete what
   * others made): asked of the kind, as the ledger item's own reader.
   */
  createdByUs(known: Known): CreatedByUs;
  /** Nothing of the entity is on the platform or wanted there: the item may go after the tombstone horizon. */
  isGone(desired: State, known: Known): boolean;
  /**
   * What the platform shows of a state, versions left out: an event whose replay with and
   * without it shows the same is stale (newer events overtook all it did).
   */
  values(state: State): unknown;
  /** Events a snapshot must keep because a later call may need their values. */
  keep(state: State, events: readonly StoredEvent<Op>[]): readonly StoredEvent<Op>[];
  /**
   * The code of an effective event that needed no call (its state was already in place);
   * `doubted`: a request of this message went unanswered and reading back showed it done.
   */
  alreadyCode(op: Op, doubted: boolean): OutcomeCode;
  /** What an item of this kind means to a person (`ops trace`). */
  readonly describe: Describe<Op, State, Known>;
}

/** Any kind, whatever its types (the ledger's and the harness's view). */
// biome-ignore lint/suspicious/noExplicitAny: a registry of kinds of different types
export type AnyEntityKind = EntityKind<any, any, any, any, any, any>;
