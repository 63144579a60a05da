/**
 * Assertions shared by the handler tests: what a dead letter must look like in moto, what a
 * mixed batch leaves (dead letters by code, result events by status), and the structured log
 * line every record leaves.
 */
import type { SQSRecord } from 'aws-lambda';
import { expect } from 'vitest';
import type { ActionName } from '../../../../lambdas/actions';
import type { EventBridgeEvent } from '../../../../testkit';
import { REASON_ATTRIBUTES } from '../../../support/dead-letter-reason';
import type { DeadLetter, DeliveredEvent, Harness } from './handler-harness';

/**
 * What was dead-lettered: an SQS record (its body and message id), or an event the function
 * got directly (the whole event is the body, its id the source id).
 */
export type DeadLetterSource = SQSRecord | EventBridgeEvent;

export interface ExpectedDeadLetter {
  /** The body must be the source's, byte for byte, and `sourceMessageId` its id. */
  readonly source: DeadLetterSource;
  readonly action: ActionName;
  readonly errorCategory: 'permanent' | 'retryable';
  /** The code, or a pattern when the fault picks one of several (e.g. HTTP 500/502/503). */
  readonly errorCode: string | RegExp;
  /** @default the source's id */
  readonly correlationId?: string;
  /** Substring or pattern the operator-readable reason must match. */
  readonly errorMessage?: string | RegExp;
}

const bodyAndIdOf = (source: DeadLetterSource): { body: string; id: string } =>
  'messageId' in source
    ? { body: source.body, id: source.messageId }
    : { body: JSON.stringify(source), id: source.id };

export const expectDeadLetter = (
  letter: DeadLetter | undefined,
  expected: ExpectedDeadLetter,
): void => {
  const source = bodyAndIdOf(expected.source);
  expect(letter, 'a dead letter in moto').toBeDefined();
  if (!letter) return;
  expect(letter.body).toBe(source.body);
  expect(Object.keys(letter.attributes).sort()).toEqual([...REASON_ATTRIBUTES]);
  expect(letter.attributes).toMatchObject({
    action: expected.action,
    errorCategory: expected.errorCategory,
    errorCode:
      typeof expected.errorCode === 'string'
        ? expected.errorCode
        : expect.stringMatching(expected.errorCode),
    sourceMessageId: source.id,
    correlationId: expected.correlationId ?? source.id,
  });
  const reason = letter.attributes.errorMessage ?? '';
  expect(reason.length).toBeGreaterThan(0);
  if (typeof expected.errorMessage === 'string') expect(reason).toContain(expected.errorMessage);
  else if (expected.errorMessage) expect(reason).toMatch(expected.errorMessage);
};

/** Reads the first dead letter in moto, checks it as `expectDeadLetter` does, and returns it. */
export const expectDeadLettered = async (
  harness: Harness,
  expected: ExpectedDeadLetter,
): Promise<DeadLetter | undefined> => {
  const [letter] = await harness.deadLetters(1);
  expectDeadLetter(letter, expected);
  return letter;
};

/** Dead letters keyed by the SQS message id / event id they came from. */
export const bySource = (letters: readonly DeadLetter[]): Map<string, DeadLetter> =>
  new Map(letters.map((letter) => [letter.attributes.sourceMessageId ?? '', letter]));

/** The final log line of each record (the one with its outcome `code`), keyed by correlation id. */
export const outcomeLines = (harness: Harness): Map<string, Record<string, unknown>> =>
  new Map(
    harness.output
      .jsonLines()
      .filter((line) => typeof line.code === 'string' && 'receiveCount' in line)
      .map((line) => [String(line.correlationId), line]),
  );

/**
 * Reads as many dead letters as `codes` names and checks that they are exactly these sources
 * with these error codes (a mixed batch). Returns them keyed by source id for further checks.
 */
export const expectDeadLetterCodes = async (
  harness: Harness,
  codes: Readonly<Record<string, string>>,
): Promise<Map<string, DeadLetter>> => {
  const letters = bySource(await harness.deadLetters(Object.keys(codes).length));
  expect([...letters].map(([id, letter]) => [id, letter.attributes.errorCode]).sort()).toEqual(
    Object.entries(codes).sort(),
  );
  return letters;
};

/**
 * Reads as many result events as `statuses` names and checks that they answer exactly these
 * correlation ids with these result statuses (a mixed batch of a read action).
 */
export const expectResultStatuses = async (
  harness: Harness,
  statuses: Readonly<Record<string, string>>,
): Promise<DeliveredEvent[]> => {
  const events = await harness.resultEvents(Object.keys(statuses).length);
  expect(
    events
      .map((event) => [
        event.detail.correlationId,
        (event.detail.result as { status: string }).status,
      ])
      .sort(),
  ).toEqual(Object.entries(statuses).sort());
  return events;
};
