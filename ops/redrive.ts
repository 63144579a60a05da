/**
 * `dlq redrive`: moves dead letters back to the action's source queue.
 *
 * - With SQS `StartMessageMoveTask` when the DLQ is the source queue's redrive DLQ and no
 *   `--max` is given: SQS moves the messages itself; we poll the task for progress. SQS moves
 *   messages unchanged, so their reason attributes go along (see docs/operations.md).
 * - Otherwise (also when the move task is refused, e.g. by an emulator or a missing
 *   permission) message by message: receive → send a copy without the reason attributes →
 *   delete the original, never deleting before the send succeeded. A failed send leaves the
 *   message in the DLQ; a failed delete after a good send leaves a duplicate. Nothing is lost.
 */
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  type Message,
  type MessageAttributeValue,
  SendMessageCommand,
  type SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import type { ActionName } from '../lambdas/actions';
import {
  approximateVisibleCount,
  INTERRUPTED_EXIT_CODE,
  isDeadLetterAttribute,
  receiveBatch,
  releaseMessages,
} from './dead-letters';
import type { OpsCommand } from './deployment';
import { describeError, isCredentialError, isQueueLevelError } from './errors';
import { writeLine } from './io';
import { createProgress, type Progress } from './progress';

/** Seconds a message being redriven stays invisible to others. */
export const REDRIVE_HOLD_SECONDS = 60;
/** This many failed sends in a row stop the run: the cause is not the message. */
export const MAX_CONSECUTIVE_FAILURES = 5;
/** Default pause between two polls of a move task. */
const MOVE_TASK_POLL_MS = 2_000;

export interface RedriveFailure {
  readonly messageId: string;
  readonly error: string;
}

export interface RedriveResult {
  readonly method: 'move-task' | 'per-message';
  readonly moved: number;
  readonly failed: number;
  readonly failures: readonly RedriveFailure[];
  /** Sent to the source queue but not deleted from the DLQ: now in both. */
  readonly duplicated: number;
  /** Dead-lettered again while this run was going; left in the DLQ for a later run. */
  readonly cameBack: number;
  /** Why the run ended before the DLQ was empty, if it did. */
  readonly stoppedBecause?: string;
}

export interface RedriveOptions {
  readonly sourceQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  /** Move at most this many (forces the per-message path: a move task cannot be bounded). */
  readonly max?: number | undefined;
  /** Use the per-message path even where a move task would apply. */
  readonly perMessage?: boolean;
  readonly signal?: AbortSignal | undefined;
  /** Pause between polls of a move task. */
  readonly pollIntervalMs?: number;
}

const queueAttributes = async (
  sqs: SQSClient,
  queueUrl: string,
): Promise<{ arn: string; deadLetterTargetArn: string | undefined }> => {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['QueueArn', 'RedrivePolicy'],
    }),
  );
  const arn = Attributes.QueueArn;
  if (arn === undefined) throw new Error(`GetQueueAttributes returned no QueueArn for ${queueUrl}`);
  let deadLetterTargetArn: string | undefined;
  try {
    const policy: unknown = JSON.parse(Attributes.RedrivePolicy ?? 'null');
    if (typeof policy === 'object' && policy !== null && 'deadLetterTargetArn' in policy) {
      const target = (policy as { deadLetterTargetArn: unknown }).deadLetterTargetArn;
      deadLetterTargetArn = typeof target === 'string' ? target : undefined;
    }
  } catch {
    deadLetterTargetArn = undefined;
  }
  return { arn, deadLetterTargetArn };
};

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

// ---------------------------------------------------------------------------------------------
// SQS move task
// ---------------------------------------------------------------------------------------------

const FINISHED_STATUSES = new Set(['COMPLETED', 'CANCELLED', 'FAILED']);

/** Runs a move task to its end; undefined when SQS refuses to start one (caller falls back). */
const moveWithTask = async (
  sqs: SQSClient,
  source: { arn: string },
  deadLetterArn: string,
  options: RedriveOptions,
  progress: Progress,
): Promise<RedriveResult | undefined> => {
  try {
    // DestinationArn is explicit: a message the handler sent to the DLQ itself has no
    // "original source" SQS could send it back to.
    await sqs.send(
      new StartMessageMoveTaskCommand({ SourceArn: deadLetterArn, DestinationArn: source.arn }),
    );
  } catch (error) {
    if (isCredentialError(error)) throw error;
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const why = `${error instanceof Error ? error.name : 'Error'}${status === undefined ? '' : `, HTTP ${status}`}`;
    progress.note(
      `SQS StartMessageMoveTask is not available here (${why}); moving messages one by one instead.`,
    );
    return undefined;
  }
  // A new task may take a moment to be listed; give up on it after this many empty polls.
  let unseenPolls = 0;
  for (;;) {
    const { Results = [] } = await sqs.send(
      new ListMessageMoveTasksCommand({ SourceArn: deadLetterArn, MaxResults: 1 }),
    );
    // The most recent task comes first: ours.
    const task = Results[0];
    if (task === undefined) {
      unseenPolls += 1;
      if (unseenPolls >= 5) {
        return {
          method: 'move-task',
          moved: 0,
          failed: 0,
          failures: [],
          duplicated: 0,
          cameBack: 0,
          stoppedBecause:
            'the move task started but SQS does not list it; check the DLQ in the console',
        };
      }
    } else {
      const moved = task.ApproximateNumberOfMessagesMoved ?? 0;
      const toMove = task.ApproximateNumberOfMessagesToMove;
      progress.update({ moved, failed: 0, total: toMove });
      const status = task.Status ?? 'UNKNOWN';
      if (FINISHED_STATUSES.has(status)) {
        const completed = status === 'COMPLETED';
        return {
          method: 'move-task',
          moved,
          failed: completed ? 0 : Math.max(0, (toMove ?? moved) - moved),
          failures: [],
          duplicated: 0,
          cameBack: 0,
          stoppedBecause: completed
            ? undefined
            : `the move task ended ${status}${task.FailureReason ? `: ${task.FailureReason}` : ''}`,
        };
      }
      if (options.signal?.aborted) {
        // The task runs on in SQS; say how to stop it rather than leave the operator guessing.
        return {
          method: 'move-task',
          moved,
          failed: 0,
          failures: [],
          duplicated: 0,
          cameBack: 0,
          stoppedBecause: `interrupted; the move task keeps running in SQS (stop it with \`aws sqs cancel-message-move-task --task-handle ${task.TaskHandle ?? '<handle>'}\`)`,
        };
      }
    }
    await sleep(options.pollIntervalMs ?? MOVE_TASK_POLL_MS, options.signal);
  }
};

// ---------------------------------------------------------------------------------------------
// Message by message
// ---------------------------------------------------------------------------------------------

/** Message attributes to send along: the producer's, without the dead-letter reasons. */
export const attributesWithoutReason = (
  attributes: Record<string, MessageAttributeValue> | undefined,
): Record<string, MessageAttributeValue> | undefined => {
  const kept = Object.entries(attributes ?? {})
    .filter(([name]) => !isDeadLetterAttribute(name))
    .map(([name, value]): [string, MessageAttributeValue] => [
      name,
      // Only the value fields SQS accepts on send (it rejects the reserved list fields).
      value.BinaryValue === undefined
        ? { DataType: value.DataType, StringValue: value.StringValue }
        : { DataType: value.DataType, BinaryValue: value.BinaryValue },
    ]);
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
};

const moveOneByOne = async (
  sqs: SQSClient,
  options: RedriveOptions,
  progress: Progress,
): Promise<RedriveResult> => {
  const { sourceQueueUrl, deadLetterQueueUrl } = options;
  const max = options.max ?? Number.POSITIVE_INFINITY;
  const approximate = await approximateVisibleCount(sqs, deadLetterQueueUrl);
  const total = Math.min(max, approximate);
  // DLQ messages we leave where they are (failed, or came back), by id → newest receipt handle,
  // made visible again at the end.
  const leftInDlq = new Map<string, string>();
  // DLQ message ids sent to the source queue whose delete failed: if seen again, only delete.
  const sentNotDeleted = new Set<string>();
  // Ids of the copies we sent: a dead letter naming one of them came back during this run.
  const sentCopies = new Set<string>();
  const failures: RedriveFailure[] = [];
  let moved = 0;
  let cameBack = 0;
  let consecutiveFailures = 0;
  let stoppedBecause: string | undefined;

  const attempts = (): number => moved + failures.length;
  const report = (): void => progress.update({ moved, failed: failures.length, total });

  try {
    while (stoppedBecause === undefined && attempts() < max) {
      if (options.signal?.aborted) {
        stoppedBecause = 'interrupted';
        break;
      }
      const batch = await receiveBatch(sqs, deadLetterQueueUrl, {
        maxMessages: max - attempts(),
        visibilityTimeout: REDRIVE_HOLD_SECONDS,
        waitSeconds: attempts() < total ? 1 : 0,
      });
      // Messages this run had not seen yet; a batch without any means the DLQ is done.
      let unseen = 0;
      for (const message of batch) {
        const id = message.MessageId ?? '';
        const handle = message.ReceiptHandle ?? '';
        if (!leftInDlq.has(id) && !sentNotDeleted.has(id)) unseen += 1;
        if (stoppedBecause !== undefined || attempts() >= max) {
          // Received but not processed: release it with the others.
          leftInDlq.set(id, handle);
          continue;
        }
        if (leftInDlq.has(id)) {
          leftInDlq.set(id, handle);
          continue;
        }
        if (sentNotDeleted.has(id)) {
          // Its copy is already in the source queue: finish the move, do not send again.
          await sqs
            .send(new DeleteMessageCommand({ QueueUrl: deadLetterQueueUrl, ReceiptHandle: handle }))
            .then(
              () => sentNotDeleted.delete(id),
              () => leftInDlq.set(id, handle),
            );
          continue;
        }
        if (cameBackDuringRun(message, sentCopies)) {
          cameBack += 1;
          leftInDlq.set(id, handle);
          progress.note(
            `Message ${id} was dead-lettered again during this run (copy of one just moved); left in the DLQ.`,
          );
          continue;
        }
        let copyId: string | undefined;
        try {
          const sent = await sqs.send(
            new SendMessageCommand({
              QueueUrl: sourceQueueUrl,
              MessageBody: message.Body ?? '',
              MessageAttributes: attributesWithoutReason(message.MessageAttributes),
            }),
          );
          copyId = sent.MessageId;
        } catch (error) {
          // Not sent: the original stays in the DLQ, untouched.
          const description = describeError(error);
          failures.push({ messageId: id, error: description });
          leftInDlq.set(id, handle);
          consecutiveFailures += 1;
          progress.note(`FAILED ${id}: ${description} (left in the DLQ)`);
          report();
          if (isQueueLevelError(error)) {
            stoppedBecause = `sending to the source queue fails for every message (${description})`;
          } else if (consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) {
            stoppedBecause = `${MAX_CONSECUTIVE_FAILURES} sends failed in a row`;
          }
          continue;
        }
        consecutiveFailures = 0;
        if (copyId !== undefined) sentCopies.add(copyId);
        moved += 1;
        try {
          await sqs.send(
            new DeleteMessageCommand({ QueueUrl: deadLetterQueueUrl, ReceiptHandle: handle }),
          );
        } catch (error) {
          sentNotDeleted.add(id);
          progress.note(
            `Message ${id} was sent to the source queue but could not be deleted from the DLQ (${describeError(error)}); a duplicate stays in the DLQ.`,
          );
        }
        report();
      }
      if (unseen === 0) break;
    }
  } finally {
    await releaseMessages(sqs, deadLetterQueueUrl, [...leftInDlq.values()]);
  }
  return {
    method: 'per-message',
    moved,
    failed: failures.length,
    failures,
    duplicated: sentNotDeleted.size,
    cameBack,
    stoppedBecause,
  };
};

/** A dead letter whose id, or whose `sourceMessageId` reason, is a copy this run sent. */
const cameBackDuringRun = (message: Message, sentCopies: ReadonlySet<string>): boolean =>
  sentCopies.has(message.MessageId ?? '') ||
  sentCopies.has(message.MessageAttributes?.sourceMessageId?.StringValue ?? '');

/** Moves dead letters back; reports progress on `progress`. */
export const redrive = async (
  sqs: SQSClient,
  options: RedriveOptions,
  progress: Progress,
): Promise<RedriveResult> => {
  if (options.max === undefined && !options.perMessage) {
    const [source, deadLetters] = await Promise.all([
      queueAttributes(sqs, options.sourceQueueUrl),
      queueAttributes(sqs, options.deadLetterQueueUrl),
    ]);
    if (source.deadLetterTargetArn === deadLetters.arn) {
      const result = await moveWithTask(sqs, source, deadLetters.arn, options, progress);
      if (result !== undefined) return result;
    } else {
      progress.note(
        "The DLQ is not the source queue's redrive target; moving messages one by one.",
      );
    }
  }
  return moveOneByOne(sqs, options, progress);
};

export interface RedriveCommandOptions {
  readonly action: ActionName;
  readonly max?: number | undefined;
  readonly perMessage: boolean;
}

export const runRedrive: OpsCommand<RedriveCommandOptions> = async (deployment, options, io) => {
  const queues = await deployment.queues(options.action);
  const progress = createProgress(io.stderr, `redrive ${options.action}`);
  let result: RedriveResult;
  try {
    result = await redrive(
      deployment.sqs(),
      {
        sourceQueueUrl: queues.queueUrl,
        deadLetterQueueUrl: queues.deadLetterQueueUrl,
        max: options.max,
        perMessage: options.perMessage,
        signal: io.signal,
      },
      progress,
    );
  } finally {
    progress.finish();
  }
  const extras = [
    result.duplicated > 0 ? `${result.duplicated} also still in the DLQ (duplicates)` : undefined,
    result.cameBack > 0 ? `${result.cameBack} dead-lettered again during the run` : undefined,
  ].filter((text) => text !== undefined);
  writeLine(
    io.stdout,
    `Redrive ${options.action} (${result.method === 'move-task' ? 'SQS move task' : 'message by message'}): moved ${result.moved}, failed ${result.failed}${extras.length > 0 ? `; ${extras.join('; ')}` : ''}.`,
  );
  if (result.failed > 0) {
    writeLine(io.stdout, 'Failed messages are still in the DLQ; nothing was lost.');
  }
  if (result.stoppedBecause !== undefined) {
    writeLine(io.stderr, `Stopped early: ${result.stoppedBecause}.`);
  }
  if (io.signal?.aborted) return INTERRUPTED_EXIT_CODE;
  return result.failed > 0 || result.stoppedBecause !== undefined ? 1 : 0;
};
