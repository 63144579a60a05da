import { describe, expect, it } from 'vitest';
import {
  declaredCorrelationId,
  EnvelopeError,
  isEventBridgeEvent,
  unwrapBody,
  unwrapDecoded,
} from '../../../lambdas/core/entry/envelope';

const message = { correlationId: 'corr-1', loginUserId: 'ada@example.com' };

const eventOf = (detailType: string, detail: unknown, id?: string) => ({
  version: '0',
  ...(id === undefined ? {} : { id }),
  'detail-type': detailType,
  source: 'hr.example',
  account: '123456789012',
  time: '2026-03-01T12:00:00Z',
  region: 'eu-central-1',
  resources: [],
  detail,
});

describe('isEventBridgeEvent', () => {
  it.each([
    ['an EventBridge event', eventOf('add-user', message, 'e-1'), true],
    ['an event with a null detail', eventOf('add-user', null, 'e-1'), true],
    ['an action message', message, false],
    ['an object without detail', { 'detail-type': 'add-user' }, false],
    ['a non-string detail-type', { 'detail-type': 7, detail: {} }, false],
    ['an array', [eventOf('add-user', message)], false],
    ['null', null, false],
    ['a string', 'add-user', false],
  ])('%s → %s', (_name, value, expected) => {
    // Act
    const result = isEventBridgeEvent(value);

    // Assess
    expect(result).toBe(expected);
  });
});

describe('unwrapDecoded', () => {
  it('returns a plain message as is, with no event id', () => {
    // Act
    const unwrapped = unwrapDecoded('add-user', message);

    // Assess
    expect(unwrapped).toEqual({ message });
  });

  it('takes the detail and the event id of an event for this action', () => {
    // Act
    const unwrapped = unwrapDecoded('add-user', eventOf('add-user', message, 'event-7'));

    // Assess
    expect(unwrapped).toEqual({ message, eventId: 'event-7', eventTime: '2026-03-01T12:00:00Z' });
  });

  it('leaves the event id out when the event has none, and keeps its time for ordering', () => {
    // Act
    const unwrapped = unwrapDecoded('add-user', eventOf('add-user', message));

    // Assess
    expect(unwrapped).toEqual({ message, eventTime: '2026-03-01T12:00:00Z' });
  });

  it('refuses an event routed to the wrong handler, naming both actions', () => {
    // Act
    const unwrapping = () => unwrapDecoded('add-user', eventOf('delete-user', message, 'e-1'));

    // Assess
    expect(unwrapping).toThrow(EnvelopeError);
    expect(unwrapping).toThrow(/detail-type "delete-user" but this is the add-user handler/);
    try {
      unwrapping();
    } catch (error) {
      expect((error as EnvelopeError).code).toBe('WRONG_DETAIL_TYPE');
    }
  });

  it('passes non-object values through for the schema to reject', () => {
    // Act
    const values = [null, 42, 'text', [message]].map((value) => unwrapDecoded('add-user', value));

    // Assess
    expect(values).toEqual([
      { message: null },
      { message: 42 },
      { message: 'text' },
      { message: [message] },
    ]);
  });
});

describe('unwrapBody', () => {
  it('decodes an SQS body holding the message', () => {
    // Act
    const unwrapped = unwrapBody('add-user', JSON.stringify(message));

    // Assess
    expect(unwrapped).toEqual({ message });
  });

  it('decodes an SQS body holding a whole EventBridge event (EventBridge → SQS target)', () => {
    // Act
    const unwrapped = unwrapBody('add-user', JSON.stringify(eventOf('add-user', message, 'e-9')));

    // Assess
    expect(unwrapped).toEqual({ message, eventId: 'e-9', eventTime: '2026-03-01T12:00:00Z' });
  });

  it('refuses a body that is not JSON with its size in bytes but not its content', () => {
    // Prepare: 24 ASCII characters and one of two UTF-8 bytes.
    const body = '{"firstName": "Zoë", oops';

    // Act
    let failure: unknown;
    try {
      unwrapBody('add-user', body);
    } catch (error) {
      failure = error;
    }

    // Assess
    expect(failure).toBeInstanceOf(EnvelopeError);
    expect(failure).toMatchObject({ code: 'INVALID_JSON' });
    expect((failure as Error).message).toBe('message body is not valid JSON (26 bytes)');
    expect((failure as Error).message).not.toContain('Zoë');
  });
});

describe('declaredCorrelationId', () => {
  it.each([
    ['a non-empty string', { correlationId: 'c-1' }, 'c-1'],
    ['128 characters', { correlationId: 'x'.repeat(128) }, 'x'.repeat(128)],
    ['129 characters', { correlationId: 'x'.repeat(129) }, undefined],
    ['an empty string', { correlationId: '' }, undefined],
    ['a number', { correlationId: 12 }, undefined],
    ['no field', { loginUserId: 'a' }, undefined],
    ['not an object', 'c-1', undefined],
    ['an array', [{ correlationId: 'c-1' }], undefined],
  ])('%s → %s', (_name, value, expected) => {
    // Act
    const id = declaredCorrelationId(value);

    // Assess
    expect(id).toBe(expected);
  });
});
