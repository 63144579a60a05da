import { ResultPublishError } from '../../lambdas/core/aws/event-bridge-result-publisher';
import type { ResultEvent, ResultPublisher } from '../../lambdas/core/entry/ports';
import { PlannedFailures } from './planned-failures';

/** The result bus in memory: records every result event a read action publishes. */
export class InMemoryResultBus implements ResultPublisher {
  readonly #events: ResultEvent[] = [];
  readonly #failures = new PlannedFailures('failNextPublishes');

  /** Published events, oldest first. */
  get events(): readonly ResultEvent[] {
    return [...this.#events];
  }

  /**
   * The next `count` publishes throw what the EventBridge publisher throws for an entry PutEvents
   * rejected (`ResultPublishError`), and record nothing.
   */
  failNextPublishes(count: number): void {
    this.#failures.set(count);
  }

  async publish(event: ResultEvent): Promise<void> {
    if (this.#failures.take()) {
      throw new ResultPublishError(
        'InternalFailure',
        `PutEvents rejected the ${event.action}.result event (simulated)`,
      );
    }
    this.#events.push(event);
  }
}
