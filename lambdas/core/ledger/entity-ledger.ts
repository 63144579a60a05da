import { randomUUID } from 'node:crypto';
import type { Outcome } from '../outcome';

export type { Applied, ApplyDecision } from './decide';

import { type Applied, type ApplyDecision, decide, settle } from './decide';
import { EMPTY_ENTITY, type EntityDoc, type FieldValue, type OrderedEvent } from './entity';
import type { ClaimResult, LedgerStore } from './ledger-store';
import { noteOutcome } from './outcome-history';

/** What an action's platform step reports: the outcome, and what it did to the entity. */
export interface StepResult {
  readonly outcome: Outcome;
  readonly applied: Applied;
}

export type ApplyStep = (decision: ApplyDecision) => Promise<StepResult>;

export interface EntityLedgerOptions {
  readonly store: LedgerStore;
  /**
   * Days a deleted entity's tombstone is kept, so a late older event is still recognised as
   * stale: at least the retry window plus the DLQ retention. @default 15
   */
  readonly tombstoneDays?: number;
  /** Days the document of an entity that exists is kept after its last event. @default 400 */
  readonly historyDays?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A lease outlives the invocation by this much, then anyone may take the entity over. */
const LEASE_GRACE_MS = 5_000;
/** Waits between claims of a busy entity: short, because its holder is usually one call away. */
const BUSY_WAITS_MS = [50, 100, 200, 400, 800, 1600];
/** A move forwards an old event at most this many times (a chain of transfers). */
const MAX_FORWARDS = 5;
const DAY_SECONDS = 86_400;

const outcome = (category: Outcome['category'], code: string, message: string): Outcome => ({
  category,
  code,
  message,
  attempts: 0,
});

/**
 * Runs one event of an entity under the ledger: claim the entity (a lease), decide from its
 * versions whether the event is stale, a duplicate or what is left of it to send, let the
 * action send that, and commit what the platform now holds. Two messages of one entity are
 * never applied at once; a crashed holder's lease expires.
 */
export class EntityLedger {
  readonly #store: LedgerStore;
  readonly #tombstoneSeconds: number;
  readonly #historySeconds: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: EntityLedgerOptions) {
    this.#store = options.store;
    this.#tombstoneSeconds = (options.tombstoneDays ?? 15) * DAY_SECONDS;
    this.#historySeconds = (options.historyDays ?? 400) * DAY_SECONDS;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async apply(
    location: string,
    event: OrderedEvent,
    step: ApplyStep,
    deadline: number,
  ): Promise<Outcome> {
    let at = location;
    let address: Readonly<Record<string, string>> | undefined;
    let followedMoveAt: string | undefined;
    for (let forwards = 0; forwards <= MAX_FORWARDS; forwards += 1) {
      const token = randomUUID();
      const claim = await this.#claim(at, token, event.attemptKey, deadline);
      if (claim.kind === 'busy') return busy(at);
      const doc = claim.doc ?? EMPTY_ENTITY;
      const decision = decide(doc, event, {
        ...pickTakenOver(claim),
        ...(followedMoveAt === undefined ? {} : { forwarded: true, followedMoveAt }),
      });
      if (decision.kind === 'forward') {
        await this.#store.release(at, token);
        at = decision.location;
        followedMoveAt = decision.moveAt;
        address = decision.address ?? address;
        continue;
      }
      if (decision.kind === 'wait') {
        await this.#store.release(at, token);
        return outcome('retryable', decision.code, decision.reason);
      }
      if (decision.kind === 'skip') {
        const skipped = settle(doc, event, decision, { kind: 'unchanged' }).doc;
        await this.#commit(at, token, noteOutcome(skipped, event.key, decision.code));
        return outcome('success', decision.code, decision.reason);
      }
      const addressed = address === undefined ? decision : { ...decision, address };
      return this.#applyClaimed(at, token, doc, event, addressed, step, deadline);
    }
    return outcome('permanent', 'MOVE_CHAIN_TOO_LONG', 'the record moved too often to follow');
  }

  async #applyClaimed(
    at: string,
    token: string,
    doc: EntityDoc,
    event: OrderedEvent,
    decision: ApplyDecision,
    step: ApplyStep,
    deadline: number,
  ): Promise<Outcome> {
    // A move writes two entities: the destination is claimed too, so nothing lands there meanwhile.
    let destination: { key: string; token: string; doc: EntityDoc | undefined } | undefined;
    if (event.kind === 'move' && event.destination !== undefined && decision.historic !== true) {
      const destinationToken = randomUUID();
      const claim = await this.#claim(
        event.destination,
        destinationToken,
        event.attemptKey,
        deadline,
      );
      if (claim.kind === 'busy') {
        await this.#store.release(at, token);
        return busy(event.destination);
      }
      destination = { key: event.destination, token: destinationToken, doc: claim.doc };
    }
    const deletedThere =
      destination?.doc?.deletedAt !== undefined && destination.doc.deletedAt > event.version;
    const merge = deletedThere ? undefined : mergeInto(doc, event, decision, destination?.doc);
    let result: StepResult;
    try {
      const oursThere = destination?.doc?.bornAt !== undefined;
      result = await step(
        deletedThere
          ? { ...decision, deletedAtDestination: true }
          : merge !== undefined
            ? { ...decision, mergeInto: merge }
            : oursThere
              ? { ...decision, destinationOurs: true }
              : decision,
      );
    } catch (error) {
      // Nothing learnt; the entity is free for the redelivery at once.
      await this.#store.release(at, token);
      if (destination) await this.#store.release(destination.key, destination.token);
      throw error;
    }
    const settled = settle(doc, event, decision, result.applied, destination?.doc);
    if (destination) {
      if (settled.destination) {
        await this.#commit(destination.key, destination.token, settled.destination);
      } else {
        await this.#store.release(destination.key, destination.token);
      }
    }
    const done = settled.doc.settled.includes(event.key)
      ? noteOutcome(settled.doc, event.key, result.outcome.code)
      : settled.doc;
    await this.#commit(at, token, done);
    return result.outcome;
  }

  async #claim(
    key: string,
    token: string,
    attemptKey: string,
    deadline: number,
  ): Promise<ClaimResult> {
    const lease = { token, until: deadline + LEASE_GRACE_MS, eventKey: attemptKey };
    let claim = await this.#store.claim(key, lease, this.#now());
    for (const wait of BUSY_WAITS_MS) {
      if (claim.kind === 'claimed' || this.#now() + wait >= deadline) break;
      await this.#sleep(wait);
      claim = await this.#store.claim(key, lease, this.#now());
    }
    return claim;
  }

  #commit(key: string, token: string, doc: EntityDoc): Promise<void> {
    const keep = doc.present === false ? this.#tombstoneSeconds : this.#historySeconds;
    return this.#store.commit(key, token, doc, Math.floor(this.#now() / 1000) + keep);
  }
}

/**
 * A move whose destination already holds an incarnation born after the move happened: events
 * sent there after the move arrived first, so that record is the moved one. What the source
 * knew (and the move sets) that is newer than the destination's fields must be set there.
 */
const mergeInto = (
  doc: EntityDoc,
  event: OrderedEvent,
  decision: ApplyDecision,
  destination: EntityDoc | undefined,
): { readonly fields: Record<string, FieldValue> } | undefined => {
  if (event.kind !== 'move' || destination?.present !== true) return undefined;
  if (destination.bornAt === undefined || destination.bornAt <= event.version) return undefined;
  const source: Record<string, { v: string; value: FieldValue }> = { ...doc.fields };
  for (const name of decision.fresh) {
    source[name] = { v: event.version, value: event.sets[name] ?? null };
  }
  const fields = Object.fromEntries(
    Object.entries(source)
      .filter(([name, entry]) => entry.v > (destination.fields[name]?.v ?? ''))
      .map(([name, entry]) => [name, entry.value]),
  );
  return { fields };
};

const pickTakenOver = (claim: Extract<ClaimResult, { kind: 'claimed' }>) =>
  claim.takenOverFrom === undefined ? {} : { takenOverFrom: claim.takenOverFrom };

const busy = (key: string): Outcome =>
  outcome(
    'retryable',
    'ENTITY_BUSY',
    `another message of the same entity (${key.split('#')[0]}) is being applied; retried later`,
  );
