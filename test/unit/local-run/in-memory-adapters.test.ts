import { describe, expect, it } from 'vitest';
import { ResultPublishError } from '../../../lambdas/core/aws/event-bridge-result-publisher';
import type { ResultEvent } from '../../../lambdas/core/entry/ports';
import {
  DeadLetterSendError,
  InMemoryDeadLetterQueue,
} from '../../../local/in-memory/dead-letter-queue';
import { InMemoryResultBus } from '../../../local/in-memory/result-bus';
import { deadLetterReason } from '../../support/dead-letter-reason';

const reason = deadLetterReason();

describe('InMemoryDeadLetterQueue', () => {
  it('keeps the body unchanged with the reason attributes', async () => {
    // Prepare
    const dlq = new InMemoryDeadLetterQueue('add-user-dlq');

    // Act
    await dlq.send('{"a":1}', reason);

    // Assess
    expect(dlq.letters).toEqual([
      { body: '{"a":1}', reason, movedBy: 'handler', sourceMessageId: reason.sourceMessageId },
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
    await expect(failed).rejects.toBeInstanceOf(ResultPublishError);
    await bus.publish(event);

    // Assess
    expect(bus.events).toEqual([event]);
  });
});
