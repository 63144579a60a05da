/**
 * AWS SDK clients pointed at the shared moto server, and the small resource helpers the
 * integration tests need. Fake credentials live here, never in product code.
 *
 * Test files share one moto server and run concurrently: create every resource with
 * `uniqueName()` and never reset the server from a test file.
 *
 * moto 5.2.5 does not implement SQS `StartMessageMoveTask` (HTTP 500): a DLQ redrive test
 * has to move messages with receive + send + delete.
 */
import { randomUUID } from 'node:crypto';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import {
  CreateEventBusCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import {
  ChangeMessageVisibilityBatchCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, inject, vi } from 'vitest';

export const TEST_REGION = 'us-east-1';
/** moto's default account. */
export const TEST_ACCOUNT_ID = '123456789012';
export const TEST_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' } as const;

/** Endpoint of the shared moto server started by `moto-global-setup.ts`. */
export const motoEndpoint = (): string => inject('motoEndpoint');

export interface MotoClientConfig {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

export const motoClientConfig = (
  endpoint: string = motoEndpoint(),
  region: string = TEST_REGION,
): MotoClientConfig => ({ endpoint, region, credentials: { ...TEST_CREDENTIALS } });

export const motoSqsClient = (endpoint?: string, region?: string): SQSClient =>
  new SQSClient(motoClientConfig(endpoint, region));
export const motoEventBridgeClient = (endpoint?: string, region?: string): EventBridgeClient =>
  new EventBridgeClient(motoClientConfig(endpoint, region));
export const motoSecretsManagerClient = (
  endpoint?: string,
  region?: string,
): SecretsManagerClient => new SecretsManagerClient(motoClientConfig(endpoint, region));
export const motoCloudFormationClient = (
  endpoint?: string,
  region?: string,
): CloudFormationClient => new CloudFormationClient(motoClientConfig(endpoint, region));

/** The clients a test arranges and inspects its queues, buses and secrets with. */
export interface MotoClients {
  readonly sqs: SQSClient;
  readonly events: EventBridgeClient;
  readonly secrets: SecretsManagerClient;
}

/** One client per messaging service, all pointed at moto (creating a client sends nothing). */
export const motoClients = (endpoint?: string, region?: string): MotoClients => ({
  sqs: motoSqsClient(endpoint, region),
  events: motoEventBridgeClient(endpoint, region),
  secrets: motoSecretsManagerClient(endpoint, region),
});

/**
 * The standard SDK environment that points code under test (which builds its own clients,
 * as Lambda code does) at moto: fake credentials, region and the per-service endpoint
 * variables.
 */
export const motoEnvironment = (
  endpoint: string = motoEndpoint(),
  region: string = TEST_REGION,
): Record<string, string> => ({
  AWS_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
  AWS_SESSION_TOKEN: 'testing',
  AWS_REGION: region,
  AWS_DEFAULT_REGION: region,
  AWS_ENDPOINT_URL_SQS: endpoint,
  AWS_ENDPOINT_URL_EVENTBRIDGE: endpoint,
  AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
  AWS_ENDPOINT_URL_CLOUDFORMATION: endpoint,
  AWS_ENDPOINT_URL_STS: endpoint,
});

/** Applies `motoEnvironment()` with `vi.stubEnv`; undo with `vi.unstubAllEnvs()`. */
export const stubMotoEnvironment = (endpoint?: string, region?: string): void => {
  for (const [name, value] of Object.entries(motoEnvironment(endpoint, region))) {
    vi.stubEnv(name, value);
  }
};

/**
 * Points every test of the calling file at moto through the environment (`stubMotoEnvironment`
 * before each test) and restores the environment after each one.
 */
export const useMotoEnvironment = (): void => {
  beforeEach(() => {
    stubMotoEnvironment();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });
};

/** A name no other test (file) uses; valid for queues, secrets, buses and rules (≤ 64 chars). */
export const uniqueName = (prefix: string): string =>
  `${prefix.slice(0, 48)}-${randomUUID().replaceAll('-', '').slice(0, 12)}`;

export interface TestQueue {
  readonly queueUrl: string;
  readonly queueArn: string;
}

export interface TestQueueWithDlq extends TestQueue {
  readonly deadLetterQueue: TestQueue;
  readonly maxReceiveCount: number;
}

export const queueArn = async (sqs: SQSClient, queueUrl: string): Promise<string> => {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  const arn = Attributes?.QueueArn;
  if (!arn) throw new Error(`No QueueArn for ${queueUrl}`);
  return arn;
};

export const createQueue = async (
  sqs: SQSClient,
  options: { name?: string; attributes?: Record<string, string> } = {},
): Promise<TestQueue> => {
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({
      QueueName: options.name ?? uniqueName('queue'),
      Attributes: options.attributes,
    }),
  );
  if (!QueueUrl) throw new Error('CreateQueue returned no QueueUrl');
  return { queueUrl: QueueUrl, queueArn: await queueArn(sqs, QueueUrl) };
};

/** A source queue whose redrive policy moves a message to its own DLQ after `maxReceiveCount` receives. */
export const createQueueWithDlq = async (
  sqs: SQSClient,
  options: { name?: string; maxReceiveCount?: number; attributes?: Record<string, string> } = {},
): Promise<TestQueueWithDlq> => {
  const name = options.name ?? uniqueName('queue');
  const maxReceiveCount = options.maxReceiveCount ?? 5;
  const deadLetterQueue = await createQueue(sqs, { name: `${name}-dlq` });
  const source = await createQueue(sqs, {
    name,
    attributes: {
      ...options.attributes,
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: deadLetterQueue.queueArn,
        maxReceiveCount: String(maxReceiveCount),
      }),
    },
  });
  return { ...source, deadLetterQueue, maxReceiveCount };
};

export const createSecret = async (
  secrets: SecretsManagerClient,
  value: string,
  name: string = uniqueName('secret'),
): Promise<{ readonly name: string; readonly arn: string }> => {
  const { ARN } = await secrets.send(new CreateSecretCommand({ Name: name, SecretString: value }));
  if (!ARN) throw new Error('CreateSecret returned no ARN');
  return { name, arn: ARN };
};

/** Rotates a secret to `value` (a new AWSCURRENT version). */
export const putSecretValue = async (
  secrets: SecretsManagerClient,
  secretId: string,
  value: string,
): Promise<void> => {
  await secrets.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value }));
};

export interface BusRuleToQueue {
  readonly busName: string;
  readonly ruleName: string;
  readonly queue: TestQueue;
}

/**
 * A rule with `eventPattern` on a bus (a new one unless `busName` is given) whose target is a
 * new queue (or `queue`). Real AWS also needs a queue policy for events.amazonaws.com; moto
 * does not check it.
 */
export const createBusRuleToQueue = async (
  events: EventBridgeClient,
  sqs: SQSClient,
  options: { eventPattern: unknown; busName?: string; queue?: TestQueue },
): Promise<BusRuleToQueue> => {
  const busName = options.busName ?? uniqueName('bus');
  if (!options.busName) await events.send(new CreateEventBusCommand({ Name: busName }));
  const queue = options.queue ?? (await createQueue(sqs, { name: uniqueName('rule-target') }));
  const ruleName = uniqueName('rule');
  await events.send(
    new PutRuleCommand({
      Name: ruleName,
      EventBusName: busName,
      EventPattern: JSON.stringify(options.eventPattern),
      State: 'ENABLED',
    }),
  );
  const { FailedEntryCount } = await events.send(
    new PutTargetsCommand({
      Rule: ruleName,
      EventBusName: busName,
      Targets: [{ Id: 'queue', Arn: queue.queueArn }],
    }),
  );
  if (FailedEntryCount) throw new Error(`PutTargets failed for rule ${ruleName}`);
  return { busName, ruleName, queue };
};

export interface ReceiveAllOptions {
  /** Keep polling until at least this many messages arrived (bounded by `timeoutMs`). @default 0 */
  readonly atLeast?: number;
  /** Bound on the polling for `atLeast`. @default 10000 */
  readonly timeoutMs?: number;
  /**
   * `release` (default): the messages stay in the queue, visible again at once (their
   * ApproximateReceiveCount still goes up). `delete`: the queue is drained.
   */
  readonly afterwards?: 'release' | 'delete';
}

/**
 * Every message currently in a queue, with all system attributes and message attributes.
 * Messages are held invisible while collecting so none is returned twice.
 */
export const receiveAllMessages = async (
  sqs: SQSClient,
  queueUrl: string,
  options: ReceiveAllOptions = {},
): Promise<Message[]> => {
  const atLeast = options.atLeast ?? 0;
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const messages: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 60,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    messages.push(...Messages);
    if (Messages.length > 0) continue;
    if (messages.length >= atLeast || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const handles = messages.flatMap((m, i) =>
    m.ReceiptHandle ? [{ Id: String(i), ReceiptHandle: m.ReceiptHandle }] : [],
  );
  for (let start = 0; start < handles.length; start += 10) {
    const entries = handles.slice(start, start + 10);
    const result =
      options.afterwards === 'delete'
        ? await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }))
        : await sqs.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: queueUrl,
              Entries: entries.map((entry) => ({ ...entry, VisibilityTimeout: 0 })),
            }),
          );
    if (result.Failed?.length) throw new Error(`Could not release/delete ${queueUrl} messages`);
  }
  return messages;
};

/** `ApproximateNumberOfMessages` + `…NotVisible` of a queue, without receiving anything. */
export const countMessages = async (sqs: SQSClient, queueUrl: string): Promise<number> => {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
};
