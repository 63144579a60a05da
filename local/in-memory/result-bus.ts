import { SyncError } from '../../lambdas/core/errors';
import type { ResultEvent, ResultPublisher } from '../../lambdas/core/ports';

/** Thrown by `publish` while told to fail; PutEvents would report a failed entry. */
export class ResultPublishFailure extends SyncError<'RESULT_PUBLISH_FAILED'> {
  override readonly name = 'ResultPublishFailure';
  readonly code = 'RESULT_PUBLISH_FAILED';
  readonly category = 'retryable';
}

/** The result bus in memory: records every result event a read action publishes. */
export class InMemoryResultBus implements ResultPublisher {
  readonly #events: ResultEvent[] = [];
  #failuresLeft = 0;

  /** Published events, oldest first. */
  get events(): readonly ResultEvent[] {
    return [...this.#events];
  }

  /** The next `count` publishes throw `ResultPublishFailure` (and record nothing). */
  failNextPublishes(count: number): void {
    if (!Number.isInteger(count) || count < 0) {
      throw new RangeError(`failNextPublishes needs a whole number >= 0, got ${count}`);
    }
    this.#failuresLeft = count;
  }

  async publish(event: ResultEvent): Promise<void> {
    if (this.#failuresLeft > 0) {
      this.#failuresLeft -= 1;
      throw new ResultPublishFailure(
        `PutEvents rejected the ${event.action}.result event (simulated)`,
      );
    }
    this.#events.push(event);
  }
}
