import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { ResultEvent, ResultPublisher } from '../entry/ports';
import { SyncError } from '../errors';
import { RESULT_EVENT_SOURCE, resultDetailType } from '../observability/identity';
import type { AwsClientSource } from './client-config';
import { resultEventDetail } from './result-event-detail';

/** PutEvents accepted the call but rejected the entry (it answers HTTP 200 for that). */
export class ResultPublishError extends SyncError<'RESULT_PUBLISH_FAILED'> {
  override readonly name = 'ResultPublishError';
  readonly code = 'RESULT_PUBLISH_FAILED';
  readonly category = 'retryable';
  constructor(
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

export interface EventBridgeResultPublisherOptions extends AwsClientSource<EventBridgeClient> {
  /** Name or ARN of the result bus. */
  readonly eventBusName: string;
}

/** Publishes read results as `<action>.result` events from source `contact-center-sync`. */
export class EventBridgeResultPublisher implements ResultPublisher {
  readonly #eventBusName: string;
  readonly #client: EventBridgeClient;

  constructor(options: EventBridgeResultPublisherOptions) {
    this.#eventBusName = options.eventBusName;
    this.#client = options.client ?? new EventBridgeClient({ ...options.clientConfig });
  }

  async publish(event: ResultEvent): Promise<void> {
    const response = await this.#client.send(
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
