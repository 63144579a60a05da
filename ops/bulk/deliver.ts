/**
 * Sends batches with bounded parallelism. A batch's rejected entries are retried on their own,
 * with exponential backoff, up to a number of attempts; an entry given up on is reported, never
 * dropped in silence. A call that fails as a whole is retried the same way, unless the error
 * says no call can succeed (credentials, a missing queue): then the load stops.
 */
import { describeError, isQueueLevelError } from '../errors';
import type { BatchEntry, EntryFailure, SendBatch } from './batch-target';

export interface DeliveryOptions {
  /** Batches in flight at once. */
  readonly parallel: number;
  /** Tries per entry, the first included. */
  readonly maxAttempts: number;
  /** Wait before retry number `retry` (1-based), in ms. */
  readonly backoffMs: (retry: number) => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Stops taking new batches; the batches in flight finish. */
  readonly signal?: AbortSignal;
  /** Checked before each batch: true stops the load (e.g. the checkpoint cannot be written). */
  readonly shouldStop?: () => boolean;
}

export interface DeliveryEvents {
  /** Entries the service took; the batch's next step waits for the returned promise. */
  acknowledged(ids: readonly number[]): void | Promise<void>;
  /** Entries about to be sent again. */
  retrying?(failures: readonly EntryFailure[]): void;
}

export interface DeliveryResult {
  readonly acknowledged: number;
  /** Entry retries made (an entry retried twice counts twice). */
  readonly retried: number;
  /** Entries given up on, with the last reason. */
  readonly failed: readonly EntryFailure[];
  /** The error that stopped the load, when one did. */
  readonly stoppedBy?: string;
  /** Batches never started (stopped or aborted). */
  readonly notStarted: number;
}

export const exponentialBackoff =
  (baseMs: number, capMs: number) =>
  (retry: number): number =>
    Math.min(capMs, baseMs * 2 ** (retry - 1)) * (0.5 + Math.random() / 2);

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const deliverBatches = async (
  batches: readonly (readonly BatchEntry[])[],
  send: SendBatch,
  options: DeliveryOptions,
  events: DeliveryEvents,
): Promise<DeliveryResult> => {
  const sleep = options.sleep ?? wait;
  let next = 0;
  let acknowledged = 0;
  let retried = 0;
  const failed: EntryFailure[] = [];
  let stoppedBy: string | undefined;

  const deliverOne = async (batch: readonly BatchEntry[]): Promise<void> => {
    let pending = batch;
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      let failures: EntryFailure[];
      try {
        failures = await send(pending);
      } catch (error) {
        if (isQueueLevelError(error)) {
          stoppedBy ??= describeError(error);
          failures = pending.map((e) => ({
            id: e.id,
            code: 'Stopped',
            message: describeError(error),
            retryable: false,
          }));
        } else {
          const name = error instanceof Error ? error.name : 'Error';
          failures = pending.map((e) => ({
            id: e.id,
            code: name,
            message: describeError(error),
            retryable: true,
          }));
        }
      }
      const failedIds = new Set(failures.map((f) => f.id));
      const taken = pending.filter((e) => !failedIds.has(e.id)).map((e) => e.id);
      if (taken.length > 0) {
        acknowledged += taken.length;
        await events.acknowledged(taken);
      }
      const again = failures.filter((f) => f.retryable && attempt < options.maxAttempts);
      failed.push(...failures.filter((f) => !(f.retryable && attempt < options.maxAttempts)));
      if (again.length === 0 || stoppedBy !== undefined) {
        if (stoppedBy !== undefined) {
          failed.push(...again.map((f) => ({ ...f, retryable: false })));
        }
        return;
      }
      retried += again.length;
      events.retrying?.(again);
      await sleep(options.backoffMs(attempt));
      const retryIds = new Set(again.map((f) => f.id));
      pending = pending.filter((e) => retryIds.has(e.id));
    }
  };

  const worker = async (): Promise<void> => {
    while (next < batches.length) {
      if (stoppedBy !== undefined || options.signal?.aborted || options.shouldStop?.()) return;
      const batch = batches[next] as readonly BatchEntry[];
      next += 1;
      await deliverOne(batch);
    }
  };

  const workers = Math.max(1, Math.min(options.parallel, batches.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return {
    acknowledged,
    retried,
    failed,
    notStarted: batches.length - next,
    ...(stoppedBy === undefined ? {} : { stoppedBy }),
  };
};
