import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Rescheduler } from '../ports';
import type { AwsClientConfig } from './client-config';
import { loadOnce } from './load-once';

export interface SqsVisibilityReschedulerOptions {
  /** URL of the action's source queue (the one the function consumes). */
  readonly queueUrl: string;
  readonly client?: SQSClient;
  /** Settings of the client this creates (unused with `client`). @default the SDK's defaults */
  readonly clientConfig?: AwsClientConfig;
}

/**
 * Reschedules a failed message by setting its visibility timeout: the record is then reported
 * as failed and SQS hands it out again after that delay, not after the queue's fixed timeout.
 */
export class SqsVisibilityRescheduler implements Rescheduler {
  readonly #queueUrl: string;
  readonly #sdk: () => Promise<{
    readonly client: SQSClient;
    readonly ChangeMessageVisibilityCommand: typeof import('@aws-sdk/client-sqs').ChangeMessageVisibilityCommand;
  }>;

  constructor(options: SqsVisibilityReschedulerOptions) {
    this.#queueUrl = options.queueUrl;
    this.#sdk = loadOnce(async () => {
      const { SQSClient, ChangeMessageVisibilityCommand } = await import('@aws-sdk/client-sqs');
      return {
        client: options.client ?? new SQSClient({ ...options.clientConfig }),
        ChangeMessageVisibilityCommand,
      };
    });
  }

  async reschedule(receiptHandle: string, delaySeconds: number): Promise<void> {
    const { client, ChangeMessageVisibilityCommand } = await this.#sdk();
    await client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.#queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: delaySeconds,
      }),
    );
  }
}
