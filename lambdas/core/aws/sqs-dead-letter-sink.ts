import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { DeadLetterReason, DeadLetterSink } from '../entry/ports';
import { SqsQueue, type SqsQueueOptions } from './sqs-queue';

/** Longest `errorMessage` attribute, in code points; the rest is cut and marked with `…`. */
export const MAX_ERROR_MESSAGE_LENGTH = 1024;
/** Longest value of the other (id-like) attributes, in code points. */
export const MAX_REASON_VALUE_LENGTH = 256;

/**
 * Characters SQS rejects in attribute values: anything outside #x9 | #xA | #xD | #x20–#xD7FF |
 * #xE000–#xFFFD | #x10000–#x10FFFF (lone surrogates are made well-formed before this runs).
 */
const INVALID_SQS_CHARACTERS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** A value SQS accepts: valid characters only, non-empty, at most `maxLength` code points. */
export const sqsAttributeValue = (value: string, maxLength: number): string => {
  const clean = value.toWellFormed().replace(INVALID_SQS_CHARACTERS, '\uFFFD');
  const codePoints = Array.from(clean);
  const bounded =
    codePoints.length > maxLength ? `${codePoints.slice(0, maxLength - 1).join('')}…` : clean;
  // SQS rejects empty String attributes; a placeholder keeps the attribute set complete.
  return bounded === '' ? '(empty)' : bounded;
};

/** The reason as SQS String message attributes (names are the `DeadLetterReason` fields). */
export const deadLetterAttributes = (
  reason: DeadLetterReason,
): Record<keyof DeadLetterReason, MessageAttributeValue> => {
  const attribute = (
    value: string,
    maxLength = MAX_REASON_VALUE_LENGTH,
  ): MessageAttributeValue => ({
    DataType: 'String',
    StringValue: sqsAttributeValue(value, maxLength),
  });
  return {
    action: attribute(reason.action),
    errorCategory: attribute(reason.errorCategory),
    errorCode: attribute(reason.errorCode),
    errorMessage: attribute(reason.errorMessage, MAX_ERROR_MESSAGE_LENGTH),
    sourceMessageId: attribute(reason.sourceMessageId),
    correlationId: attribute(reason.correlationId),
  };
};

/** Sends the original body unchanged to the DLQ, with the reason as message attributes. */
export class SqsDeadLetterSink implements DeadLetterSink {
  readonly #queue: SqsQueue;

  constructor(options: SqsQueueOptions) {
    this.#queue = new SqsQueue(options);
  }

  send(body: string, reason: DeadLetterReason): Promise<void> {
    return this.#queue.send(body, deadLetterAttributes(reason));
  }
}
