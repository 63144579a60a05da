/**
 * `send --bulk` (implied for JSON Lines and CSV): a bulk load. Every line is validated before
 * anything is sent; messages are stamped (correlation id from file and line, `occurredAt`),
 * sent ten a call with bounded parallelism, retried per entry, checkpointed after every
 * acknowledgement, and summed up at the end.
 */
import { createHash } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { type ActionName, parseMessage } from '../../lambdas/actions';
import {
  decodeInput,
  formatOf,
  type InputFormat,
  positionLabel,
} from '../../lambdas/input/input-format';
import { counted } from '../counted';
import type { Deployment, OpsCommand } from '../deployment';
import { OpsError, UsageError } from '../errors';
import { writeLine } from '../io';
import { createProgress } from '../progress';
import { chooseSource } from '../send';
import { eventBusName } from '../stack-outputs';
import { busBatchSender, queueBatchSender, type SendBatch } from './batch-target';
import { Checkpoint, checkIdentity, type LoadIdentity, readCheckpoint } from './checkpoint';
import { deliverWithCheckpoint } from './checkpointed-delivery';
import { loadStamp, stampMessage } from './stamp';

export const DEFAULT_PARALLEL = 8;
export const MAX_PARALLEL = 64;
/** Options that only a bulk load takes: each implies --bulk. */
export const BULK_OPTIONS = ['skip-invalid', 'checkpoint', 'parallel', 'exported-at'] as const;

export interface BulkSendOptions {
  readonly action: ActionName;
  /** A file path; a bulk load needs a file to checkpoint against. */
  readonly input: string;
  readonly eventBus: boolean;
  readonly source?: string | undefined;
  /** Default: from the file's extension. */
  readonly format?: InputFormat | undefined;
  /** Write rejected lines here and send the rest; without it any bad line stops the load. */
  readonly skipInvalid?: string | undefined;
  /** Default `<input>.checkpoint.json`. */
  readonly checkpoint?: string | undefined;
  /** Batches in flight at once. */
  readonly parallel: number;
  /** `occurredAt` for messages without one; default the file's modification time. */
  readonly exportedAt?: string | undefined;
  /** Backoff between retries, for tests. */
  readonly backoffMs?: (retry: number) => number;
}

interface Reject {
  readonly position: number;
  readonly reason: string;
}

const parseExportedAt = (value: string): string => {
  const time = Date.parse(value);
  if (Number.isNaN(time)) {
    throw new UsageError(
      `--exported-at must be a date and time such as 2026-11-24T09:30:00Z, got "${value}"`,
    );
  }
  return new Date(time).toISOString();
};

const readBulkInput = async (input: string): Promise<{ text: string; modifiedAt: string }> => {
  try {
    const [bytes, info] = await Promise.all([readFile(input), stat(input)]);
    return { text: bytes.toString('utf8'), modifiedAt: info.mtime.toISOString() };
  } catch (error) {
    throw new OpsError(`Cannot read ${input}: ${(error as Error).message}`);
  }
};

/** Each reject as a JSON line: where and why, never the values (they may be personal data). */
const writeRejects = async (
  file: string,
  label: (n: number) => string,
  rejects: readonly Reject[],
) => {
  const lines = rejects.map((r) =>
    JSON.stringify({ line: r.position, where: label(r.position), reason: r.reason }),
  );
  try {
    await writeFile(file, lines.length === 0 ? '' : `${lines.join('\n')}\n`, { mode: 0o600 });
  } catch (error) {
    throw new OpsError(`Cannot write the rejects to ${file}: ${(error as Error).message}`);
  }
};

const resolveTarget = async (
  deployment: Deployment,
  options: BulkSendOptions,
): Promise<{ send: SendBatch; name: string }> => {
  if (!options.eventBus) {
    const { queueUrl } = await deployment.queues(options.action);
    return { send: queueBatchSender(deployment.sqs(), queueUrl), name: `${options.action} queue` };
  }
  const source = chooseSource(deployment, options.action, options.source);
  const bus = eventBusName(await deployment.outputs());
  return {
    send: busBatchSender(deployment.eventBridge(), bus, source, options.action),
    name: `bus ${bus} (source ${source})`,
  };
};

/** Returns the exit code. */
export const runBulkSend: OpsCommand<BulkSendOptions> = async (deployment, options, io) => {
  const { action, input } = options;
  if (input === '-')
    throw new UsageError(
      'A bulk load reads a file, not stdin: it is checkpointed against the file',
    );
  const format = options.format ?? formatOf(input);
  const label = (position: number) => positionLabel(format, position);
  const checkpointFile = options.checkpoint ?? `${input}.checkpoint.json`;
  const { text, modifiedAt } = await readBulkInput(input);
  const contentHash = createHash('sha256').update(text).digest('hex');

  // On resume the export time comes from the checkpoint, so every message is stamped as before.
  const previous = await readCheckpoint(checkpointFile);
  const wantedExportedAt =
    options.exportedAt === undefined ? undefined : parseExportedAt(options.exportedAt);
  const exportedAt = previous?.exportedAt ?? wantedExportedAt ?? modifiedAt;
  const stamp = loadStamp(input, contentHash, exportedAt);

  const valid: { position: number; body: string }[] = [];
  const rejects: Reject[] = [];
  for (const item of decodeInput(text, format)) {
    if ('error' in item) {
      rejects.push({ position: item.position, reason: item.error });
      continue;
    }
    const message = stampMessage(stamp, item.position, item.value);
    const parsed = parseMessage(action, message);
    if (parsed.success) valid.push({ position: item.position, body: JSON.stringify(message) });
    else
      rejects.push({
        position: item.position,
        reason: `not a valid ${action} message: ${parsed.error}`,
      });
  }
  if (valid.length + rejects.length === 0)
    throw new OpsError(`${input} holds no message: nothing to send`);
  if (rejects.length > 0 && options.skipInvalid === undefined) {
    for (const reject of rejects)
      writeLine(io.stderr, `${label(reject.position)}: ${reject.reason}`);
    writeLine(
      io.stderr,
      `${rejects.length} of ${valid.length + rejects.length} messages are invalid. Nothing was sent (--skip-invalid <file> sends the rest).`,
    );
    return 1;
  }
  if (options.skipInvalid !== undefined) await writeRejects(options.skipInvalid, label, rejects);

  const target = await resolveTarget(deployment, options);
  const identity: LoadIdentity = {
    contentHash,
    action,
    target: target.name,
    format,
    messages: valid.length,
    exportedAt: previous === undefined ? exportedAt : (wantedExportedAt ?? exportedAt),
  };
  if (previous !== undefined) checkIdentity(checkpointFile, previous, identity);
  const checkpoint = new Checkpoint(checkpointFile, input, identity, previous?.sent);
  await checkpoint.save();

  const alreadySent = valid.filter((_, index) => checkpoint.has(index)).length;
  if (alreadySent > 0) {
    writeLine(
      io.stderr,
      `Resuming from ${checkpointFile}: ${alreadySent} of ${valid.length} messages were already sent.`,
    );
  }
  const progress = createProgress(io.stderr, `send ${action}`, {
    words: { moved: 'sent', failed: 'failed' },
    rate: true,
    plainEvery: Math.max(10, Math.ceil(valid.length / 20 / 10) * 10),
  });
  const started = Date.now();
  const result = await deliverWithCheckpoint({
    bodies: valid.map((message) => message.body),
    send: target.send,
    checkpoint,
    parallel: options.parallel,
    backoffMs: options.backoffMs,
    signal: io.signal,
    progress: (count) => progress.update({ moved: count, failed: 0, total: valid.length }),
  });
  const { sent } = result;
  progress.finish();
  const seconds = (Date.now() - started) / 1000;

  for (const failure of result.failed) {
    const position = valid[failure.id]?.position ?? failure.id;
    writeLine(
      io.stderr,
      `${label(position)} could not be sent to the ${target.name}: ${failure.code}${failure.message ? `: ${failure.message}` : ''}`,
    );
  }
  const rate = seconds > 0 ? `, ${Math.round(result.acknowledged / seconds)}/s` : '';
  writeLine(
    io.stdout,
    `Sent ${counted(result.acknowledged, 'message')} to the ${target.name} in ${seconds.toFixed(1)}s${rate}` +
      `${alreadySent > 0 ? ` (${alreadySent} sent before, per the checkpoint)` : ''}; ` +
      `rejected ${rejects.length}${options.skipInvalid !== undefined && rejects.length > 0 ? ` (listed in ${options.skipInvalid})` : ''}; ` +
      `retried ${result.retried}; failed ${result.failed.length}. ${sent} of ${valid.length} valid messages are sent; checkpoint ${checkpointFile}.`,
  );
  if (result.stoppedBy !== undefined) writeLine(io.stderr, `Stopped: ${result.stoppedBy}`);
  if (io.signal?.aborted && sent < valid.length) {
    writeLine(io.stderr, 'Interrupted: rerun the same command to send the rest.');
    return 130;
  }
  if (sent < valid.length) {
    writeLine(
      io.stderr,
      `${valid.length - sent} messages were not sent: rerun the same command to send them (nothing acknowledged is sent again).`,
    );
    return 1;
  }
  return 0;
};
