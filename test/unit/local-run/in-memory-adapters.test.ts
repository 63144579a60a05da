import { describe, expect, it } from 'vitest';
import type { DeadLetterReason, ResultEvent } from '../../../lambdas/core/ports';
import { LocalApiKeySource, LocalSecretStore } from '../../../local/in-memory/api-key-source';
import {
  DeadLetterSendError,
  InMemoryDeadLetterQueue,
} from '../../../local/in-memory/dead-letter-queue';
import { InMemoryResultBus, ResultPublishFailure } from '../../../local/in-memory/result-bus';

const reason: DeadLetterReason = {
  action: 'add-user',
  errorCategory: 'permanent',
  errorCode: 'INVALID_MESSAGE',
  errorMessage: 'loginUserId: is required',
  sourceMessageId: 'm-1',
  correlationId: 'c-1',
};

describe('InMemoryDeadLetterQueue', () => {
  it('keeps the body unchanged with the reason attributes', async () => {
    // Prepare
    const dlq = new InMemoryDeadLetterQueue('add-user-dlq');

    // Act
    await dlq.send('{"a":1}', reason);

    // Assess
    expect(dlq.letters).toEqual([
      { body: '{"a":1}', reason, movedBy: 'handler', sourceMessageId: 'm-1' },
    ]);
  });

  it('fails exactly the next N sends when told to, storing nothing for them', async () => {
    // Prepare
    const dlq = new InMemoryDeadLetterQueue('add-user-dlq');
    dlq.failNextSends(2);

    // Act
    const first = dlq.send('1', reason);
    const second = dlq.send('2', reason);
    await expect(first).rejects.toBeInstanceOf(DeadLetterSendError);
    await expect(second).rejects.toBeInstanceOf(DeadLetterSendError);
    await dlq.send('3', reason);

    // Assess
    expect(dlq.failedSends).toBe(2);
    expect(dlq.letters.map((l) => l.body)).toEqual(['3']);
  });

  it('records what the redrive policy moved without any reason', () => {
    // Prepare
    const dlq = new InMemoryDeadLetterQueue('add-user-dlq');

    // Act
    dlq.acceptRedrive({ body: 'poison', messageId: 'm-9' });

    // Assess
    expect(dlq.letters).toEqual([{ body: 'poison', movedBy: 'redrive', sourceMessageId: 'm-9' }]);
    expect(dlq.letters[0]?.reason).toBeUndefined();
  });
});

describe('InMemoryResultBus', () => {
  const event: ResultEvent = {
    action: 'query-user-existence',
    correlationId: 'c-2',
    request: { loginUserId: 'x@example.com' },
    result: { exists: true },
  };

  it('records published events and can fail the next publishes', async () => {
    // Prepare
    const bus = new InMemoryResultBus();
    bus.failNextPublishes(1);

    // Act
    const failed = bus.publish(event);
    await expect(failed).rejects.toBeInstanceOf(ResultPublishFailure);
    await bus.publish(event);

    // Assess
    expect(bus.events).toEqual([event]);
  });
});

/** A hand-driven clock for the cache age. */
const manualClock = (start = 0) => {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

describe('LocalApiKeySource', () => {
  it('serves the key from cache within maxAge and reads the store again after it', async () => {
    // Prepare
    const store = new LocalSecretStore('key-1');
    const clock = manualClock();
    const source = new LocalApiKeySource({ store, maxAgeSeconds: 900, now: clock.now });
    await source.getKey();
    store.rotate('key-2');

    // Act
    clock.advance(899_999);
    const cached = await source.getKey();
    clock.advance(1);
    const fresh = await source.getKey();

    // Assess
    expect(cached).toBe('key-1');
    expect(fresh).toBe('key-2');
    expect(store.reads).toBe(2);
    expect(store.version).toBe(2);
  });

  it('refreshes once for any number of callers rejected with the same key (single flight)', async () => {
    // Prepare
    const store = new LocalSecretStore('old');
    const source = new LocalApiKeySource({ store });
    await source.getKey();
    store.rotate('new');

    // Act
    const keys = await Promise.all(Array.from({ length: 5 }, () => source.refreshKey('old')));

    // Assess
    expect(keys).toEqual(['new', 'new', 'new', 'new', 'new']);
    expect(store.reads).toBe(2);
  });

  it('does not read the store when the rejected key was already replaced', async () => {
    // Prepare
    const store = new LocalSecretStore('old');
    const source = new LocalApiKeySource({ store });
    await source.getKey();
    store.rotate('new');
    await source.refreshKey('old');

    // Act
    const key = await source.refreshKey('old');

    // Assess
    expect(key).toBe('new');
    expect(store.reads).toBe(2);
  });

  it('fails like Secrets Manager when the store is down, and recovers afterwards', async () => {
    // Prepare
    const store = new LocalSecretStore('key');
    const source = new LocalApiKeySource({ store });
    store.failWith = new Error('throttled');

    // Act
    const failing = source.getKey();
    await expect(failing).rejects.toThrow('throttled');
    store.failWith = undefined;
    const key = await source.getKey();

    // Assess
    expect(key).toBe('key');
  });

  it('refuses a max age outside 1..3600 seconds', () => {
    // Prepare
    const store = new LocalSecretStore('key');

    // Act
    const tooLong = () => new LocalApiKeySource({ store, maxAgeSeconds: 3601 });
    const zero = () => new LocalApiKeySource({ store, maxAgeSeconds: 0 });

    // Assess
    expect(tooLong).toThrow(RangeError);
    expect(zero).toThrow(RangeError);
  });
});
