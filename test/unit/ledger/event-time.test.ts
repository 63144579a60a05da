import { describe, expect, it } from 'vitest';
import { eventTime } from '../../../lambdas/core/ledger/event-time';

const NOW = Date.UTC(2026, 10, 24, 12);

describe('event time: which clock orders an event', () => {
  it.each([
    [
      'occurredAt wins over everything else',
      {
        occurredAt: '2026-11-24T09:30:00.250Z',
        eventBridgeTime: '2026-11-24T10:00:00Z',
        sqsSentTimestamp: '1790000000000',
      },
      { ms: Date.UTC(2026, 10, 24, 9, 30, 0, 250), source: 'occurredAt' },
    ],
    [
      'then the EventBridge event time',
      { eventBridgeTime: '2026-11-24T10:00:00Z', sqsSentTimestamp: '1790000000000' },
      { ms: Date.UTC(2026, 10, 24, 10), source: 'eventbridge-time' },
    ],
    [
      'then the time SQS received the message',
      { sqsSentTimestamp: '1790000000000' },
      { ms: 1_790_000_000_000, source: 'sqs-sent' },
    ],
    ['and last the arrival time', {}, { ms: NOW, source: 'arrival' }],
    [
      'an unreadable EventBridge time falls through to SQS',
      { eventBridgeTime: 'yesterday', sqsSentTimestamp: '1790000000000' },
      { ms: 1_790_000_000_000, source: 'sqs-sent' },
    ],
  ])('%s', (_name, sources, expected) => {
    // Act
    const time = eventTime(sources, NOW);
    // Assess
    expect(time).toEqual(expected);
  });
});
