import {
  ChangeMessageVisibilityCommand,
  type MessageAttributeValue,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { AwsClientSource } from './client-config';

export interface SqsQueueOptions extends AwsClientSource<SQSClient> {
  /** The queue's URL. */
  readonly queueUrl: string;
}

/**
 * One SQS queue, as the handler's adapters use it: send a message, delay a received one. The
 * client is imported statically although only failure paths use it: a dynamic `import()`
 * inside the one-file bundle makes esbuild wrap every module the client shares with the others
 * in a lazy initializer, which cost a cold start more than the client itself (bench/README.md).
 */
export class SqsQueue {
  readonly #queueUrl: string;
  readonly #client: SQSClient;

  constructor(options: SqsQueueOptions) {
    this.#queueUrl = options.queueUrl;
    this.#client = options.client ?? new SQSClient({ ...options.clientConfig });
  }

  async send(body: string, attributes: Record<string, MessageAttributeValue>): Promise<void> {
    await this.#client.send(
      new SendMessageCommand({
        QueueUrl: this.#queueUrl,
        MessageBody: body,
        MessageAttributes: attributes,
      }),
    );
  }

  async changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    await this.#client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.#queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: seconds,
      }),
    );
  }
}
