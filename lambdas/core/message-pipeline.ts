import { parseWith } from '../messages/parse';
import type { AnyAction, EntityName } from './action';
import { type Disposition, type Received, type SettleDependencies, settle } from './disposition';
import { declaredCorrelationId, unwrapBody, unwrapDecoded } from './envelope';
import { isErrorOf, type SyncError } from './errors';
import type { AnyEntityKind } from './ledger/entity-kind';
import { type EntityLedger, newEvent } from './ledger/entity-ledger';
import { eventTime } from './ledger/event-time';
import { versionOf } from './ledger/event-version';
import { HELD_BY_BRAKE, type MassDeleteBrake } from './mass-delete-brake';
import { isOwnCode, type Outcome, type OutcomeCode, type OwnCode } from './outcome';
import type { CallOptions, PlatformCaller } from './platform-caller';
import type { ForwardedAttribute, HeldMessageSink } from './ports';

/**
 * One message, from its body to its outcome: parse at the edge, the mass-delete brake, the
 * breaker's hold, then either the entity ledger (a write: its event ordered with its entity's
 * others) or the action's own request (a read). `disposition.ts` settles the outcome; the entry
 * point (`invocation-entry.ts`) routes invocations here and answers SQS.
 */

export interface ProcessorDependencies extends SettleDependencies {
  /** Sends the action's requests (key, retries, classification); built with the same observer. */
  readonly platform: PlatformCaller;
  /**
   * Orders each entity's events, with the kind of entity the action writes: required for a write
   * action (its one path), absent for a read.
   */
  readonly ledger?: { readonly ledger: EntityLedger; readonly entity: AnyEntityKind };
  /** The deployment's campaign region: part of a record's identity when a message names none. */
  readonly campaignRegion?: string;
  /**
   * The mass-delete brake of a destructive action and the queue it parks held messages in.
   * @default - no brake: destructive messages are applied however many arrive
   */
  readonly brake?: { readonly gate: MassDeleteBrake; readonly held: HeldMessageSink };
}

/** One inbound message, whatever carried it. */
export interface InboundMessage extends Received {
  /** The body already decoded (EventBridge target, direct invocation, an SQS batch's reading); skips JSON parsing. */
  readonly decoded?: unknown;
  /** SQS `SentTimestamp`: orders the event when it carries no `occurredAt`. */
  readonly sentTimestamp?: string;
  /** Epoch ms by which the platform calls for this message must be finished. */
  readonly deadline: number;
  /** The producer's SQS message attributes; a held message keeps them for its release. */
  readonly attributes?: Readonly<Record<string, ForwardedAttribute>>;
  /** Let through by an operator (`brake release`): the brake neither counts nor holds it. */
  readonly brakeReleased?: boolean;
}

/** What kind of error it was, never its text (that may quote the body or the platform). */
const errorKind = (error: unknown): string =>
  error instanceof Error ? error.name : `thrown ${typeof error}`;

/** Where it was thrown: the stack's frames without its first line, which repeats the text. */
const stackFrames = (error: unknown): string | undefined =>
  error instanceof Error
    ? error.stack
        ?.split('\n')
        .filter((line) => line.trimStart().startsWith('at '))
        .join('\n')
    : undefined;

const invalid = (code: OutcomeCode, message: string): Outcome => ({
  category: 'permanent',
  code,
  message,
  attempts: 0,
});

/**
 * An error that says the message, or its entity's ledger item, is wrong (a body that is not
 * JSON, an event of another action, an item that does not parse): no redelivery can cure it.
 */
const isMessageFault = (error: unknown): error is SyncError<OwnCode> =>
  isErrorOf(error, 'permanent') && isOwnCode(error.code);

/** What the dead letter says of it; for a ledger item, also what the operator does. */
const faultMessage = (error: SyncError<OwnCode>): string =>
  error.code === 'LEDGER_ITEM_INVALID'
    ? `the ledger item of this entity does not parse (${error.message}); delete it (its key is the log line's entity; the next message then reads the platform first) or repair it, then redrive`
    : error.message;

/**
 * An unexpected fault (key source down, a bug): not the message's fault, so retry it. Its text
 * may quote personal data, which no log line or dead letter may carry, so both name only its
 * kind, and the log adds where it was thrown.
 */
const unexpected = (
  error: unknown,
  correlationId: string,
  inbound: InboundMessage,
  deps: ProcessorDependencies,
): Outcome => {
  deps.logger.error('unexpected error', {
    correlationId,
    messageId: inbound.sourceMessageId,
    errorKind: errorKind(error),
    stack: stackFrames(error),
  });
  return {
    category: 'retryable',
    code: 'UNEXPECTED_ERROR',
    message: `unexpected ${errorKind(error)}; the function's log says where it was thrown (search for the correlationId)`,
    attempts: 0,
  };
};

/**
 * The entity a message names, with the alias to index when it was found through one: one search
 * for a record named only by its previewRecordId, then the ledger's index of ids it has seen
 * (the record may have moved on since the message was written).
 */
const identify = async (
  name: EntityName,
  entity: AnyEntityKind,
  ledger: EntityLedger,
  platform: PlatformCaller,
  call: CallOptions,
): Promise<{ readonly id: unknown; readonly alias?: string } | { readonly outcome: Outcome }> => {
  if ('id' in name) return { id: name.id };
  if (entity.resolve === undefined) throw new Error(`${entity.name} cannot resolve a name`);
  return entity.resolve(name.lookup, { platform, call, store: ledger.store });
};

/** The ledger a write action's events go through; built with the handler, so never missing. */
export const ledgerOf = (
  action: AnyAction,
  deps: Pick<ProcessorDependencies, 'ledger'>,
): NonNullable<ProcessorDependencies['ledger']> => {
  if (deps.ledger === undefined) {
    throw new Error(`${action.name} is a write action: its handler needs the entity ledger`);
  }
  return deps.ledger;
};

/**
 * Decides one message's outcome: parse at the edge, brake, order it (writes), call the
 * platform; then settles it (`settle`). Throws only when the dead-letter send itself failed.
 */
export const processMessage = async (
  action: AnyAction,
  inbound: InboundMessage,
  deps: ProcessorDependencies,
): Promise<Disposition> => {
  const now = deps.now ?? Date.now;
  const startedAt = now();
  let correlationId = inbound.sourceMessageId;
  let outcome: Outcome;
  let request: unknown;
  /** The ledger key of the entity (hashed ids), when the message was ordered. */
  let entity: string | undefined;

  try {
    const unwrapped =
      inbound.decoded === undefined
        ? unwrapBody(action.name, inbound.body)
        : unwrapDecoded(action.name, inbound.decoded);
    correlationId =
      declaredCorrelationId(unwrapped.message) ?? unwrapped.eventId ?? inbound.sourceMessageId;
    const parsed = parseWith(action.schema, unwrapped.message);
    // Before the breaker's hold: a destructive message is counted on its first receive, whatever
    // happens to it afterwards; redeliveries are only checked (a brake tripped since holds them).
    const braked =
      parsed.success && deps.brake !== undefined && inbound.brakeReleased !== true
        ? action.destructive?.(parsed.message) === true
        : false;
    const verdict =
      braked && deps.brake !== undefined
        ? await deps.brake.gate.decide(inbound.receiveCount === 1 ? 'count' : 'check')
        : undefined;
    // Known to be down: wait without a ledger lease (a claim and a release per held message).
    const held =
      parsed.success && verdict?.kind !== 'hold' ? deps.platform.heldBack(action) : undefined;
    if (verdict?.kind === 'hold' && deps.brake !== undefined) {
      // A failed send throws: the record fails and comes back (and is held then), never lost.
      await deps.brake.held.hold({
        body: inbound.body,
        correlationId,
        sourceMessageId: inbound.sourceMessageId,
        reason: verdict.why,
        ...(inbound.attributes === undefined ? {} : { attributes: inbound.attributes }),
      });
      outcome = { category: 'success', code: HELD_BY_BRAKE, message: verdict.why, attempts: 0 };
    } else if (held !== undefined) {
      outcome = held;
    } else if (parsed.success) {
      const message = parsed.message;
      request = message;
      const call: CallOptions = { deadline: inbound.deadline, correlationId };
      if (action.kind === 'read') {
        outcome = await action.execute(message, deps.platform, call);
      } else {
        const ordering = action.ordering;
        const { ledger, entity: kind } = ledgerOf(action, deps);
        const named = await identify(
          ordering.name(message, deps.campaignRegion ?? deps.platform.campaignRegion),
          kind,
          ledger,
          deps.platform,
          call,
        );
        if ('outcome' in named) {
          outcome = named.outcome;
        } else {
          entity = kind.keyOf(named.id);
          const occurred = eventTime(
            {
              occurredAt: (message as { occurredAt?: string }).occurredAt,
              eventBridgeTime: unwrapped.eventTime,
              sqsSentTimestamp: inbound.sentTimestamp,
            },
            now(),
          ).ms;
          const op = ordering.op(message);
          const v = versionOf(ordering.rank, op, occurred);
          outcome = await ledger.apply(kind, {
            id: named.id,
            event: newEvent(action.name, v, op),
            platform: deps.platform,
            call,
            deadline: inbound.deadline,
            lastReceive: inbound.isLastReceive,
            ...(named.alias === undefined ? {} : { alias: named.alias }),
          });
        }
      }
    } else {
      outcome = invalid('INVALID_MESSAGE', parsed.error);
    }
  } catch (error) {
    outcome = isMessageFault(error)
      ? invalid(error.code, faultMessage(error))
      : unexpected(error, correlationId, inbound, deps);
  }

  return settle(
    { action: action.name, correlationId, outcome, request, entity, startedAt },
    inbound,
    deps,
  );
};
