import type { SQSRecord } from 'aws-lambda';
import type { ActionName } from '../../lambdas/actions';
import type { RouteDecision } from '../in-memory/event-rules';
import type { InputEvent } from './event-input';

/**
 * Every input event of a local run and where it ended: followed from the bus through each of its
 * receives (by the id the bus gave it, then by its SQS message ids), and its fate reported once,
 * as soon as it is final.
 */

/** Where a message ended; `held`: parked by the mass-delete brake for an operator to decide. */
export type FateKind = 'applied' | 'held' | 'dead-lettered' | 'redriven' | 'unrouted' | 'lost';

/** Outcome codes for fates the handler did not decide. */
export const REDRIVEN = 'REDRIVEN';
export const UNROUTED = 'UNROUTED';
export const LOST = 'LOST';

export interface MessageFate {
  /** Position of the event in the whole run (input order). */
  readonly sequence: number;
  /** 1-based phase (event file) number. */
  readonly phase: number;
  readonly file: string;
  /** The action whose queue it went to; undefined when unrouted to no known action. */
  readonly action: ActionName | undefined;
  readonly detailType: string;
  readonly correlationId: string;
  readonly kind: FateKind;
  /** `SUCCESS`, `ALREADY_EXISTS`, `INVALID_MESSAGE`, … or REDRIVEN / UNROUTED / LOST. */
  readonly code: string;
  /** SQS receives it took (0 when it never reached a queue). */
  readonly receives: number;
  /** Why it is in the DLQ / unrouted / lost. */
  readonly reason?: { readonly category?: string; readonly message: string };
  /** Short description of a read's published result (never record data). */
  readonly result?: string;
}

/** An input event as the run follows it. */
export interface Tracked {
  readonly sequence: number;
  readonly phase: number;
  readonly input: InputEvent;
  readonly decision: RouteDecision;
  readonly action: ActionName | undefined;
  correlationId: string;
  receives: number;
  fate?: MessageFate;
}

/** How a message ended, beside what the book knows of it already. */
export type FateEnd = Omit<
  MessageFate,
  'sequence' | 'phase' | 'file' | 'action' | 'detailType' | 'correlationId' | 'receives'
>;

/** How `item` ended as `end`; an applied read shows `result`, its published result. */
export const fateOf = (item: Tracked, end: FateEnd, result: string | undefined): MessageFate => ({
  sequence: item.sequence,
  phase: item.phase,
  file: item.input.file,
  action: item.action,
  detailType: item.input.detailType,
  correlationId: item.correlationId,
  receives: item.receives,
  ...(end.kind === 'applied' && result !== undefined ? { result } : {}),
  ...end,
});

/** The id of the EventBridge event a body carries, if it is one. */
export const eventIdOf = (body: string): string | undefined => {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' &&
      parsed !== null &&
      !Array.isArray(parsed) &&
      'id' in parsed &&
      typeof parsed.id === 'string'
      ? parsed.id
      : undefined;
  } catch {
    return undefined;
  }
};

export class FateBook {
  readonly #tracked: Tracked[] = [];
  readonly #byEventId = new Map<string, Tracked>();
  readonly #byMessageId = new Map<string, Tracked>();
  /** A read's published result in one line, by correlationId. */
  readonly #results = new Map<string, string>();
  readonly #reported: ((fate: MessageFate) => void) | undefined;

  /** `reported`: told each fate as it becomes final. */
  constructor(reported?: (fate: MessageFate) => void) {
    this.#reported = reported;
  }

  /** Follows an event of phase `phase` (1-based), put on the bus as `eventId`. */
  track(
    event: Pick<Tracked, 'phase' | 'input' | 'decision' | 'action' | 'correlationId'>,
    eventId: string,
  ): Tracked {
    const item: Tracked = { sequence: this.#tracked.length, ...event, receives: 0 };
    this.#tracked.push(item);
    this.#byEventId.set(eventId, item);
    return item;
  }

  /** The event a received record carries; one not of this run is followed too, so nothing goes unreported. */
  received(action: ActionName, record: SQSRecord): Tracked {
    const known = this.#byMessageId.get(record.messageId);
    if (known) return known;
    const eventId = eventIdOf(record.body);
    const item = eventId === undefined ? undefined : this.#byEventId.get(eventId);
    if (item) {
      this.#byMessageId.set(record.messageId, item);
      return item;
    }
    // Not one of ours (should not happen): follow it anyway so nothing goes unreported.
    const stranger: Tracked = {
      sequence: this.#tracked.length,
      phase: 0,
      input: {
        file: '(unknown)',
        index: 0,
        format: 'eventbridge',
        source: '?',
        detailType: action,
        detail: {},
        envelope: {},
      },
      decision: { routed: true, action },
      action,
      correlationId: eventId ?? record.messageId,
      receives: 0,
    };
    this.#tracked.push(stranger);
    this.#byMessageId.set(record.messageId, stranger);
    return stranger;
  }

  /** The event of this run a body (a dead letter's, a redriven message's) carries. */
  ofBody(body: string): Tracked | undefined {
    const eventId = eventIdOf(body);
    return eventId === undefined ? undefined : this.#byEventId.get(eventId);
  }

  /** The event of this run an SQS message carries, once it was received. */
  ofMessage(messageId: string): Tracked | undefined {
    return this.#byMessageId.get(messageId);
  }

  /** A read's published result, shown with its message's fate. */
  noteResult(correlationId: string, summary: string): void {
    this.#results.set(correlationId, summary);
  }

  /** Reports how `item` ended, unless an earlier fate was final. */
  finish(item: Tracked, fate: FateEnd): void {
    if (item.fate) return;
    item.fate = fateOf(item, fate, this.#results.get(item.correlationId));
    this.#reported?.(item.fate);
  }

  /** Every event still without a fate is lost: neither applied nor in a dead-letter queue. */
  loseTheRest(): void {
    for (const item of this.#tracked) {
      this.finish(item, {
        kind: 'lost',
        code: LOST,
        reason: {
          message:
            item.receives === 0
              ? 'routed to a queue but never received from it'
              : 'neither applied nor in a dead-letter queue',
        },
      });
    }
  }

  /** The fates, in input order. */
  fates(): MessageFate[] {
    return this.#tracked.map((item) => item.fate).filter((f): f is MessageFate => f !== undefined);
  }
}
