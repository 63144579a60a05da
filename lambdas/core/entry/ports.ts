/**
 * The AWS-facing pieces of a handler, as small interfaces. Lambda entry points wire the AWS
 * SDK implementations (`aws/`); the local run and tests wire in-memory ones.
 */

/** Both specs: the rotating API key must not be cached longer than one hour. */
export const MAX_API_KEY_MAX_AGE_SECONDS = 3600;

/** Source of the platform API key (rotating secret). */
export interface ApiKeySource {
  /** The current key; served from cache within its max age. */
  getKey(): Promise<string>;
  /**
   * Called after the platform rejected `rejectedKey` (HTTP 401 / UNAUTHORIZED). Fetches a fresh
   * key unless another caller already replaced `rejectedKey`; concurrent callers share one fetch.
   */
  refreshKey(rejectedKey: string): Promise<string>;
}

/** Message attributes attached to every dead letter so an operator can read why it is there. */
export interface DeadLetterReason {
  readonly action: string;
  /** `permanent`, or `retryable` when the last receive was reached. */
  readonly errorCategory: 'permanent' | 'retryable';
  readonly errorCode: string;
  readonly errorMessage: string;
  /** SQS message id, EventBridge event id, or the correlation id for direct invocations. */
  readonly sourceMessageId: string;
  readonly correlationId: string;
}

export interface DeadLetterSink {
  /** Sends the original body unchanged with the reason as message attributes. Throws on failure. */
  send(body: string, reason: DeadLetterReason): Promise<void>;
}

/** Result of a read action, published on the result bus. */
export interface ResultEvent {
  readonly action: string;
  readonly correlationId: string;
  readonly request: unknown;
  readonly result: unknown;
}

export interface ResultPublisher {
  /** Publishes one result event (`detail-type` `<action>.result`). Throws on failure. */
  publish(event: ResultEvent): Promise<void>;
}

/** Sets when a failed SQS message is received again (its visibility timeout). */
export interface Rescheduler {
  /** Makes the message with this receipt handle visible again in `delaySeconds`. Throws on failure. */
  reschedule(receiptHandle: string, delaySeconds: number): Promise<void>;
}

/** A message attribute as SQS delivers it to Lambda (`SQSRecord.messageAttributes`). */
export interface ForwardedAttribute {
  readonly dataType: string;
  readonly stringValue?: string | undefined;
  readonly binaryValue?: string | undefined;
}

/** A destructive message the mass-delete brake holds, with what an operator needs to decide. */
export interface HeldMessage {
  /** The original body, unchanged. */
  readonly body: string;
  readonly correlationId: string;
  readonly sourceMessageId: string;
  /** Why it is held (the brake tripped at …, or its count could not be read). */
  readonly reason: string;
  /** The producer's message attributes, kept for the release. */
  readonly attributes?: Readonly<Record<string, ForwardedAttribute>>;
}

export interface HeldMessageSink {
  /** Parks the message until an operator releases or discards it. Throws on failure. */
  hold(message: HeldMessage): Promise<void>;
}
