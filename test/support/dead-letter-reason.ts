import type { DeadLetterReason } from '../../lambdas/core/entry/ports';

/**
 * The reason attributes every dead letter carries (ports.ts `DeadLetterReason`), sorted: spelled
 * out here, not taken from the code, so that a test notices when the code drops or adds one.
 */
export const REASON_ATTRIBUTES = [
  'action',
  'correlationId',
  'errorCategory',
  'errorCode',
  'errorMessage',
  'sourceMessageId',
] as const;

/** The reason a handler gives for an invalid add-user message; `overrides` replaces fields. */
export const deadLetterReason = (overrides: Partial<DeadLetterReason> = {}): DeadLetterReason => ({
  action: 'add-user',
  errorCategory: 'permanent',
  errorCode: 'INVALID_ARGUMENTS',
  errorMessage: 'userName: must be an e-mail address',
  sourceMessageId: 'f3b6c7a2-5a0e-4a55-9b0e-2d1f3c4b5a69',
  correlationId: 'corr-42',
  ...overrides,
});
