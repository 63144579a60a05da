import { parseWith } from '../../messages/parse';
import {
  declaredCorrelationId,
  type UnwrappedMessage,
  unwrapBody,
  unwrapDecoded,
} from '../entry/envelope';
import type { ForwardedAttribute, HeldMessageSink } from '../entry/ports';
import { isErrorOf, type SyncError } from '../errors';
import type { AnyEntityKind, EventSource } from '../ledger/entity-kind';
import { type EntityLedger, newEvent } from '../ledger/entity-ledger';
import { eventTime } from '../ledger/event-time';
import { versionOf } from '../ledger/event-version';
import type { CallOptions, PlatformCaller } from '../platform/platform-caller';
import { HELD_BY_BRAKE, type MassDeleteBrake } from '../resilience/mass-delete-brake';
import type { AnyAction, EntityName, WriteAction } from './action';
import { type Disposition, type Received, type SettleDependencies, settle } from './disposition';
import { isOwnCode, type Outcome, type OutcomeCode, type OwnCode } from './outcome';

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
  /** What carried it, kept with its ledger event for `ops trace`. @default none kept */
  readonly source?: EventSource;
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
  const decided = await guarded({ correlationId: inbound.sourceMessageId }, inbound, deps, () =>
    decide(action, { inbound, deps, now }),
  );
  return settle(
    {
      action: action.name,
      correlationId: decided.correlationId,
      outcome: decided.outcome,
      request: decided.request,
      entity: decided.entity,
      startedAt,
    },
    inbound,
    deps,
  );
};

/** What the pipeline knows of a message: what its log line and its dead letter name. */
interface Facts {
  readonly correlationId: string;
  /** The parsed message, once it is sent: a read's result event quotes it. */
  readonly request?: unknown;
  /** The ledger key of the entity (hashed ids), once the message is ordered. */
  readonly entity?: string;
}

interface Decision extends Facts {
  readonly outcome: Outcome;
}

/** What each stage of one message's pipeline reads beside the message. */
interface Context {
  readonly inbound: InboundMessage;
  readonly deps: ProcessorDependencies;
  readonly now: () => number;
}

/** Runs a stage; what it throws is the message's outcome, with the facts known before it ran. */
const guarded = async (
  facts: Facts,
  inbound: InboundMessage,
  deps: ProcessorDependencies,
  run: () => Promise<Decision>,
): Promise<Decision> => {
  try {
    return await run();
  } catch (error) {
    return {
      ...facts,
      outcome: isMessageFault(error)
        ? invalid(error.code, faultMessage(error))
        : unexpected(error, facts.correlationId, inbound, deps),
    };
  }
};

/** Unwraps the message, which names its correlationId, and decides the rest under that id. */
const decide = async (action: AnyAction, context: Context): Promise<Decision> => {
  const { inbound, deps } = context;
  const unwrapped =
    inbound.decoded === undefined
      ? unwrapBody(action.name, inbound.body)
      : unwrapDecoded(action.name, inbound.decoded);
  const correlationId =
    declaredCorrelationId(unwrapped.message) ?? unwrapped.eventId ?? inbound.sourceMessageId;
  return guarded({ correlationId }, inbound, deps, () =>
    decideUnwrapped(action, unwrapped, correlationId, context),
  );
};

/**
 * A message that parses meets the mass-delete brake, then the breaker's hold; one let through is
 * sent: a read as the action's own request, a write ordered by its entity's ledger.
 */
const decideUnwrapped = async (
  action: AnyAction,
  unwrapped: UnwrappedMessage,
  correlationId: string,
  context: Context,
): Promise<Decision> => {
  const { deps } = context;
  const parsed = parseWith(action.schema, unwrapped.message);
  if (!parsed.success) return { correlationId, outcome: invalid('INVALID_MESSAGE', parsed.error) };
  const { message } = parsed;
  const held = await braked(action, message, correlationId, context);
  if (held !== undefined) return { correlationId, outcome: held };
  // Known to be down: wait without a ledger lease (a claim and a release per held message).
  const heldBack = deps.platform.heldBack(action);
  if (heldBack !== undefined) return { correlationId, outcome: heldBack };
  const call = { deadline: context.inbound.deadline, correlationId };
  if (action.kind === 'read') {
    return {
      correlationId,
      request: message,
      outcome: await action.execute(message, deps.platform, call),
    };
  }
  return { request: message, ...(await order(action, message, unwrapped, call, context)) };
};

/**
 * The mass-delete brake, for a destructive message: it is counted on its first receive, whatever
 * happens to it afterwards (so before the breaker's hold), and only checked on a redelivery (a
 * brake tripped since holds it). A held message is parked for an operator's release; undefined
 * when the message goes on.
 */
const braked = async (
  action: AnyAction,
  message: unknown,
  correlationId: string,
  { inbound, deps }: Context,
): Promise<Outcome | undefined> => {
  const { brake } = deps;
  if (brake === undefined || inbound.brakeReleased === true) return undefined;
  if (action.destructive?.(message) !== true) return undefined;
  const verdict = await brake.gate.decide(inbound.receiveCount === 1 ? 'count' : 'check');
  if (verdict.kind !== 'hold') return undefined;
  // A failed send throws: the record fails and comes back (and is held then), never lost.
  await brake.held.hold({
    body: inbound.body,
    correlationId,
    sourceMessageId: inbound.sourceMessageId,
    reason: verdict.why,
    ...(inbound.attributes === undefined ? {} : { attributes: inbound.attributes }),
  });
  return { category: 'success', code: HELD_BY_BRAKE, message: verdict.why, attempts: 0 };
};

/** A write: the entity the message names, and its event applied in order by the entity's ledger. */
const order = async (
  action: WriteAction,
  message: unknown,
  unwrapped: UnwrappedMessage,
  call: CallOptions & { readonly correlationId: string },
  { inbound, deps, now }: Context,
): Promise<Decision> => {
  const { correlationId } = call;
  const { ordering } = action;
  const { ledger, entity: kind } = ledgerOf(action, deps);
  const named = await identify(
    ordering.name(message, deps.campaignRegion ?? deps.platform.campaignRegion),
    kind,
    ledger,
    deps.platform,
    call,
  );
  if ('outcome' in named) return { correlationId, outcome: named.outcome };
  // Known before the ledger reads its item: a dead letter for an item that does not parse
  // (LEDGER_ITEM_INVALID) names the entity in its log line, for the operator to delete it.
  const entity = kind.keyOf(named.id);
  return guarded({ correlationId, entity }, inbound, deps, async () => {
    const occurred = eventTime(
      {
        occurredAt: (message as { occurredAt?: string }).occurredAt,
        eventBridgeTime: unwrapped.eventTime,
        sqsSentTimestamp: inbound.sentTimestamp,
      },
      now(),
    ).ms;
    const op = ordering.op(message);
    const outcome = await ledger.apply(kind, {
      id: named.id,
      event: newEvent(action.name, versionOf(ordering.rank, op, occurred), op, inbound.source),
      platform: deps.platform,
      call,
      deadline: inbound.deadline,
      lastReceive: inbound.isLastReceive,
      ...(named.alias === undefined ? {} : { alias: named.alias }),
    });
    return { correlationId, entity, outcome };
  });
};
