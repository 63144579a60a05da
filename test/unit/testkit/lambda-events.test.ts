/**
 * The kit's Lambda context and SQS / EventBridge events: shaped as AWS builds them, with the
 * defaults the handler tests rely on and the overrides the bench and the local run use.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_QUEUE_ARN,
  eventBridgeEvent,
  failedIds,
  lambdaContext,
  sqsEvent,
  sqsRecord,
} from '../../../testkit';

describe('lambdaContext', () => {
  it('has a fixed minute left by default, and the request id it is given', () => {
    // Act
    const context = lambdaContext({ awsRequestId: 'req-9' });

    // Assess
    expect(context.awsRequestId).toBe('req-9');
    expect(context.getRemainingTimeInMillis()).toBe(60_000);
    expect(context.invokedFunctionArn).toBe(
      'arn:aws:lambda:us-east-1:123456789012:function:contact-center-sync-test',
    );
  });

  it('counts down from the function timeout on the clock it is given, never below zero', () => {
    // Prepare
    let now = 1_000;
    const context = lambdaContext({ timeoutMs: 3_000, now: () => now, functionName: 'f' });

    // Act
    now += 1_200;
    const early = context.getRemainingTimeInMillis();
    now += 5_000;
    const late = context.getRemainingTimeInMillis();

    // Assess
    expect(early).toBe(1_800);
    expect(late).toBe(0);
    expect(context.logGroupName).toBe('/aws/lambda/f');
  });

  it('refuses callback-style completion: the handlers are async', () => {
    // Prepare
    const context = lambdaContext();

    // Act
    const done = () => context.done();

    // Assess
    expect(done).toThrow('callback-style completion is not supported');
  });
});

describe('sqsRecord and sqsEvent', () => {
  it.each([
    ['an object body, as its JSON', { a: 1 }, '{"a":1}'],
    ['a string body, unchanged', 'a=1', 'a=1'],
  ])('sends %s, first delivery from the default queue', (_name, body, text) => {
    // Act
    const record = sqsRecord(body, { messageId: 'm-1' });

    // Assess
    expect(record).toMatchObject({
      messageId: 'm-1',
      body: text,
      eventSource: 'aws:sqs',
      eventSourceARN: DEFAULT_QUEUE_ARN,
      awsRegion: 'us-east-1',
      attributes: { ApproximateReceiveCount: '1' },
    });
  });

  it('takes the receive count, times and region of the queue it comes from', () => {
    // Act
    const record = sqsRecord('x', {
      receiveCount: 3,
      sentAt: 1_000,
      queueArn: 'arn:aws:sqs:eu-west-2:111122223333:q',
    });

    // Assess
    expect(record.awsRegion).toBe('eu-west-2');
    expect(record.attributes).toMatchObject({
      ApproximateReceiveCount: '3',
      SentTimestamp: '1000',
      ApproximateFirstReceiveTimestamp: '1000',
    });
  });

  it('puts records in one batch, in order', () => {
    // Prepare
    const first = sqsRecord('1');
    const second = sqsRecord('2');

    // Act
    const event = sqsEvent(first, second);

    // Assess
    expect(event.Records).toEqual([first, second]);
  });
});

describe('failedIds', () => {
  it('reads the batch item failures, sorted', () => {
    // Act
    const ids = failedIds({
      batchItemFailures: [{ itemIdentifier: 'b' }, { itemIdentifier: 'a' }],
    });

    // Assess
    expect(ids).toEqual(['a', 'b']);
  });

  it.each([undefined, null, { result: 'ok' }])(
    'refuses %j: not an SQS batch response',
    (answer) => {
      // Act
      const read = () => failedIds(answer);

      // Assess
      expect(read).toThrow('not an SQS batch response');
    },
  );
});

describe('eventBridgeEvent', () => {
  it('carries the detail under its detail-type, with an id given as a string', () => {
    // Act
    const event = eventBridgeEvent('add-user', { loginUserId: 'ada' }, 'evt-1');

    // Assess
    expect(event).toMatchObject({
      version: '0',
      id: 'evt-1',
      'detail-type': 'add-user',
      source: 'crm.example',
      detail: { loginUserId: 'ada' },
      resources: [],
    });
    expect(event.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('takes the envelope it is given', () => {
    // Act
    const event = eventBridgeEvent(
      'delete-user',
      {},
      {
        source: 'hr',
        account: '000000000000',
        region: 'eu-central-1',
        time: '2026-01-01T00:00:00Z',
      },
    );

    // Assess
    expect(event).toMatchObject({
      source: 'hr',
      account: '000000000000',
      region: 'eu-central-1',
      time: '2026-01-01T00:00:00Z',
    });
  });
});
