/**
 * A plan's repairs go out through the bulk sender: per action, the stamped messages are written
 * beside the plan (`<plan>.<action>.jsonl`) and sent with that file's checkpoint, so an apply
 * that stops half way resumes, and a second apply of the same plan sends nothing.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { type ActionName, parseMessage } from '../../lambdas/actions';
import type { SendBatch } from '../bulk/batch-target';
import { Checkpoint, checkIdentity, readCheckpoint } from '../bulk/checkpoint';
import { deliverWithCheckpoint } from '../bulk/checkpointed-delivery';
import { OpsError } from '../errors';

export interface RepairSendResult {
  readonly action: ActionName;
  readonly messages: number;
  /** Sent now. */
  readonly sent: number;
  /** Sent by an earlier apply of this plan (its checkpoint). */
  readonly sentBefore: number;
  readonly failed: number;
  readonly stoppedBy?: string;
}

export interface RepairSendOptions {
  readonly action: ActionName;
  readonly messages: readonly Record<string, unknown>[];
  /** The repair file (a local path, beside a local plan); its checkpoint is `<file>.checkpoint.json`. */
  readonly file: string;
  readonly exportedAt: string;
  readonly target: { readonly name: string; readonly send: SendBatch };
  readonly parallel: number;
  readonly signal?: AbortSignal | undefined;
  readonly backoffMs?: ((retry: number) => number) | undefined;
}

export const sendRepairs = async (options: RepairSendOptions): Promise<RepairSendResult> => {
  const bodies = options.messages.map((message) => {
    // The plan file was checked when read; checked again at the last moment all the same.
    const parsed = parseMessage(options.action, message);
    if (!parsed.success) {
      throw new OpsError(`a ${options.action} repair is not a valid message: ${parsed.error}`);
    }
    return JSON.stringify(message);
  });
  const text = `${bodies.join('\n')}\n`;
  await writeFile(options.file, text, { mode: 0o600 });
  const checkpointPath = `${options.file}.checkpoint.json`;
  const identity = {
    contentHash: createHash('sha256').update(text).digest('hex'),
    action: options.action,
    target: options.target.name,
    format: 'jsonl',
    messages: bodies.length,
    exportedAt: options.exportedAt,
  };
  const previous = await readCheckpoint(checkpointPath);
  if (previous !== undefined) checkIdentity(checkpointPath, previous, identity);
  const checkpoint = new Checkpoint(checkpointPath, options.file, identity, previous?.sent);
  await checkpoint.save();
  const result = await deliverWithCheckpoint({
    bodies,
    send: options.target.send,
    checkpoint,
    parallel: options.parallel,
    backoffMs: options.backoffMs,
    signal: options.signal,
  });
  return {
    action: options.action,
    messages: bodies.length,
    sent: result.sent - result.alreadySent,
    sentBefore: result.alreadySent,
    failed: bodies.length - result.sent,
    ...(result.stoppedBy === undefined ? {} : { stoppedBy: result.stoppedBy }),
  };
};
