/**
 * Assertions shared by the handler tests: what a dead letter must look like in moto, and the
 * structured log line every record leaves.
 */
import { expect } from 'vitest';
import type { ActionName } from '../../../../lambdas/actions';
import type { DeadLetter, Harness } from './handler-harness';

/** The reason attributes every dead letter carries (ports.ts `DeadLetterReason`). */
export const REASON_ATTRIBUTES = [
  'action',
  'correlationId',
  'errorCategory',
  'errorCode',
  'errorMessage',
  'sourceMessageId',
] as const;

export interface ExpectedDeadLetter {
  /** The original body, byte for byte. */
  readonly body: string;
  readonly action: ActionName;
  readonly errorCategory: 'permanent' | 'retryable';
  /** The code, or a pattern when the fault picks one of several (e.g. HTTP 500/502/503). */
  readonly errorCode: string | RegExp;
  readonly sourceMessageId: string;
  /** @default sourceMessageId */
  readonly correlationId?: string;
  /** Substring or pattern the operator-readable reason must match. */
  readonly errorMessage?: string | RegExp;
}

export const expectDeadLetter = (
  letter: DeadLetter | undefined,
  expected: ExpectedDeadLetter,
): void => {
  expect(letter, 'a dead letter in moto').toBeDefined();
  if (!letter) return;
  expect(letter.body).toBe(expected.body);
  expect(Object.keys(letter.attributes).sort()).toEqual([...REASON_ATTRIBUTES]);
  expect(letter.attributes).toMatchObject({
    action: expected.action,
    errorCategory: expected.errorCategory,
    errorCode:
      typeof expected.errorCode === 'string'
        ? expected.errorCode
        : expect.stringMatching(expected.errorCode),
    sourceMessageId: expected.sourceMessageId,
    correlationId: expected.correlationId ?? expected.sourceMessageId,
  });
  const reason = letter.attributes.errorMessage ?? '';
  expect(reason.length).toBeGreaterThan(0);
  if (typeof expected.errorMessage === 'string') expect(reason).toContain(expected.errorMessage);
  else if (expected.errorMessage) expect(reason).toMatch(expected.errorMessage);
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
