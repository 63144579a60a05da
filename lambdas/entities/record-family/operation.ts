import {
  type Effect,
  type StepAnswer,
  type StepContext,
  stepStatus,
} from '../../core/ledger/entity-kind';
import type { Version } from '../../core/ledger/event-version';
import type { Outcome, OutcomeCode } from '../../core/pipeline/outcome';
import type { CallOptions } from '../../core/platform/platform-caller';
import type { PlatformRegion } from '../../core/platform/regions';
import type { KnownFamily, Observed } from './known';
import {
  type FamilyId,
  type FamilyState,
  type FieldValue,
  type Place,
  RECORD_FIELDS,
  type RecordField,
  type RecordFields,
  type RecordOp,
} from './model';
import type { RecordStep, SetFields } from './steps';

/**
 * What one record operation (an op of `RecordOp`, an action's message) is, all in its own module
 * under `operations/`: the shared code (replay, step runner, learn, the kind) asks it by name, so
 * a change to what an action does is read and made in that one file. `K` names the op, and the
 * write step the planner makes for it, which carry the same kind. Which of its codes a message
 * gets (its `apply` effect's, its `run` answer's, its `alreadyCode`) is decided in one table:
 * `core/ledger/message-outcome.ts`.
 */
export interface RecordOperation<K extends RecordOp['kind']> {
  /**
   * What the op does to the family's campaigns (`places`, changed in place) at its version, as
   * the platform would apply its request; its effect.
   */
  apply(places: Map<string, Place>, v: Version, op: Extract<RecordOp, { kind: K }>): Effect;
  /**
   * Sends its step's request (through `writeCall`) and reads the answer for the ledger; `context`
   * also holds what the ledger knows as the step starts. Unless an earlier rule of
   * `message-outcome.ts` decides (a failed call, a conflict or nothing to act on in the replay),
   * the outcome it returns for a call the platform answered with success is the message's,
   * whatever its code, the last one's when a message makes several (rule 6).
   */
  run(
    step: WriteStep<K>,
    context: StepContext<FamilyId, RecordOp, KnownFamily>,
  ): Promise<RecordAnswer>;
  /** The campaigns its step's call may change, the one it addresses first. */
  touched(step: WriteStep<K>): readonly string[];
  /** Fields its step sends (a read tells by them whether an unanswered call landed). */
  sent(step: WriteStep<K>): RecordField[];
  /** Where each campaign its step changes ends when its call is applied. */
  after(step: WriteStep<K>): Readonly<Record<string, Place>>;
  /**
   * What the ledger knows after the platform answered its step (status `done`, and the record
   * was where the step addressed it). Pure.
   */
  learn(known: KnownFamily, step: WriteStep<K>, answer: RecordAnswer): KnownFamily;
  /**
   * Why work done on the platform after the event keeps it from taking effect, when it does
   * (the port's `keptByPlatform`). @default never
   */
  keptByPlatform?(known: KnownFamily, desired: FamilyState, v: Version): string | undefined;
  /** Its code when its state was already in place; `doubted`: an unanswered call of ours did it. */
  alreadyCode(doubted: boolean): OutcomeCode;
}

/** What a record step's call told the ledger, beyond its status. */
export type RecordFinding =
  /** A read (or a status change's look-up) found the record, with these values. */
  | { readonly kind: 'found'; readonly observed: Observed }
  /** A read found no record in the campaign. */
  | { readonly kind: 'absent' }
  /** The platform answered that the record is not where the step addressed it (NORECORDFOUND). */
  | { readonly kind: 'not-where-addressed' }
  /** A delete removed a record (it did not answer NORECORDFOUND). */
  | { readonly kind: 'removed' }
  /** A refused transfer found its destination holding a record with this clientId. */
  | { readonly kind: 'occupied'; readonly observed: Observed }
  /** Nothing beyond its status: it failed or went unanswered, did what it said, or deleted nothing. */
  | { readonly kind: 'nothing-more' };

export interface RecordAnswer extends StepAnswer {
  readonly finding: RecordFinding;
}

export type WriteStep<K extends RecordOp['kind']> = Extract<RecordStep, { readonly kind: K }>;

/**
 * A write stops at its first unanswered attempt, and a read tells next whether it landed: a
 * repeat is not always harmless (an add taken for an update drops the clientId item; a repeated
 * move finds nothing), and a read costs what a blind retry would (`platform-caller.test.ts`, "a
 * write that may have landed").
 */
export const writeCall = (call: CallOptions): CallOptions => ({ ...call, stopAtDoubt: true });

export const region = (id: FamilyId) => id.region as PlatformRegion;

/** The record in its region, as every request names it. */
export const recordIn = (id: FamilyId) => ({ region: region(id), clientId: id.clientId });

/** The fields a status change or transfer sends (a read tells by them whether the call landed). */
export const fieldsSent = (step: { readonly fields: SetFields }): RecordField[] =>
  RECORD_FIELDS.filter((name) => name in step.fields);

/** The routing fields a status change or transfer sends, as the request names them. */
export const routingRequest = (fields: SetFields) => ({
  ...(fields.skillQueue === undefined || fields.skillQueue === null
    ? {}
    : { skillQueue: String(fields.skillQueue) }),
  ...(fields.agent === undefined
    ? {}
    : { preferredAgent: fields.agent === null ? '' : String(fields.agent) }),
  ...(typeof fields.nextWork === 'number' ? { nextEarliestWorkTimeUTC: fields.nextWork } : {}),
  ...(fields.timeZone === undefined || fields.timeZone === null
    ? {}
    : { timeZone: String(fields.timeZone) }),
});

/** Each value as set by the event `v`. */
export const fieldsAt = (v: Version, values: Record<string, FieldValue>): RecordFields =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, { v, value }]));

/** A status change or transfer that finds no record where it names one. */
export const NO_RECORD = (campaign: string): Effect => ({
  kind: 'none',
  code: 'NO_EFFECT',
  reason: `no record with this clientId in "${campaign}" at this event's time (as far as the events known so far say); the event is kept and takes effect if an older event that puts the record there arrives`,
});

export const NOTHING_MORE: RecordFinding = { kind: 'nothing-more' };

/** A call's answer: its status by its outcome's category. */
export const answer = (outcome: Outcome, finding: RecordFinding = NOTHING_MORE): RecordAnswer => ({
  outcome,
  status: stepStatus(outcome),
  finding,
});

/** NORECORDFOUND: an answer, not a failure; the ledger learns the record is not there and takes its steps anew. */
export const notThere = (outcome: Outcome): RecordAnswer => ({
  outcome: { ...outcome, category: 'success', code: 'NORECORDFOUND' },
  status: 'done',
  finding: { kind: 'not-where-addressed' },
});

/** A call's answer to a step that addressed the record where the ledger thought it was. */
export const answerAt = (outcome: Outcome, finding: RecordFinding = NOTHING_MORE): RecordAnswer =>
  outcome.code === 'NORECORDFOUND' ? notThere(outcome) : answer(outcome, finding);

export const failed = (outcome: Outcome): RecordAnswer => ({
  outcome,
  status: 'failed',
  finding: NOTHING_MORE,
});
