/**
 * Paths of `dlq redrive` moto cannot produce: the SQS move task (the pinned moto has no
 * StartMessageMoveTask), a message dead-lettered again while the redrive runs, and a delete
 * that fails after its send succeeded. SQS is replaced by aws-sdk-client-mock answering as the
 * SQS API reference documents; the integration tests cover the rest against moto.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../../ops/progress';
import { redrive } from '../../../ops/redrive';
import { CapturedWriter } from '../../support/ops-run';

const SOURCE_URL = 'https://sqs.eu-central-1.amazonaws.com/123456789012/add-user';
const SOURCE_ARN = 'arn:aws:sqs:eu-central-1:123456789012:add-user';
const DLQ_URL = 'https://sqs.eu-central-1.amazonaws.com/123456789012/add-user-dlq';
const DLQ_ARN = 'arn:aws:sqs:eu-central-1:123456789012:add-user-dlq';

const sqsWithRedrivePolicy = (deadLetterTargetArn: string) => {
  const sqs = new SQSClient({
    region: 'eu-central-1',
    credentials: { accessKeyId: 'unit', secretAccessKey: 'unit' },
  });
  const mock = mockClient(sqs);
  mock.on(GetQueueAttributesCommand, { QueueUrl: SOURCE_URL }).resolves({
    Attributes: {
      QueueArn: SOURCE_ARN,
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn, maxReceiveCount: 5 }),
    },
  });
  mock
    .on(GetQueueAttributesCommand, { QueueUrl: DLQ_URL })
    .resolves({ Attributes: { QueueArn: DLQ_ARN, ApproximateNumberOfMessages: '0' } });
  mock.on(ReceiveMessageCommand).resolves({ Messages: [] });
  return { sqs, mock };
};

const options = {
  sourceQueueUrl: SOURCE_URL,
  deadLetterQueueUrl: DLQ_URL,
  pollIntervalMs: 0,
} as const;

describe('redrive with an SQS move task', () => {
  it('moves DLQ → source queue with one task and follows it to COMPLETED', async () => {
    // Prepare
    const { sqs, mock } = sqsWithRedrivePolicy(DLQ_ARN);
    mock.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'task-1' });
    mock
      .on(ListMessageMoveTasksCommand)
      .resolvesOnce({
        Results: [
          {
            TaskHandle: 'task-1',
            Status: 'RUNNING',
            ApproximateNumberOfMessagesMoved: 3,
            ApproximateNumberOfMessagesToMove: 7,
          },
        ],
      })
      .resolves({
        Results: [
          {
            Status: 'COMPLETED',
            ApproximateNumberOfMessagesMoved: 7,
            ApproximateNumberOfMessagesToMove: 7,
          },
        ],
      });
    const writer = new CapturedWriter();

    // Act
    const result = await redrive(sqs, options, createProgress(writer, 'redrive add-user'));

    // Assess
    expect(result).toMatchObject({
      method: 'move-task',
      moved: 7,
      failed: 0,
      stoppedBecause: undefined,
    });
    expect(mock.commandCalls(StartMessageMoveTaskCommand).map((c) => c.args[0].input)).toEqual([
      { SourceArn: DLQ_ARN, DestinationArn: SOURCE_ARN },
    ]);
    expect(mock.commandCalls(ReceiveMessageCommand)).toHaveLength(0);
    expect(mock.commandCalls(SendMessageCommand)).toHaveLength(0);
    expect(writer.text).toContain('redrive add-user: 7/7 (moved 7, failed 0)');
  });

  it('reports a task that ended FAILED with what it did not move', async () => {
    // Prepare
    const { sqs, mock } = sqsWithRedrivePolicy(DLQ_ARN);
    mock.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'task-2' });
    mock.on(ListMessageMoveTasksCommand).resolves({
      Results: [
        {
          Status: 'FAILED',
          FailureReason: 'AWS.SimpleQueueService.NonExistentQueue',
          ApproximateNumberOfMessagesMoved: 2,
          ApproximateNumberOfMessagesToMove: 5,
        },
      ],
    });

    // Act
    const result = await redrive(sqs, options, createProgress(new CapturedWriter(), 'redrive'));

    // Assess
    expect(result).toMatchObject({ method: 'move-task', moved: 2, failed: 3 });
    expect(result.stoppedBecause).toBe(
      'the move task ended FAILED: AWS.SimpleQueueService.NonExistentQueue',
    );
  });

  it('moves message by message when the DLQ is not the source queue’s redrive target', async () => {
    // Prepare
    const { sqs, mock } = sqsWithRedrivePolicy('arn:aws:sqs:eu-central-1:123456789012:other-dlq');
    const writer = new CapturedWriter();

    // Act
    const result = await redrive(sqs, options, createProgress(writer, 'redrive'));

    // Assess
    expect(result.method).toBe('per-message');
    expect(mock.commandCalls(StartMessageMoveTaskCommand)).toHaveLength(0);
    expect(mock.commandCalls(ReceiveMessageCommand).length).toBeGreaterThan(0);
    expect(writer.text).toContain("not the source queue's redrive target");
  });

  it('never starts a task when --max bounds the run', async () => {
    // Prepare
    const { sqs, mock } = sqsWithRedrivePolicy(DLQ_ARN);

    // Act
    const result = await redrive(
      sqs,
      { ...options, max: 3 },
      createProgress(new CapturedWriter(), 'redrive'),
    );

    // Assess
    expect(result.method).toBe('per-message');
    expect(mock.commandCalls(StartMessageMoveTaskCommand)).toHaveLength(0);
  });
});

describe('redrive message by message', () => {
  const deadLetter = (id: string, sourceMessageId: string) => ({
    MessageId: id,
    ReceiptHandle: `handle-${id}`,
    Body: `{"loginUserId":"${id}"}`,
    MessageAttributes: { sourceMessageId: { DataType: 'String', StringValue: sourceMessageId } },
  });

  it('leaves a message that was dead-lettered again during the run in the DLQ', async () => {
    // Prepare: the copy of "a" fails at once and comes back as "b", naming the copy.
    const { sqs, mock } = sqsWithRedrivePolicy(DLQ_ARN);
    mock.on(SendMessageCommand).resolves({ MessageId: 'copy-of-a' });
    mock.on(DeleteMessageCommand).resolves({});
    mock.on(ChangeMessageVisibilityBatchCommand).resolves({ Successful: [{ Id: '0' }] });
    mock
      .on(ReceiveMessageCommand)
      .resolvesOnce({ Messages: [deadLetter('a', 'original-a')] })
      .resolvesOnce({ Messages: [deadLetter('b', 'copy-of-a')] })
      .resolves({ Messages: [] });

    // Act
    const result = await redrive(
      sqs,
      { ...options, perMessage: true },
      createProgress(new CapturedWriter(), 'redrive'),
    );

    // Assess
    expect(result).toMatchObject({ moved: 1, failed: 0, cameBack: 1 });
    expect(mock.commandCalls(SendMessageCommand)).toHaveLength(1);
    expect(
      mock.commandCalls(DeleteMessageCommand).map((c) => c.args[0].input.ReceiptHandle),
    ).toEqual(['handle-a']);
    const released = mock
      .commandCalls(ChangeMessageVisibilityBatchCommand)
      .flatMap((c) => c.args[0].input.Entries ?? []);
    expect(released).toEqual([{ Id: '0', ReceiptHandle: 'handle-b', VisibilityTimeout: 0 }]);
  });

  it('counts a sent message whose delete failed as a duplicate and never sends it twice', async () => {
    // Prepare: deletes keep failing; when the message reappears only its delete is retried.
    const { sqs, mock } = sqsWithRedrivePolicy(DLQ_ARN);
    mock.on(SendMessageCommand).resolves({ MessageId: 'copy' });
    mock
      .on(DeleteMessageCommand)
      .rejectsOnce(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' }))
      .rejects(Object.assign(new Error('still down'), { name: 'ServiceUnavailable' }));
    mock.on(ChangeMessageVisibilityBatchCommand).resolves({});
    mock
      .on(ReceiveMessageCommand)
      .resolvesOnce({ Messages: [deadLetter('a', 'original-a')] })
      .resolvesOnce({
        Messages: [{ ...deadLetter('a', 'original-a'), ReceiptHandle: 'handle-a-2' }],
      })
      .resolves({ Messages: [] });
    const writer = new CapturedWriter();

    // Act
    const result = await redrive(
      sqs,
      { ...options, perMessage: true },
      createProgress(writer, 'redrive'),
    );

    // Assess
    expect(result).toMatchObject({ moved: 1, failed: 0, duplicated: 1 });
    expect(mock.commandCalls(SendMessageCommand)).toHaveLength(1);
    expect(
      mock.commandCalls(DeleteMessageCommand).map((c) => c.args[0].input.ReceiptHandle),
    ).toEqual(['handle-a', 'handle-a-2']);
    expect(writer.text).toContain('a duplicate stays in the DLQ');
  });
});
