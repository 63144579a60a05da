import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { RESULT_EVENT_SOURCE, resultDetailType } from '../identity';
import type { ResultEvent, ResultPublisher } from '../ports';
import type { AwsClientConfig } from './client-config';
import { loadOnce } from './load-once';
import { resultEventDetail } from './result-event-detail';

/** PutEvents accepted the call but rejected the entry (it answers HTTP 200 for that). */
export class ResultPublishError extends Error {
  override readonly name = 'ResultPublishError';
  constructor(
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

export interface EventBridgeResultPublisherOptions {
  /** Name or ARN of the result bus. */
  readonly eventBusName: string;
  readonly client?: EventBridgeClient;
  /** Settings of the client this creates (unused with `client`). @default the SDK's defaults */
  readonly clientConfig?: AwsClientConfig;
}

/** Publishes read results as `<action>.result` events from source `contact-center-sync`. */
export class EventBridgeResultPublisher implements ResultPublisher {
  readonly #eventBusName: string;
  readonly #sdk: () => Promise<{
    readonly client: EventBridgeClient;
    readonly PutEventsCommand: typeof import('@aws-sdk/client-eventbridge').PutEventsCommand;
  }>;

  constructor(options: EventBridgeResultPublisherOptions) {
    this.#eventBusName = options.eventBusName;
    this.#sdk = loadOnce(async () => {
      const { EventBridgeClient, PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
      return {
        client: options.client ?? new EventBridgeClient({ ...options.clientConfig }),
        PutEventsCommand,
      };
    });
  }

  async publish(event: ResultEvent): Promise<void> {
    const { client, PutEventsCommand } = await this.#sdk();
    const response = await client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: this.#eventBusName,
            Source: RESULT_EVENT_SOURCE,
            DetailType: resultDetailType(event.action),
            Detail: resultEventDetail(event),
          },
        ],
      }),
    );
    if ((response.FailedEntryCount ?? 0) > 0) {
      const entry = response.Entries?.find((e) => e.ErrorCode) ?? response.Entries?.[0];
      const code = entry?.ErrorCode ?? 'UnknownError';
      throw new ResultPublishError(
        code,
        `PutEvents rejected the ${resultDetailType(event.action)} event on bus ${this.#eventBusName}: ${code}${
          entry?.ErrorMessage ? ` (${entry.ErrorMessage})` : ''
        }`,
      );
    }
  }
}

/** The result publisher of the read actions' entry points (`createLambdaHandler`'s `results`). */
export const eventBridgeResults = (options: EventBridgeResultPublisherOptions): ResultPublisher =>
  new EventBridgeResultPublisher(options);
