import type { ResultEvent, ResultPublisher } from '../../lambdas/core/entry/ports';
import { SyncError } from '../../lambdas/core/errors';
import { PlannedFailures } from './planned-failures';

/** Thrown by `publish` while told to fail; PutEvents would report a failed entry. */
export class ResultPublishFailure extends SyncError<'RESULT_PUBLISH_FAILED'> {
  override readonly name = 'ResultPublishFailure';
  readonly code = 'RESULT_PUBLISH_FAILED';
  readonly category = 'retryable';
}

/** The result bus in memory: records every result event a read action publishes. */
export class InMemoryResultBus implements ResultPublisher {
  readonly #events: ResultEvent[] = [];
  readonly #failures = new PlannedFailures('failNextPublishes');

  /** Published events, oldest first. */
  get events(): readonly ResultEvent[] {
    return [...this.#events];
  }

  /** The next `count` publishes throw `ResultPublishFailure` (and record nothing). */
  failNextPublishes(count: number): void {
    this.#failures.set(count);
  }

  async publish(event: ResultEvent): Promise<void> {
    if (this.#failures.take()) {
      throw new ResultPublishFailure(
        `PutEvents rejected the ${event.action}.result event (simulated)`,
      );
    }
    this.#events.push(event);
  }
}
