import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  Checkpoint,
  checkIdentity,
  type LoadIdentity,
  readCheckpoint,
} from '../../../../ops/bulk/checkpoint';
import { derivedCorrelationId, loadStamp, stampMessage } from '../../../../ops/bulk/stamp';

const identity: LoadIdentity = {
  contentHash: 'a'.repeat(64),
  action: 'add-user',
  target: 'add-user queue',
  format: 'csv',
  messages: 100,
  exportedAt: '2026-11-24T09:30:00.000Z',
};

const checkpointFile = async () =>
  path.join(await mkdtemp(path.join(tmpdir(), 'checkpoint-')), 'leads.csv.checkpoint.json');

describe('checkpoint', () => {
  it('records acknowledgements out of order and reads them back as ranges', async () => {
    // Prepare
    const file = await checkpointFile();
    const checkpoint = new Checkpoint(file, 'leads.csv', identity);

    // Act
    await Promise.all([checkpoint.record([20, 21, 22]), checkpoint.record([0, 1, 2])]);
    await checkpoint.record([3, 4]);
    const read = await readCheckpoint(file);

    // Assess
    expect(read?.sent).toEqual([
      [0, 4],
      [20, 22],
    ]);
    const resumed = new Checkpoint(file, 'leads.csv', identity, read?.sent);
    expect([0, 4, 5, 19, 20, 22, 23].map((n) => resumed.has(n))).toEqual([
      true,
      true,
      false,
      false,
      true,
      true,
      false,
    ]);
  });

  it.each([
    [{ contentHash: 'b'.repeat(64) }, 'the input file changed since it was written'],
    [{ target: 'bus x (source y)' }, 'written for another target'],
    [{ exportedAt: '2026-11-25T00:00:00.000Z' }, 'written for another exportedAt'],
  ])('refuses to resume a load that differs in %j', (change, reason) => {
    // Act / Assess
    expect(() => checkIdentity('c.json', identity, { ...identity, ...change })).toThrow(reason);
  });

  it('has no checkpoint for a missing file, and refuses one that is not a checkpoint', async () => {
    // Prepare
    const file = await checkpointFile();

    // Act
    const missing = await readCheckpoint(file);
    await writeFile(file, '{"version":1}');

    // Assess
    expect(missing).toBeUndefined();
    await expect(readCheckpoint(file)).rejects.toThrow('is not a bulk-load checkpoint');
    await expect(readCheckpoint(file)).rejects.toThrow('contentHash: is required');
  });

  it('refuses a checkpoint whose sent ranges are not ranges, naming the field', async () => {
    // Prepare
    const file = await checkpointFile();
    const checkpoint = new Checkpoint(file, 'leads.csv', identity);
    await checkpoint.record([0, 1]);
    await checkpoint.flush();
    const written = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...written, sent: [[5, 2]] }));

    // Act
    const read = readCheckpoint(file);

    // Assess
    await expect(read).rejects.toThrow('sent[0]: a range ends before it starts');
  });

  it.each([
    ['a range that ends before it starts', { sent: [[5, 2]] }, 'sent[0]'],
    ['a negative message number', { sent: [[-1, 2]] }, 'sent[0][0]'],
    ['a field missing', { target: undefined }, 'target'],
    ['another version', { version: 2 }, 'version'],
  ])('refuses a checkpoint with %s, naming the field', async (_name, change, field) => {
    // Prepare: a checkpoint as written, then changed.
    const file = await checkpointFile();
    await new Checkpoint(file, 'leads.csv', identity).record([0]);
    const written = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...written, ...change }));

    // Act
    const read = readCheckpoint(file);

    // Assess
    await expect(read).rejects.toThrow('is not a bulk-load checkpoint');
    await expect(read).rejects.toThrow(field);
  });

  it('reports a write that failed instead of going on without it', async () => {
    // Prepare
    const checkpoint = new Checkpoint('/nonexistent-dir/c.json', 'leads.csv', identity);

    // Act
    await checkpoint.record([1]);

    // Assess
    expect(checkpoint.failed).toBe(true);
    await expect(checkpoint.flush()).rejects.toThrow('Cannot write the checkpoint');
  });

  it('is written before anything is acknowledged, holding the identity and no message', async () => {
    // Prepare
    const file = await checkpointFile();
    const checkpoint = new Checkpoint(file, 'leads.csv', identity);

    // Act
    await checkpoint.save();
    const read = await readCheckpoint(file);

    // Assess
    expect(read).toMatchObject({ ...identity, input: 'leads.csv', sent: [] });
  });

  it('throws from save when the file cannot be written', async () => {
    // Prepare
    const checkpoint = new Checkpoint('/nonexistent-dir/c.json', 'leads.csv', identity);

    // Act / Assess
    await expect(checkpoint.save()).rejects.toThrow('Cannot write the checkpoint');
  });

  it('leaves a valid file behind at every moment (written whole, then renamed)', async () => {
    // Prepare
    const file = await checkpointFile();
    const checkpoint = new Checkpoint(file, 'leads.csv', identity);

    // Act
    const writes = Array.from({ length: 50 }, (_, n) => checkpoint.record([n]));
    const seen = await Promise.all(
      writes.map(async (written) => {
        await written;
        return readFile(file, 'utf8');
      }),
    );

    // Assess
    for (const text of seen) expect(() => JSON.parse(text)).not.toThrow();
    expect((await readCheckpoint(file))?.sent).toEqual([[0, 49]]);
  });
});

describe('stamps', () => {
  it('derive the same correlation id and time from the same file and line, and keep the message own', () => {
    // Prepare
    const stamp = loadStamp('/exports/leads.csv', 'f'.repeat(64), identity.exportedAt);

    // Act
    const first = stampMessage(stamp, 12, { loginUserId: 'a@example.com' });
    const again = stampMessage(stamp, 12, { loginUserId: 'a@example.com' });
    const own = stampMessage(stamp, 13, {
      correlationId: 'c-1',
      occurredAt: '2026-01-01T00:00:00.000Z',
    });

    // Assess
    expect(first).toEqual(again);
    expect(first).toEqual({
      loginUserId: 'a@example.com',
      correlationId: `leads.csv@ffffffffffff#12`,
      occurredAt: identity.exportedAt,
    });
    expect(own).toEqual({ correlationId: 'c-1', occurredAt: '2026-01-01T00:00:00.000Z' });
    expect(
      derivedCorrelationId(loadStamp('x'.repeat(300), 'f'.repeat(64), ''), 9_999_999).length,
    ).toBeLessThanOrEqual(128);
  });
});
