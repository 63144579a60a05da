import type { SQSBatchResponse } from 'aws-lambda';

/** The ids the handler reported as batch item failures; fails on anything else it returned. */
export const failedIds = (response: unknown): string[] => {
  const batch = response as SQSBatchResponse | undefined;
  if (!batch || !Array.isArray(batch.batchItemFailures)) {
    throw new Error(`not an SQS batch response: ${JSON.stringify(response)}`);
  }
  return batch.batchItemFailures.map((failure) => failure.itemIdentifier).sort();
};
