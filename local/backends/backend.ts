import type { SQSRecord } from 'aws-lambda';
import type { ActionName } from '../../lambdas/actions';
import type {
  ApiKeySource,
  DeadLetterReason,
  DeadLetterSink,
  Rescheduler,
  ResultPublisher,
} from '../../lambdas/core/entry/ports';
import type { LedgerStore } from '../../lambdas/core/ledger/ledger-store';
import type { LedgerItems } from '../../lambdas/reconcile/ledger-item-view';
import type { EventBridgeEvent } from '../../testkit';
import type { RuleSettings } from '../in-memory/event-rules';

/** An action's queue and rule, as the deployment config sets them. */
export interface ActionQueueSettings extends RuleSettings {
  readonly visibilityTimeoutSeconds: number;
  readonly maxReceiveCount: number;
}

/** What a backend reads from the run's settings to build the deployment's resources. */
export interface BackendSettings {
  readonly actions: Readonly<Record<ActionName, ActionQueueSettings>>;
  /** How long each function's key source caches the API key. */
  readonly apiKeyMaxAgeSeconds: number;
}

/** A message found in a dead-letter queue at the end of a run. */
export interface DeadLetterFound {
  readonly action: ActionName;
  readonly body: string;
  /** Absent when the redrive policy moved it (no reason attached). */
  readonly reason?: DeadLetterReason;
}

/**
 * Where the run's queues, bus, DLQs and secret live: in memory (`npm start`) or in an AWS
 * emulator (`--aws-emulator`). The pipeline drives the real handlers the same way over both.
 */
export interface Backend {
  /** For the run's header, e.g. "in-memory SQS + EventBridge rules, virtual clock". */
  readonly description: string;
  /** The entity ledger all write actions share, as the deployment's one table. */
  readonly ledger: LedgerStore;
  /** The same ledger's items, as reconciliation reads them (one by key, every user's). */
  readonly ledgerItems: LedgerItems;
  /**
   * Puts events on the bus (the rules route them to the action queues). Returns the id each
   * event carries when delivered (EventBridge assigns it on AWS), in input order.
   */
  putEvents(events: readonly EventBridgeEvent[]): Promise<string[]>;
  /** Up to `max` messages from the action's queue, as Lambda's SQS event records. */
  receive(action: ActionName, max: number): Promise<SQSRecord[]>;
  /** Deletes the records of a batch the handler did not report as failed. */
  deleteMessages(action: ActionName, records: readonly SQSRecord[]): Promise<void>;
  /** Messages left in the source queues: receivable now, and received but not yet visible again. */
  pending(): Promise<{ readonly visible: number; readonly inFlight: number }>;
  /** Lets time pass until a message in flight is visible again; returns what happened, for the output. */
  waitForRedelivery(): Promise<string>;
  /**
   * Messages the redrive policy moved to a DLQ since the last call (they carry no reason).
   * The pipeline calls it after every receive and once more at the end.
   */
  takeRedriven(): Promise<{ readonly action: ActionName; readonly body: string }[]>;
  /** Everything in the dead-letter queues now. */
  deadLetters(): Promise<DeadLetterFound[]>;
  deadLetterSink(action: ActionName): DeadLetterSink;
  /** Sets a failed message's visibility in the action's queue (ChangeMessageVisibility). */
  rescheduler(action: ActionName): Rescheduler;
  /** The queues' clock (epoch ms): `SentTimestamp` and visibility are in this time. */
  queueNow(): number;
  resultPublisher(action: ActionName): ResultPublisher;
  /** A key source per function, as each Lambda container has its own cache. */
  apiKeySource(action: ActionName): ApiKeySource;
  /** Stores a new key version in the secret (a rotation). */
  rotateApiKey(newKey: string): Promise<void>;
  /** Reads of the secret so far, when the backend can count them. */
  secretReads(): number | undefined;
  close(): Promise<void>;
}
