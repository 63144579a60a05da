import { correlationId as correlationIdRule } from '../../messages/common';
import { SyncError } from '../errors';

/**
 * An inbound message after JSON decoding and unwrapping, before schema validation. An SQS body
 * is either the action message itself or a whole EventBridge event (what an EventBridge → SQS
 * rule target delivers); in the latter case the message is its `detail`.
 */
export interface UnwrappedMessage {
  /** The candidate action message (validated later against the action's schema). */
  readonly message: unknown;
  /** The EventBridge event id when the body was an EventBridge event. */
  readonly eventId?: string;
  /** The EventBridge event `time` when the body was an EventBridge event. */
  readonly eventTime?: string;
}

/** The body is not a message of this action: not JSON, or an event of another action. */
export class EnvelopeError extends SyncError<'INVALID_JSON' | 'WRONG_DETAIL_TYPE'> {
  override readonly name = 'EnvelopeError';
  readonly category = 'permanent';
  constructor(
    readonly code: 'INVALID_JSON' | 'WRONG_DETAIL_TYPE',
    message: string,
  ) {
    super(message);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An object shaped like an EventBridge event, before its `detail` is read. */
export interface EventBridgeShape {
  'detail-type': string;
  detail: unknown;
  id?: unknown;
  source?: unknown;
  time?: unknown;
}

/** True for an object shaped like an EventBridge event (`detail-type` and `detail`). */
export const isEventBridgeEvent = (value: unknown): value is EventBridgeShape =>
  isRecord(value) && typeof value['detail-type'] === 'string' && 'detail' in value;

/** Unwraps an already decoded value; a detail-type naming another action is a routing error. */
export const unwrapDecoded = (action: string, decoded: unknown): UnwrappedMessage => {
  if (!isEventBridgeEvent(decoded)) return { message: decoded };
  if (decoded['detail-type'] !== action) {
    throw new EnvelopeError(
      'WRONG_DETAIL_TYPE',
      `EventBridge event has detail-type "${decoded['detail-type']}" but this is the ${action} handler`,
    );
  }
  return {
    message: decoded.detail,
    ...(typeof decoded.id === 'string' ? { eventId: decoded.id } : {}),
    ...(typeof decoded.time === 'string' ? { eventTime: decoded.time } : {}),
  };
};

/** Decodes an SQS body and unwraps it. Throws `EnvelopeError` for a body that is not JSON. */
export const unwrapBody = (action: string, body: string): UnwrappedMessage => {
  let decoded: unknown;
  try {
    decoded = JSON.parse(body);
  } catch {
    throw new EnvelopeError(
      'INVALID_JSON',
      `message body is not valid JSON (${Buffer.byteLength(body)} bytes)`,
    );
  }
  return unwrapDecoded(action, decoded);
};

/**
 * The message's own `correlationId` when the contract accepts it. Checked with the contract's
 * own rule (zod counts code points), so an id the schema takes is never swapped for the
 * message id; read even when another field makes the message invalid.
 */
export const declaredCorrelationId = (message: unknown): string | undefined => {
  if (!isRecord(message)) return undefined;
  const parsed = correlationIdRule.safeParse(message.correlationId);
  return parsed.success ? parsed.data : undefined;
};
