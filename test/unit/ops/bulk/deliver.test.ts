import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BatchEntry, type EntryFailure, intoBatches } from '../../../../ops/bulk/batch-target';
import { deliverBatches } from '../../../../ops/bulk/deliver';

const entries = (count: number): BatchEntry[] =>
  Array.from({ length: count }, (_, id) => ({ id, body: `{"n":${id}}` }));

const options = { parallel: 3, maxAttempts: 4, backoffMs: () => 0, sleep: async () => {} };

describe('deliverBatches', () => {
  it('acknowledges every entry exactly once or reports it failed, whatever entries a batch rejects', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60 }),
        // For each entry, how many sends reject it before one takes it.
        fc.array(fc.nat(6), { minLength: 60, maxLength: 60 }),
        fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
        fc.integer({ min: 1, max: 5 }),
        async (count, rejections, senderFaults, parallel) => {
          // Prepare
          const tries = new Map<number, number>();
          const send = async (batch: readonly BatchEntry[]): Promise<EntryFailure[]> =>
            batch.flatMap((entry) => {
              const tried = (tries.get(entry.id) ?? 0) + 1;
              tries.set(entry.id, tried);
              if (tried > (rejections[entry.id] ?? 0)) return [];
              const retryable = !senderFaults[entry.id];
              return [{ id: entry.id, code: 'Throttled', message: '', retryable }];
            });
          const acknowledged: number[] = [];

          // Act
          const result = await deliverBatches(
            intoBatches(entries(count)),
            send,
            { ...options, parallel },
            { acknowledged: (ids) => void acknowledged.push(...ids) },
          );

          // Assess: each entry is sent until taken, given up on only when the answer said so.
          const failed = result.failed.map((f) => f.id);
          expect([...acknowledged, ...failed].sort((a, b) => a - b)).toEqual(
            entries(count).map((e) => e.id),
          );
          for (const id of failed) {
            const rejected = rejections[id] ?? 0;
            expect(senderFaults[id] || rejected >= options.maxAttempts).toBe(true);
          }
          for (const id of acknowledged) {
            expect(tries.get(id)).toBe((rejections[id] ?? 0) + 1);
          }
          const retries = [...tries.values()].reduce((sum, t) => sum + t - 1, 0);
          expect(result.retried).toBe(retries);
        },
      ),
    );
  });

  it('retries a failed call, and stops at an error no retry can fix', async () => {
    // Prepare
    let calls = 0;
    const send = async (): Promise<EntryFailure[]> => {
      calls += 1;
      if (calls === 1) throw Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
      throw Object.assign(new Error('gone'), { name: 'QueueDoesNotExist' });
    };

    // Act
    const result = await deliverBatches(
      intoBatches(entries(50)),
      send,
      { ...options, parallel: 1 },
      { acknowledged: () => {} },
    );

    // Assess
    expect(calls).toBe(2);
    expect(result.stoppedBy).toContain('QueueDoesNotExist');
    expect(result.failed.map((f) => f.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(result.notStarted).toBe(4);
  });

  it('keeps at most `parallel` batches in flight', async () => {
    // Prepare
    let inFlight = 0;
    let most = 0;
    const send = async (): Promise<EntryFailure[]> => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight -= 1;
      return [];
    };

    // Act
    await deliverBatches(
      intoBatches(entries(200)),
      send,
      { ...options, parallel: 4 },
      {
        acknowledged: () => {},
      },
    );

    // Assess
    expect(most).toBe(4);
  });
});

describe('intoBatches', () => {
  it('cuts at ten entries and before the payload limit, keeping the order', () => {
    // Prepare
    const big = 'x'.repeat(100 * 1024);
    const list = [
      ...entries(12),
      { id: 12, body: big },
      { id: 13, body: big },
      { id: 14, body: big },
    ];

    // Act
    const batches = intoBatches(list);

    // Assess
    expect(batches.map((b) => b.map((e) => e.id))).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      [10, 11, 12, 13],
      [14],
    ]);
  });
});
