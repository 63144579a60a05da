/**
 * The checkpoint of a bulk load: which of the file's valid messages SQS or EventBridge has
 * acknowledged, keyed to the file's content hash and the load's target, so a rerun sends only
 * the rest and a changed file is refused instead of resumed wrongly. Messages are numbered by
 * their position among the file's valid messages; with batches in flight in parallel (and
 * entries of one batch retried apart) a high-water mark would be wrong, so the set is kept.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import * as z from 'zod/mini';
import type { Exactly } from '../../lambdas/core/ledger/ledger-doc';
import { formatIssues } from '../../lambdas/messages/parse';
import { OpsError } from '../errors';
import { type Range, RangeSet } from './range-set';

/** What a checkpoint belongs to: a rerun must match it exactly. */
export interface LoadIdentity {
  readonly contentHash: string;
  readonly action: string;
  readonly target: string;
  readonly format: string;
  /** Valid messages in the file. */
  readonly messages: number;
  /** The `occurredAt` stamped on messages without one; reused on resume. */
  readonly exportedAt: string;
}

interface CheckpointFile extends LoadIdentity {
  readonly version: 1;
  readonly input: string;
  readonly sent: readonly Range[];
  readonly updatedAt: string;
}

const count = z.int().check(z.nonnegative());

/** A checkpoint file as read back: parsed, every field (version 1 has always written them all). */
const CHECKPOINT_FILE = z.object({
  version: z.literal(1),
  input: z.string(),
  contentHash: z.string(),
  action: z.string(),
  target: z.string(),
  format: z.string(),
  messages: count,
  exportedAt: z.string(),
  sent: z.array(
    z
      .tuple([count, count])
      .check(z.refine(([first, last]) => first <= last, 'must not end before it starts')),
  ),
  updatedAt: z.string(),
});
CHECKPOINT_FILE satisfies Exactly<typeof CHECKPOINT_FILE, CheckpointFile>;

const IDENTITY_FIELDS = [
  'contentHash',
  'action',
  'target',
  'format',
  'messages',
  'exportedAt',
] as const satisfies readonly (keyof LoadIdentity)[];

/** The checkpoint file's content, or undefined when there is none. */
export const readCheckpoint = async (file: string): Promise<CheckpointFile | undefined> => {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new OpsError(`Cannot read the checkpoint ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new OpsError(`The checkpoint ${file} is not valid JSON: delete it to start over`);
  }
  const parsed = z.safeParse(CHECKPOINT_FILE, json);
  if (!parsed.success) {
    throw new OpsError(
      `The checkpoint ${file} is not a bulk-load checkpoint (${formatIssues(parsed.error.issues)}): delete it to start over`,
    );
  }
  return parsed.data;
};

/** Refuses a checkpoint written for another file, action, target or stamp. */
export const checkIdentity = (file: string, found: LoadIdentity, wanted: LoadIdentity): void => {
  const differs = IDENTITY_FIELDS.filter((field) => found[field] !== wanted[field]);
  if (differs.length === 0) return;
  const why = differs.includes('contentHash')
    ? 'the input file changed since it was written'
    : `it was written for another ${differs.join(', ')}`;
  throw new OpsError(
    `The checkpoint ${file} does not belong to this load: ${why}. Restore the file it was written for, or delete the checkpoint (or pass another --checkpoint) to send the whole file again.`,
  );
};

/**
 * The acknowledged set, written after every acknowledgement. Writes are atomic (a temporary
 * file renamed over the old one) and coalesced: while one write runs, further
 * acknowledgements wait for the next, so a crash loses at most the acknowledgements of the
 * moment, never the file.
 */
export class Checkpoint {
  readonly #sent: RangeSet;
  #writing: Promise<void> | undefined;
  #dirty = false;
  #failure: unknown;
  /** Acknowledgements recorded so far, and how many of them the file on disk holds. */
  #recorded = 0;
  #written = 0;
  #waiters: { readonly upTo: number; readonly resolve: () => void }[] = [];

  constructor(
    readonly file: string,
    readonly input: string,
    readonly identity: LoadIdentity,
    sent: readonly Range[] = [],
  ) {
    this.#sent = RangeSet.of(sent);
  }

  has(message: number): boolean {
    return this.#sent.has(message);
  }

  /** True once a write failed: the load must stop, its acknowledgements would be lost. */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  get sentCount(): number {
    return this.#sent.size;
  }

  /**
   * Records acknowledged messages and schedules a write; resolves once the file holds them (or
   * a write failed: see `failed`). A sender that waits for it before its next batch bounds what
   * a crash can resend to the batches in flight.
   */
  record(messages: readonly number[]): Promise<void> {
    for (const message of messages) this.#sent.add(message);
    this.#recorded += 1;
    const upTo = this.#recorded;
    const written = new Promise<void>((resolve) => this.#waiters.push({ upTo, resolve }));
    this.#dirty = true;
    this.#writing ??= this.#drain();
    return written;
  }

  #settle(all: boolean): void {
    const waiting = this.#waiters;
    this.#waiters = waiting.filter((w) => !all && w.upTo > this.#written);
    for (const waiter of waiting) if (all || waiter.upTo <= this.#written) waiter.resolve();
  }

  /**
   * Writes the file now. Done before the first batch: it pins the export time the messages
   * are stamped with (a crash before the first acknowledgement would otherwise leave the
   * rerun to take it from the file's modification time again), and a checkpoint that cannot
   * be written stops the load before anything is sent. Throws if the write failed.
   */
  async save(): Promise<void> {
    this.#dirty = true;
    await this.flush();
  }

  /** Waits for every recorded acknowledgement to be on disk; throws if a write failed. */
  async flush(): Promise<void> {
    if (this.#dirty && this.#writing === undefined) this.#writing = this.#drain();
    await this.#writing;
    if (this.#failure !== undefined) {
      throw new OpsError(
        `Cannot write the checkpoint ${this.file}: ${(this.#failure as Error).message}`,
      );
    }
  }

  async #drain(): Promise<void> {
    try {
      while (this.#dirty) {
        this.#dirty = false;
        const upTo = this.#recorded;
        const content: CheckpointFile = {
          version: 1,
          input: this.input,
          ...this.identity,
          sent: this.#sent.ranges(),
          updatedAt: new Date().toISOString(),
        };
        const temporary = `${this.file}.tmp`;
        await writeFile(temporary, `${JSON.stringify(content)}\n`);
        await rename(temporary, this.file);
        this.#written = upTo;
        this.#settle(false);
      }
    } catch (error) {
      this.#failure = error;
      this.#settle(true);
    } finally {
      this.#writing = undefined;
    }
  }
}
