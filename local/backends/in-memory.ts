import type { SQSRecord } from 'aws-lambda';
import { ACTION_NAMES, type ActionName } from '../../lambdas/actions';
import type {
  ApiKeySource,
  DeadLetterSink,
  Rescheduler,
  ResultPublisher,
} from '../../lambdas/core/entry/ports';
import { InMemoryLedgerStore } from '../../lambdas/core/ledger/in-memory-ledger-store';
import { inMemoryLedgerItems } from '../../lambdas/reconcile/ledger-item-view';
import { type EventBridgeEvent, InMemoryApiKeySource, InMemorySecretStore } from '../../testkit';
import { InMemoryDeadLetterQueue } from '../in-memory/dead-letter-queue';
import { routeEvent } from '../in-memory/event-rules';
import { InMemoryResultBus } from '../in-memory/result-bus';
import { InMemorySqsQueue, MAX_MESSAGES_PER_RECEIVE } from '../in-memory/sqs-queue';
import { VirtualClock } from '../in-memory/virtual-clock';
import type { Backend, BackendSettings, DeadLetterFound } from './backend';

interface ActionResources {
  readonly queue: InMemorySqsQueue;
  readonly dlq: InMemoryDeadLetterQueue;
  readonly keySource: InMemoryApiKeySource;
}

/**
 * Everything in memory: one SQS queue + DLQ per action with the deployment's redrive policy,
 * the EventBridge rules as `routeEvent`, a local secret store for the API key and a result bus.
 */
export class InMemoryBackend implements Backend {
  readonly description = 'in-memory SQS queues + EventBridge rules + entity ledger (virtual clock)';
  readonly ledger = new InMemoryLedgerStore();
  readonly ledgerItems = inMemoryLedgerItems(this.ledger);
  readonly clock: VirtualClock;
  readonly secretStore: InMemorySecretStore;
  readonly resultBus = new InMemoryResultBus();
  readonly #settings: BackendSettings;
  readonly #resources: ReadonlyMap<ActionName, ActionResources>;
  readonly #redriven: { action: ActionName; body: string }[] = [];

  constructor(settings: BackendSettings, apiKey: string, clock: VirtualClock = new VirtualClock()) {
    this.#settings = settings;
    this.clock = clock;
    this.secretStore = new InMemorySecretStore(apiKey);
    const resources = new Map<ActionName, ActionResources>();
    for (const action of ACTION_NAMES) {
      const own = settings.actions[action];
      const dlq = new InMemoryDeadLetterQueue(`${action}-dlq`);
      const notifyingDlq = {
        acceptRedrive: (message: { body: string; messageId: string }) => {
          dlq.acceptRedrive(message);
          this.#redriven.push({ action, body: message.body });
        },
      };
      resources.set(action, {
        dlq,
        queue: new InMemorySqsQueue({
          name: action,
          visibilityTimeoutSeconds: own.visibilityTimeoutSeconds,
          redrivePolicy: { maxReceiveCount: own.maxReceiveCount, deadLetterQueue: notifyingDlq },
          clock,
        }),
        keySource: new InMemoryApiKeySource({
          store: this.secretStore,
          maxAgeSeconds: settings.apiKeyMaxAgeSeconds,
        }),
      });
    }
    this.#resources = resources;
  }

  #of(action: ActionName): ActionResources {
    const found = this.#resources.get(action);
    if (!found) throw new Error(`no resources for ${action}`);
    return found;
  }

  /** The action's in-memory DLQ (tests and fault injection). */
  deadLetterQueue(action: ActionName): InMemoryDeadLetterQueue {
    return this.#of(action).dlq;
  }

  async putEvents(events: readonly EventBridgeEvent[]): Promise<string[]> {
    for (const event of events) {
      const decision = routeEvent(
        { source: event.source, detailType: event['detail-type'] },
        this.#settings.actions,
      );
      // An unmatched event is dropped, as EventBridge does; the pipeline reports it.
      if (decision.routed) this.#of(decision.action).queue.send(JSON.stringify(event));
    }
    return events.map((event) => event.id);
  }

  async receive(action: ActionName, max: number): Promise<SQSRecord[]> {
    const { queue } = this.#of(action);
    // Lambda's poller assembles batches above 10 from several receives.
    const records: SQSRecord[] = [];
    while (records.length < max) {
      const got = queue.receive(Math.min(MAX_MESSAGES_PER_RECEIVE, max - records.length));
      if (got.length === 0) break;
      records.push(...got);
    }
    return records;
  }

  async deleteMessages(action: ActionName, records: readonly SQSRecord[]): Promise<void> {
    const { queue } = this.#of(action);
    for (const record of records) queue.deleteMessage(record.receiptHandle);
  }

  async pending(): Promise<{ visible: number; inFlight: number }> {
    let visible = 0;
    let inFlight = 0;
    for (const { queue } of this.#resources.values()) {
      visible += queue.visibleCount;
      inFlight += queue.inFlightCount;
    }
    return { visible, inFlight };
  }

  async waitForRedelivery(): Promise<string> {
    const next = [...this.#resources.values()]
      .map(({ queue }) => queue.nextVisibleAt())
      .filter((t): t is number => t !== undefined);
    if (next.length === 0) return 'nothing in flight';
    const target = Math.min(...next);
    const seconds = Math.round((target - this.clock.now()) / 1000);
    this.clock.advanceTo(target);
    return `virtual clock +${seconds} s: failed messages are visible again (their backoff or the visibility timeout is over)`;
  }

  async takeRedriven(): Promise<{ action: ActionName; body: string }[]> {
    return this.#redriven.splice(0);
  }

  async deadLetters(): Promise<DeadLetterFound[]> {
    return [...this.#resources.entries()].flatMap(([action, { dlq }]) =>
      dlq.letters.map((letter) =>
        letter.reason
          ? { action, body: letter.body, reason: letter.reason }
          : { action, body: letter.body },
      ),
    );
  }

  deadLetterSink(action: ActionName): DeadLetterSink {
    return this.#of(action).dlq;
  }

  rescheduler(action: ActionName): Rescheduler {
    const { queue } = this.#of(action);
    return { reschedule: async (handle, seconds) => queue.changeVisibility(handle, seconds) };
  }

  queueNow(): number {
    return this.clock.now();
  }

  resultPublisher(_action: ActionName): ResultPublisher {
    return this.resultBus;
  }

  apiKeySource(action: ActionName): ApiKeySource {
    return this.#of(action).keySource;
  }

  async rotateApiKey(newKey: string): Promise<void> {
    this.secretStore.rotate(newKey);
  }

  secretReads(): number {
    return this.secretStore.reads;
  }

  async close(): Promise<void> {}
}
