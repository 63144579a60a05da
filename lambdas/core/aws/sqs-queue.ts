import type { MessageAttributeValue, SQSClient } from '@aws-sdk/client-sqs';
import { type AwsClientSource, lazyClient } from './load-once';

export interface SqsQueueOptions extends AwsClientSource<SQSClient> {
  /** The queue's URL. */
  readonly queueUrl: string;
}

/** One SQS queue, as the handler's adapters use it: send a message, delay a received one. */
export class SqsQueue {
  readonly #queueUrl: string;
  readonly #sqs: ReturnType<typeof lazySqs>;

  constructor(options: SqsQueueOptions) {
    this.#queueUrl = options.queueUrl;
    this.#sqs = lazySqs(options);
  }

  async send(body: string, attributes: Record<string, MessageAttributeValue>): Promise<void> {
    const { sdk, client } = await this.#sqs();
    const message = { QueueUrl: this.#queueUrl, MessageBody: body, MessageAttributes: attributes };
    await client.send(new sdk.SendMessageCommand(message));
  }

  async changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    const { sdk, client } = await this.#sqs();
    const delay = {
      QueueUrl: this.#queueUrl,
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: seconds,
    };
    await client.send(new sdk.ChangeMessageVisibilityCommand(delay));
  }
}

const lazySqs = (source: AwsClientSource<SQSClient>) =>
  lazyClient(
    () => import('@aws-sdk/client-sqs'),
    (sdk, config) => new sdk.SQSClient(config),
    source,
  );
