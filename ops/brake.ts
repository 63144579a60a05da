/**
 * `brake status | release | discard`: what the mass-delete brakes hold, and the operator's
 * decision about it.
 *
 * - `status`: per destructive action, its limit, the rolling count, since when it is tripped and
 *   how many messages its held queue holds.
 * - `release <action>`: re-arms the brake with a fresh window, then moves the held messages back
 *   to the action's source queue at `--rate` per second, marked as released (the brake neither
 *   counts nor holds them again); the entity ledger still orders them, so a delete older than a
 *   later re-add is skipped as stale.
 * - `discard <action>`: moves them to the action's DLQ with the reason `DISCARDED_BY_OPERATOR`
 *   (readable by `dlq list`, redrivable) and re-arms the brake unless `--keep-tripped`.
 *
 * A held message is deleted only after its copy was sent: a failed send leaves it held.
 */
import {
  DeleteMessageCommand,
  type Message,
  type MessageAttributeValue,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type ActionName, BRAKED_ACTIONS } from '../lambdas/actions';
import { DynamoDbBrakeStore } from '../lambdas/core/aws/dynamodb-brake-store';
import { deadLetterAttributes } from '../lambdas/core/aws/sqs-dead-letter-sink';
import { type HELD_NOTE_ATTRIBUTES, isProducerAttribute } from '../lambdas/core/aws/sqs-held-queue';
import {
  BRAKE_RELEASED_ATTRIBUTE,
  type BrakeLimit,
  rollingCount,
  windowStartOf,
} from '../lambdas/core/resilience/mass-delete-brake';
import { deleteBrakeFor } from '../lib/config';
import { actionOutputKeys, LEDGER_TABLE_OUTPUT_KEY } from '../lib/stack-outputs';
import { counted } from './counted';
import {
  approximateVisibleCount,
  INTERRUPTED_EXIT_CODE,
  receiveBatch,
  releaseMessages,
} from './dead-letters';
import type { Deployment, OpsCommand } from './deployment';
import { describeError, isQueueLevelError, OpsError } from './errors';
import { type OpsIo, writeLine } from './io';
import { createProgress, type Progress } from './progress';
import { type ActionQueues, requireOutput } from './stack-outputs';

/** Reason code of a held message an operator discarded. */
export const DISCARDED_BY_OPERATOR = 'DISCARDED_BY_OPERATOR';
/** Default pace of a release: messages per second sent back to the source queue. */
export const DEFAULT_RELEASE_RATE = 10;
/** Seconds a message being moved stays invisible to others. */
const MOVE_HOLD_SECONDS = 60;
/** This many failed sends in a row stop a move: the cause is not the message. */
const MAX_CONSECUTIVE_FAILURES = 5;

const brakeOf = (deployment: Deployment, action: ActionName): BrakeLimit | undefined => {
  const settings = deleteBrakeFor(deployment.config, action);
  return settings === undefined
    ? undefined
    : { limit: settings.limit, windowMs: settings.windowMinutes * 60_000 };
};

const brakeStore = async (deployment: Deployment): Promise<DynamoDbBrakeStore> =>
  new DynamoDbBrakeStore({
    tableName: requireOutput(
      await deployment.outputs(),
      LEDGER_TABLE_OUTPUT_KEY,
      'Was the stack deployed from this version of contact-center-sync?',
    ),
    client: deployment.dynamoDb(),
  });

const heldQueueUrl = async (deployment: Deployment, action: ActionName): Promise<string> =>
  requireOutput(
    await deployment.outputs(),
    actionOutputKeys(action).heldQueueUrl,
    `Is deleteBrake.${action}.enabled true in config/${deployment.configName}.json and the stack deployed from this version?`,
  );

/** The action's brake settings; a clear error when it has none. */
const requireBrake = (deployment: Deployment, action: ActionName): BrakeLimit => {
  const brake = brakeOf(deployment, action);
  if (brake !== undefined) return brake;
  if (!BRAKED_ACTIONS.includes(action)) {
    throw new OpsError(
      `${action} has no mass-delete brake (it removes nothing). Actions with one: ${BRAKED_ACTIONS.join(', ')}.`,
    );
  }
  throw new OpsError(
    `The ${action} brake is off in config/${deployment.configName}.json (deleteBrake.${action}.enabled, or the action is disabled).`,
  );
};

const describeLimit = ({ limit, windowMs }: BrakeLimit): string =>
  `${limit} per ${windowMs / 60_000} min`;

/** Re-arms with a fresh window of the length the functions count in. */
const rearm = async (
  store: DynamoDbBrakeStore,
  action: ActionName,
  brake: BrakeLimit,
  now: number,
): Promise<void> => {
  const windowMs = (await store.read(action))?.windowMs ?? brake.windowMs;
  await store.rearm(action, windowStartOf(now, windowMs), now);
};

const ago = (ms: number): string => {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 6) / 10;
  return `${hours} h ago`;
};

// ---------------------------------------------------------------------------------------------
// status
// ---------------------------------------------------------------------------------------------

export interface BrakeStatusOptions {
  /** One action; all destructive actions when absent. */
  readonly action?: ActionName | undefined;
  readonly now?: () => number;
}

export const runBrakeStatus: OpsCommand<BrakeStatusOptions> = async (deployment, options, io) => {
  const now = (options.now ?? Date.now)();
  const actions = options.action === undefined ? BRAKED_ACTIONS : [options.action];
  if (options.action !== undefined) requireBrake(deployment, options.action);
  const store = await brakeStore(deployment);
  let holding = 0;
  let failed = false;
  for (const action of actions) {
    const brake = brakeOf(deployment, action);
    if (brake === undefined) {
      writeLine(io.stdout, `${action}: brake off (deleteBrake.${action}.enabled or the action)`);
      continue;
    }
    let url: string;
    try {
      url = await heldQueueUrl(deployment, action);
    } catch (error) {
      // One action the stack lacks (deployed before its brake) does not hide the others.
      if (!(error instanceof OpsError)) throw error;
      writeLine(io.stdout, `${action}: cannot show (${error.message})`);
      failed = true;
      continue;
    }
    const [state, held] = await Promise.all([
      store.read(action),
      approximateVisibleCount(deployment.sqs(), url),
    ]);
    holding += held;
    const tripped = state?.trippedAt;
    // What the functions count against (they note it in the item); the config may be newer.
    const inForce: BrakeLimit = {
      limit: state?.limit ?? brake.limit,
      windowMs: state?.windowMs ?? brake.windowMs,
    };
    const differs = inForce.limit !== brake.limit || inForce.windowMs !== brake.windowMs;
    writeLine(
      io.stdout,
      `${action}: ${tripped === undefined ? 'armed' : `TRIPPED since ${new Date(tripped).toISOString()} (${ago(now - tripped)})`}`,
    );
    writeLine(
      io.stdout,
      `  limit              ${describeLimit(inForce)}${differs ? ` (config/${deployment.configName}.json says ${describeLimit(brake)}: not deployed yet?)` : ''}`,
    );
    writeLine(io.stdout, `  counted in window  ${rollingCount(state, inForce, now)}`);
    writeLine(io.stdout, `  held               ${held}`);
    if (state?.rearmedAt !== undefined) {
      writeLine(io.stdout, `  last re-armed      ${new Date(state.rearmedAt).toISOString()}`);
    }
    if (held > 0) {
      writeLine(
        io.stdout,
        `  decide: npm run ops -- brake release ${action}   or   npm run ops -- brake discard ${action}`,
      );
    }
  }
  if (holding > 0) {
    writeLine(
      io.stdout,
      `${counted(holding, 'message')} held; nothing is applied until you decide.`,
    );
  }
  return failed ? 1 : 0;
};

// ---------------------------------------------------------------------------------------------
// Moving held messages
// ---------------------------------------------------------------------------------------------

export interface MoveResult {
  readonly moved: number;
  readonly failed: number;
  /** Sent but not deleted from the held queue: now in both. */
  readonly duplicated: number;
  readonly stoppedBecause?: string | undefined;
}

/** A held message's copy: the queue it goes to and its attributes (the body stays as it is). */
interface HeldCopy {
  readonly queueUrl: string;
  readonly attributes: Record<string, MessageAttributeValue>;
}

export interface MoveOptions {
  readonly heldQueueUrl: string;
  /** Where one held message goes (queue, body, attributes). */
  readonly copy: (message: Message) => HeldCopy;
  readonly max?: number | undefined;
  /** Messages per second at most. @default unpaced */
  readonly ratePerSecond?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Moves held messages one by one: receive, send the copy, then delete the original. A failed
 * send leaves the message held (made visible again at the end); nothing is lost.
 */
export const moveHeld = async (
  sqs: SQSClient,
  options: MoveOptions,
  progress: Progress,
): Promise<MoveResult> => {
  const max = options.max ?? Number.POSITIVE_INFINITY;
  const total = Math.min(max, await approximateVisibleCount(sqs, options.heldQueueUrl));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const interval = options.ratePerSecond === undefined ? 0 : 1000 / options.ratePerSecond;
  const left = new Map<string, string>();
  const sentNotDeleted = new Set<string>();
  let moved = 0;
  let failed = 0;
  let consecutive = 0;
  let stoppedBecause: string | undefined;
  let nextSendAt = 0;
  try {
    while (stoppedBecause === undefined && moved + failed < max) {
      if (options.signal?.aborted) {
        stoppedBecause = 'interrupted';
        break;
      }
      const batch = await receiveBatch(sqs, options.heldQueueUrl, {
        maxMessages: max - moved - failed,
        visibilityTimeout: MOVE_HOLD_SECONDS,
        waitSeconds: moved + failed < total ? 1 : 0,
      });
      let unseen = 0;
      for (const message of batch) {
        const id = message.MessageId ?? '';
        const handle = message.ReceiptHandle ?? '';
        if (left.has(id) || sentNotDeleted.has(id)) {
          left.set(id, handle);
          continue;
        }
        unseen += 1;
        if (stoppedBecause !== undefined || moved + failed >= max || options.signal?.aborted) {
          left.set(id, handle);
          continue;
        }
        const wait = nextSendAt - Date.now();
        if (wait > 0) await sleep(wait);
        nextSendAt = Math.max(nextSendAt, Date.now()) + interval;
        const target = options.copy(message);
        try {
          await sqs.send(
            new SendMessageCommand({
              QueueUrl: target.queueUrl,
              MessageBody: message.Body ?? '',
              MessageAttributes: target.attributes,
            }),
          );
        } catch (error) {
          failed += 1;
          consecutive += 1;
          left.set(id, handle);
          progress.note(`FAILED ${id}: ${describeError(error)} (still held)`);
          if (isQueueLevelError(error))
            stoppedBecause = `sending fails for every message (${describeError(error)})`;
          else if (consecutive >= MAX_CONSECUTIVE_FAILURES)
            stoppedBecause = `${MAX_CONSECUTIVE_FAILURES} sends failed in a row`;
          progress.update({ moved, failed, total });
          continue;
        }
        consecutive = 0;
        moved += 1;
        try {
          await sqs.send(
            new DeleteMessageCommand({ QueueUrl: options.heldQueueUrl, ReceiptHandle: handle }),
          );
        } catch (error) {
          sentNotDeleted.add(id);
          progress.note(
            `Message ${id} was sent but could not be deleted from the held queue (${describeError(error)}); a duplicate stays held.`,
          );
        }
        progress.update({ moved, failed, total });
      }
      if (unseen === 0) break;
    }
  } finally {
    await releaseMessages(sqs, options.heldQueueUrl, [...left.values()]);
  }
  return { moved, failed, duplicated: sentNotDeleted.size, stoppedBecause };
};

/** The producer's attributes of a held message: without the held note or an earlier release. */
export const producerAttributesOf = (message: Message): Record<string, MessageAttributeValue> =>
  Object.fromEntries(
    Object.entries(message.MessageAttributes ?? {})
      .filter(([name]) => isProducerAttribute(name))
      .map(([name, value]): [string, MessageAttributeValue] => [
        name,
        value.BinaryValue === undefined
          ? { DataType: value.DataType, StringValue: value.StringValue }
          : { DataType: value.DataType, BinaryValue: value.BinaryValue },
      ]),
  );

const noteOf = (
  message: Message,
  name: (typeof HELD_NOTE_ATTRIBUTES)[number],
): string | undefined => message.MessageAttributes?.[name]?.StringValue;

const summarise = (io: OpsIo, verb: string, action: ActionName, result: MoveResult): number => {
  writeLine(
    io.stdout,
    `${verb} ${action}: moved ${result.moved}, failed ${result.failed}${result.duplicated > 0 ? `; ${result.duplicated} also still held (duplicates)` : ''}.`,
  );
  if (result.failed > 0) writeLine(io.stdout, 'Failed messages are still held; nothing was lost.');
  if (result.stoppedBecause !== undefined) {
    writeLine(io.stderr, `Stopped early: ${result.stoppedBecause}.`);
  }
  if (io.signal?.aborted) return INTERRUPTED_EXIT_CODE;
  return result.failed > 0 || result.stoppedBecause !== undefined ? 1 : 0;
};

// ---------------------------------------------------------------------------------------------
// release, discard
// ---------------------------------------------------------------------------------------------

export interface BrakeReleaseOptions {
  readonly action: ActionName;
  readonly ratePerSecond: number;
  readonly max?: number | undefined;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface BrakeDiscardOptions {
  readonly action: ActionName;
  readonly max?: number | undefined;
  /** Leave the brake tripped: the source is still sending wrong deletes. */
  readonly keepTripped: boolean;
  readonly now?: () => number;
}

/** What release and discard share: re-arm the brake, then move the held messages somewhere. */
interface HeldMove extends Omit<MoveOptions, 'heldQueueUrl' | 'copy' | 'signal'> {
  readonly verb: 'release' | 'discard';
  readonly action: ActionName;
  readonly rearm: boolean;
  readonly now?: (() => number) | undefined;
  /** Where one held message goes, given the action's queues and this command's time. */
  readonly copy: (message: Message, queues: ActionQueues, at: string) => HeldCopy;
}

const moveHeldOf = async (
  deployment: Deployment,
  move: HeldMove,
  io: OpsIo,
): Promise<MoveResult> => {
  const brake = requireBrake(deployment, move.action);
  const now = (move.now ?? Date.now)();
  const [store, held, queues] = await Promise.all([
    brakeStore(deployment),
    heldQueueUrl(deployment, move.action),
    deployment.queues(move.action),
  ]);
  if (move.rearm) {
    // First: messages arriving from now on are counted afresh, not held behind this move.
    await rearm(store, move.action, brake, now);
    writeLine(io.stderr, `Re-armed the ${move.action} brake with a fresh window.`);
  }
  const at = new Date(now).toISOString();
  const progress = createProgress(io.stderr, `${move.verb} ${move.action}`);
  try {
    return await moveHeld(
      deployment.sqs(),
      {
        heldQueueUrl: held,
        copy: (message) => move.copy(message, queues, at),
        max: move.max,
        ratePerSecond: move.ratePerSecond,
        signal: io.signal,
        ...(move.sleep ? { sleep: move.sleep } : {}),
      },
      progress,
    );
  } finally {
    progress.finish();
  }
};

/** Released: back to the source queue, marked so the brake neither counts nor holds it again. */
const releasedCopy = (message: Message, queues: ActionQueues, releasedAt: string): HeldCopy => ({
  queueUrl: queues.queueUrl,
  attributes: {
    ...producerAttributesOf(message),
    [BRAKE_RELEASED_ATTRIBUTE]: { DataType: 'String', StringValue: releasedAt },
  },
});

/** Discarded: to the DLQ with the reason, like any dead letter, so it can still be redriven. */
const discardedCopy =
  (action: ActionName) =>
  (message: Message, queues: ActionQueues, discardedAt: string): HeldCopy => {
    const heldAt = noteOf(message, 'heldAt') ?? 'an unknown time';
    const why = noteOf(message, 'heldReason');
    const reason = deadLetterAttributes({
      action,
      errorCategory: 'permanent',
      errorCode: DISCARDED_BY_OPERATOR,
      errorMessage: `held by the mass-delete brake at ${heldAt}${why === undefined ? '' : ` (${why})`}; discarded by an operator at ${discardedAt} (npm run ops -- brake discard)`,
      sourceMessageId: noteOf(message, 'sourceMessageId') ?? message.MessageId ?? '',
      correlationId: noteOf(message, 'correlationId') ?? noteOf(message, 'sourceMessageId') ?? '',
    });
    // The reason first: with the producer's attributes it may not exceed SQS's 10.
    const kept = Object.entries(producerAttributesOf(message)).slice(
      0,
      10 - Object.keys(reason).length,
    );
    return {
      queueUrl: queues.deadLetterQueueUrl,
      attributes: { ...Object.fromEntries(kept), ...reason },
    };
  };

export const runBrakeRelease: OpsCommand<BrakeReleaseOptions> = async (deployment, options, io) => {
  const move = { ...options, verb: 'release', rearm: true, copy: releasedCopy } as const;
  return summarise(io, 'Release', options.action, await moveHeldOf(deployment, move, io));
};

export const runBrakeDiscard: OpsCommand<BrakeDiscardOptions> = async (deployment, options, io) => {
  const copy = discardedCopy(options.action);
  const move = { ...options, verb: 'discard', rearm: !options.keepTripped, copy } as const;
  const result = await moveHeldOf(deployment, move, io);
  if (options.keepTripped) {
    writeLine(io.stderr, `The ${options.action} brake stays tripped: new deletes are still held.`);
  }
  return summarise(io, 'Discard', options.action, result);
};
