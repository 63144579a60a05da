/**
 * The bulk sender's core, apart from reading a file: numbered message bodies sent in batches
 * with bounded parallelism and per-entry retries, every acknowledgement recorded in the
 * checkpoint before the next batch is taken, and what the checkpoint already holds never sent
 * again. `send` (a bulk load) and `reconcile apply` (a plan's repairs) both send through it.
 */

import { intoBatches, type SendBatch } from './batch-target';
import type { Checkpoint } from './checkpoint';
import { type DeliveryResult, deliverBatches, exponentialBackoff } from './deliver';

/** Tries per entry before it is reported as failed. */
export const MAX_ATTEMPTS = 6;

export interface CheckpointedDelivery {
  /** The message bodies, numbered by their index (the checkpoint's numbers). */
  readonly bodies: readonly string[];
  readonly send: SendBatch;
  readonly checkpoint: Checkpoint;
  readonly parallel: number;
  readonly backoffMs?: ((retry: number) => number) | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Told the running count of sent messages (those sent before included). */
  readonly progress?: (sent: number) => void;
}

export interface CheckpointedResult extends DeliveryResult {
  /** Messages the checkpoint held before this run. */
  readonly alreadySent: number;
  /** Messages sent now or before. */
  readonly sent: number;
}

export const deliverWithCheckpoint = async (
  options: CheckpointedDelivery,
): Promise<CheckpointedResult> => {
  const { checkpoint } = options;
  const entries = options.bodies
    .map((body, id) => ({ id, body }))
    .filter((entry) => !checkpoint.has(entry.id));
  const alreadySent = options.bodies.length - entries.length;
  let sent = alreadySent;
  const result = await deliverBatches(
    intoBatches(entries),
    options.send,
    {
      parallel: options.parallel,
      maxAttempts: MAX_ATTEMPTS,
      backoffMs: options.backoffMs ?? exponentialBackoff(200, 5000),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      shouldStop: () => checkpoint.failed,
    },
    {
      acknowledged(ids) {
        sent += ids.length;
        options.progress?.(sent);
        // The next batch waits for this one to be on disk: a crash can resend only batches in flight.
        return checkpoint.record(ids);
      },
    },
  );
  await checkpoint.flush();
  return { ...result, alreadySent, sent };
};
