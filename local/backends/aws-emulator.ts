import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CreateEventBusCommand,
  DeleteEventBusCommand,
  DeleteRuleCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { ACTION_NAMES, type ActionName } from '../../lambdas/actions';
import {
  EventBridgeResultPublisher,
  SecretsManagerApiKeySource,
  SqsDeadLetterSink,
  SqsVisibilityRescheduler,
} from '../../lambdas/core/aws';
import { ledgerTableClient } from '../../lambdas/core/aws/ledger-table';
import type { DeadLetterReason } from '../../lambdas/core/entry/ports';
import type { RetrySchedule } from '../../lambdas/core/entry/retry-schedule';
import { DynamoDbLedgerStore } from '../../lambdas/core/ledger/dynamodb-ledger-store';
import type { LedgerStore } from '../../lambdas/core/ledger/ledger-store';
import { dynamoDbLedgerItems } from '../../lambdas/reconcile/dynamodb-ledger-items';
import type { LedgerItems } from '../../lambdas/reconcile/ledger-item-view';
import {
  actionOutputKeys,
  EVENT_BUS_OUTPUT_KEY,
  LEDGER_TABLE_OUTPUT_KEY,
} from '../../lib/stack-outputs';
import { counted } from '../../ops/counted';
import {
  type DeadLetterView,
  peekMessages,
  receiveBatch,
  viewDeadLetter,
} from '../../ops/dead-letters';
import { type EventBridgeEvent, sqsRecord } from '../../testkit';
import { createLedgerTable } from '../aws-emulator/ledger-table';
import { startMotoServer } from '../aws-emulator/moto-server';
import { ensurePythonTools, type ToolsProgress } from '../aws-emulator/python-tools';
import type { Backend, BackendSettings, DeadLetterFound } from './backend';
import { putBusEvents } from './put-bus-events';
import { countSecretReads } from './secret-read-count';

/**
 * The emulator's queues get a short visibility timeout instead of 6 × the function timeout:
 * on a real clock minutes of waiting per redelivery would make the run unusable.
 */
export const EMULATOR_VISIBILITY_TIMEOUT_SECONDS = 2;

/** The emulator runs in real time: a retry window of seconds instead of a day. */
export const EMULATOR_RETRY_SCHEDULE: RetrySchedule = {
  windowSeconds: 8,
  firstDelaySeconds: 1,
  maxDelaySeconds: 2,
};
/** DLQs keep messages 14 days, as deployed. */
const DLQ_RETENTION_SECONDS = 14 * 24 * 3600;
const SQS_MAX_MESSAGES = 10;

interface ActionResources {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly dlqUrl: string;
  readonly ruleName: string | undefined;
  readonly deadLetters: SqsDeadLetterSink;
  readonly results: EventBridgeResultPublisher;
  readonly keySource: SecretsManagerApiKeySource;
}

export interface EmulatorBackendOptions {
  /** `http://127.0.0.1:<port>` of a running moto server. */
  readonly endpoint: string;
  readonly settings: BackendSettings;
  readonly apiKey: string;
  /** @default us-east-1 */
  readonly region?: string;
  /** Called at the end of `close()`, e.g. to stop the emulator the run started. */
  readonly onClose?: () => Promise<void>;
}

export interface StartEmulatorBackendOptions {
  readonly settings: BackendSettings;
  readonly apiKey: string;
  /** Told each preparation step, for a progress line. @default silent */
  readonly progress?: ToolsProgress;
}

/**
 * Points every AWS SDK client this process builds at the emulator through the standard
 * configuration (`AWS_ENDPOINT_URL_<SERVICE>`, region, credentials), as the Lambda entry points
 * read it. The credentials are placeholders the emulator accepts; real ones are never sent.
 */
export const pointSdkAtEmulator = (endpoint: string, region: string): void => {
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SQS: endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_ACCESS_KEY_ID: 'local-emulator',
    AWS_SECRET_ACCESS_KEY: 'local-emulator',
  });
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
};

const toRecordAttributes = (message: Message): SQSMessageAttributes =>
  Object.fromEntries(
    Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
      name,
      {
        dataType: value.DataType ?? 'String',
        ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
      },
    ]),
  );

/**
 * The reason attributes of a dead letter in `action`'s DLQ, or undefined when it has none (the
 * redrive policy moved it).
 */
export const reasonOf = (
  action: ActionName,
  { reason }: DeadLetterView,
): DeadLetterReason | undefined =>
  reason.errorCode === undefined
    ? undefined
    : {
        action,
        errorCategory: reason.errorCategory === 'retryable' ? 'retryable' : 'permanent',
        errorCode: reason.errorCode,
        errorMessage: reason.errorMessage ?? '',
        sourceMessageId: reason.sourceMessageId ?? '',
        correlationId: reason.correlationId ?? '',
      };

/** A received message as the record Lambda's SQS poller hands the handler. */
export const toRecord = (message: Message, queueArn: string): SQSRecord => {
  const attributes = message.Attributes ?? {};
  const epochMs = (value: string | undefined): number | undefined =>
    value === undefined ? undefined : Number(value);
  return sqsRecord(message.Body ?? '', {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    receiveCount: Number(attributes.ApproximateReceiveCount ?? 1),
    sentAt: epochMs(attributes.SentTimestamp),
    firstReceivedAt: epochMs(attributes.ApproximateFirstReceiveTimestamp),
    senderId: attributes.SenderId ?? 'emulator',
    messageAttributes: toRecordAttributes(message),
    md5OfBody: message.MD5OfBody ?? '',
    queueArn,
  });
};

/** The deployment's ledger table in the emulator. */
const createLedger = async (tableName: string): Promise<LedgerStore> => {
  await createLedgerTable(new DynamoDBClient({}), tableName);
  return new DynamoDbLedgerStore({ tableName, client: ledgerTableClient() });
};

/**
 * The run's resources in an AWS emulator (moto): an EventBridge bus with one rule per enabled
 * action routing by `source` + `detail-type` to the action's SQS queue, each queue with a DLQ
 * and the deployment's redrive policy, and the API key in a Secrets Manager secret. The
 * handlers get the real AWS adapters from `lambdas/core/aws/`.
 */
export class EmulatorBackend implements Backend {
  readonly description: string;
  readonly ledger: LedgerStore;
  readonly ledgerItems: LedgerItems;
  readonly #sqs: SQSClient;
  readonly #events: EventBridgeClient;
  readonly #secrets: SecretsManagerClient;
  readonly #resources: ReadonlyMap<ActionName, ActionResources>;
  readonly #busName: string;
  /** The run's ledger table (also where reconciliation keeps its run history). */
  readonly ledgerTableName: string;
  readonly #secretId: string;
  readonly #reads: () => number;
  readonly #onClose: (() => Promise<void>) | undefined;

  private constructor(parts: {
    endpoint: string;
    sqs: SQSClient;
    events: EventBridgeClient;
    secrets: SecretsManagerClient;
    resources: ReadonlyMap<ActionName, ActionResources>;
    busName: string;
    secretId: string;
    reads: () => number;
    onClose: (() => Promise<void>) | undefined;
    ledger: LedgerStore;
    ledgerTableName: string;
  }) {
    this.ledgerTableName = parts.ledgerTableName;
    this.description = `moto server ${parts.endpoint}: SQS queues + DLQs, EventBridge rules, Secrets Manager, DynamoDB entity ledger (visibility timeout shortened to ${EMULATOR_VISIBILITY_TIMEOUT_SECONDS} s)`;
    this.ledger = parts.ledger;
    this.ledgerItems = dynamoDbLedgerItems({
      tableName: parts.ledgerTableName,
      client: ledgerTableClient(),
    });
    this.#sqs = parts.sqs;
    this.#events = parts.events;
    this.#secrets = parts.secrets;
    this.#resources = parts.resources;
    this.#busName = parts.busName;
    this.#secretId = parts.secretId;
    this.#reads = parts.reads;
    this.#onClose = parts.onClose;
  }

  /**
   * Installs the Python tools when needed (a first run, about 40 s), starts a moto server of its own and
   * creates the run's resources in it; closing the backend stops the server.
   */
  static async start(options: StartEmulatorBackendOptions): Promise<EmulatorBackend> {
    const tools = await ensurePythonTools(options.progress ? { progress: options.progress } : {});
    options.progress?.step('starting moto server');
    const moto = await startMotoServer({ python: tools.python });
    options.progress?.step('creating the queues, rules, secret and ledger table');
    try {
      return await EmulatorBackend.create({
        endpoint: moto.endpoint,
        settings: options.settings,
        apiKey: options.apiKey,
        onClose: () => moto.stop(),
      });
    } catch (error) {
      await moto.stop();
      throw error;
    }
  }

  /** Creates the bus, rules, queues and secret (names unique per run) in the emulator. */
  static async create(options: EmulatorBackendOptions): Promise<EmulatorBackend> {
    const region = options.region ?? 'us-east-1';
    pointSdkAtEmulator(options.endpoint, region);
    const sqs = new SQSClient({});
    const events = new EventBridgeClient({});
    const secrets = new SecretsManagerClient({});
    const prefix = `ccs-local-${randomBytes(6).toString('hex')}`;
    const busName = `${prefix}-bus`;
    const secretId = `${prefix}/platform-api-key`;

    await secrets.send(new CreateSecretCommand({ Name: secretId, SecretString: options.apiKey }));
    await events.send(new CreateEventBusCommand({ Name: busName }));
    const ledgerTableName = `${prefix}-ledger`;
    const ledger = await createLedger(ledgerTableName);

    // One client for every key source, counting GetSecretValue calls (configured from the env).
    const keyClient = new SecretsManagerClient({});
    const reads = countSecretReads(keyClient);

    const createQueue = async (name: string, attributes: Record<string, string>) => {
      const { QueueUrl } = await sqs.send(
        new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
      );
      if (!QueueUrl) throw new Error(`CreateQueue ${name} returned no URL`);
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
      );
      const arn = Attributes?.QueueArn;
      if (!arn) throw new Error(`no ARN for queue ${name}`);
      return { url: QueueUrl, arn };
    };

    const resources = new Map<ActionName, ActionResources>();
    for (const action of ACTION_NAMES) {
      const own = options.settings.actions[action];
      const dlq = await createQueue(`${prefix}-${action}-dlq`, {
        MessageRetentionPeriod: String(DLQ_RETENTION_SECONDS),
      });
      const queue = await createQueue(`${prefix}-${action}`, {
        VisibilityTimeout: String(EMULATOR_VISIBILITY_TIMEOUT_SECONDS),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlq.arn,
          maxReceiveCount: String(own.maxReceiveCount),
        }),
      });
      let ruleName: string | undefined;
      if (own.enabled) {
        ruleName = `${prefix}-${action}`;
        await events.send(
          new PutRuleCommand({
            Name: ruleName,
            EventBusName: busName,
            EventPattern: JSON.stringify({ source: own.allowedSources, 'detail-type': [action] }),
            State: 'ENABLED',
          }),
        );
        const targets = await events.send(
          new PutTargetsCommand({
            Rule: ruleName,
            EventBusName: busName,
            Targets: [{ Id: 'queue', Arn: queue.arn }],
          }),
        );
        if (targets.FailedEntryCount) throw new Error(`PutTargets failed for rule ${ruleName}`);
      }
      resources.set(action, {
        queueUrl: queue.url,
        queueArn: queue.arn,
        dlqUrl: dlq.url,
        ruleName,
        deadLetters: new SqsDeadLetterSink({ queueUrl: dlq.url }),
        results: new EventBridgeResultPublisher({ eventBusName: busName }),
        keySource: new SecretsManagerApiKeySource({
          secretId,
          secretsRegion: region,
          maxAgeSeconds: options.settings.apiKeyMaxAgeSeconds,
          client: keyClient,
        }),
      });
    }
    return new EmulatorBackend({
      endpoint: options.endpoint,
      sqs,
      events,
      secrets,
      resources,
      busName,
      secretId,
      reads,
      onClose: options.onClose,
      ledger,
      ledgerTableName,
    });
  }

  /** What the stack's outputs would name (`reconcile` tests point the ops CLI at them). */
  get outputs(): Readonly<Record<string, string>> {
    return {
      [EVENT_BUS_OUTPUT_KEY]: this.#busName,
      [LEDGER_TABLE_OUTPUT_KEY]: this.ledgerTableName,
      ...Object.fromEntries(
        [...this.#resources].flatMap(([action, r]) => [
          [actionOutputKeys(action).queueUrl, r.queueUrl],
          [actionOutputKeys(action).deadLetterQueueUrl, r.dlqUrl],
        ]),
      ),
    };
  }

  #of(action: ActionName): ActionResources {
    const found = this.#resources.get(action);
    if (!found) throw new Error(`no resources for ${action}`);
    return found;
  }

  putEvents(events: readonly EventBridgeEvent[]): Promise<string[]> {
    return putBusEvents(this.#events, this.#busName, events);
  }

  async receive(action: ActionName, max: number): Promise<SQSRecord[]> {
    const { queueUrl, queueArn } = this.#of(action);
    const records: SQSRecord[] = [];
    while (records.length < max) {
      // The queue's own visibility timeout applies, as for Lambda's poller.
      const messages = await receiveBatch(this.#sqs, queueUrl, {
        maxMessages: max - records.length,
        waitSeconds: 0,
      });
      if (messages.length === 0) break;
      records.push(...messages.map((message) => toRecord(message, queueArn)));
    }
    return records;
  }

  async deleteMessages(action: ActionName, records: readonly SQSRecord[]): Promise<void> {
    const { queueUrl } = this.#of(action);
    for (let start = 0; start < records.length; start += SQS_MAX_MESSAGES) {
      const chunk = records.slice(start, start + SQS_MAX_MESSAGES);
      const response = await this.#sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((record, i) => ({
            Id: String(i),
            ReceiptHandle: record.receiptHandle,
          })),
        }),
      );
      if (response.Failed?.length) {
        throw new Error(
          `DeleteMessageBatch on the ${action} queue failed for ${counted(response.Failed.length, 'message')}`,
        );
      }
    }
  }

  async pending(): Promise<{ visible: number; inFlight: number }> {
    let visible = 0;
    let inFlight = 0;
    for (const { queueUrl } of this.#resources.values()) {
      const { Attributes = {} } = await this.#sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      visible += Number(Attributes.ApproximateNumberOfMessages ?? 0);
      inFlight += Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
    }
    return { visible, inFlight };
  }

  async waitForRedelivery(): Promise<string> {
    await sleep(EMULATOR_VISIBILITY_TIMEOUT_SECONDS * 1000);
    return `waited ${EMULATOR_VISIBILITY_TIMEOUT_SECONDS} s: visibility timeout over, failed messages are visible again`;
  }

  /** The emulator moves messages itself; they are found by `deadLetters()` at the end. */
  async takeRedriven(): Promise<{ action: ActionName; body: string }[]> {
    return [];
  }

  async deadLetters(): Promise<DeadLetterFound[]> {
    const found: DeadLetterFound[] = [];
    for (const [action, { dlqUrl }] of this.#resources) {
      // Read as `npm run ops -- dlq list` reads a DLQ: each seen once, all left in place.
      const { messages } = await peekMessages(this.#sqs, dlqUrl);
      for (const message of messages) {
        const view = viewDeadLetter(message);
        const reason = reasonOf(action, view);
        found.push(reason ? { action, body: view.body, reason } : { action, body: view.body });
      }
    }
    return found;
  }

  deadLetterSink(action: ActionName) {
    return this.#of(action).deadLetters;
  }

  rescheduler(action: ActionName) {
    return new SqsVisibilityRescheduler({ queueUrl: this.#of(action).queueUrl, client: this.#sqs });
  }

  /** The emulator's queues run in real time. */
  queueNow(): number {
    return Date.now();
  }

  resultPublisher(action: ActionName) {
    return this.#of(action).results;
  }

  apiKeySource(action: ActionName) {
    return this.#of(action).keySource;
  }

  async rotateApiKey(newKey: string): Promise<void> {
    await this.#secrets.send(
      new PutSecretValueCommand({ SecretId: this.#secretId, SecretString: newKey }),
    );
  }

  secretReads(): number {
    return this.#reads();
  }

  /** Deletes what `create` made (best effort: the emulator may already be gone). */
  async close(): Promise<void> {
    const attempt = async (work: () => Promise<unknown>): Promise<void> => {
      try {
        await work();
      } catch {
        // Cleanup of a throwaway emulator; nothing to report.
      }
    };
    for (const { queueUrl, dlqUrl, ruleName } of this.#resources.values()) {
      if (ruleName) {
        await attempt(() =>
          this.#events.send(
            new RemoveTargetsCommand({
              Rule: ruleName,
              EventBusName: this.#busName,
              Ids: ['queue'],
            }),
          ),
        );
        await attempt(() =>
          this.#events.send(new DeleteRuleCommand({ Name: ruleName, EventBusName: this.#busName })),
        );
      }
      await attempt(() => this.#sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })));
      await attempt(() => this.#sqs.send(new DeleteQueueCommand({ QueueUrl: dlqUrl })));
    }
    await attempt(() => this.#events.send(new DeleteEventBusCommand({ Name: this.#busName })));
    await attempt(() =>
      this.#secrets.send(
        new DeleteSecretCommand({ SecretId: this.#secretId, ForceDeleteWithoutRecovery: true }),
      ),
    );
    this.#sqs.destroy();
    this.#events.destroy();
    this.#secrets.destroy();
    await this.#onClose?.();
  }
}
