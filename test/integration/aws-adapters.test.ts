/**
 * The AWS adapters against moto (shared server from the global setup): what moto holds
 * afterwards is the assertion, and GetSecretValue calls are counted with SDK middleware.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { CreateSecretCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RESULT_EVENT_SOURCE, resultDetailType } from '../../lambdas/actions';
import {
  ApiKeySecretError,
  EventBridgeResultPublisher,
  MAX_ERROR_MESSAGE_LENGTH,
  MAX_EVENT_ENTRY_BYTES,
  putEventsEntrySize,
  ResultPublishError,
  SecretsManagerApiKeySource,
  SqsDeadLetterSink,
} from '../../lambdas/core/aws';
import type { ResultEvent } from '../../lambdas/core/entry/ports';
import { countSecretReads } from '../../local/backends/secret-read-count';
import {
  createBusRuleToQueue,
  createQueue,
  createSecret,
  motoClients,
  motoEventBridgeClient,
  motoSecretsManagerClient,
  putSecretValue,
  receiveAllMessages,
  stubMotoEnvironment,
  TEST_REGION,
  uniqueName,
} from '../support/aws-clients';
import { deadLetterReason } from '../support/dead-letter-reason';

const { sqs, events, secrets: admin } = motoClients();

afterEach(() => {
  vi.unstubAllEnvs();
  vi.useRealTimers();
});

/** A moto client that counts the GetSecretValue commands sent through it. */
const countingSecretsClient = (): { client: SecretsManagerClient; calls: () => number } => {
  const client = motoSecretsManagerClient();
  return { client, calls: countSecretReads(client) };
};

const keySource = async (value: string, maxAgeSeconds = 3600) => {
  const secret = await createSecret(admin, value);
  const { client, calls } = countingSecretsClient();
  const source = new SecretsManagerApiKeySource({
    secretId: secret.name,
    secretsRegion: TEST_REGION,
    maxAgeSeconds,
    client,
  });
  return { secret, source, calls };
};

/** A source that has served `key-one` (its one read), whose secret has since rotated to `key-two`. */
const rotatedKeySource = async () => {
  const { secret, source, calls } = await keySource('key-one');
  const old = await source.getKey();
  await putSecretValue(admin, secret.name, 'key-two');
  return { source, calls, old };
};

describe('SecretsManagerApiKeySource', () => {
  it('reads the secret once and serves repeated getKey calls from cache', async () => {
    // Prepare
    const { source, calls } = await keySource('key-one');

    // Act
    const first = await source.getKey();
    const again = [await source.getKey(), await source.getKey(), await source.getKey()];

    // Assess
    expect(first).toBe('key-one');
    expect(again).toEqual(['key-one', 'key-one', 'key-one']);
    expect(calls()).toBe(1);
  });

  it('shares one fetch between concurrent first getKey calls', async () => {
    // Prepare
    const { source, calls } = await keySource('key-one');

    // Act
    const keys = await Promise.all(Array.from({ length: 10 }, () => source.getKey()));

    // Assess
    expect(new Set(keys)).toEqual(new Set(['key-one']));
    expect(calls()).toBe(1);
  });

  it('reads again once maxAge has passed', async () => {
    // Prepare
    vi.useFakeTimers({ toFake: ['Date'] });
    const { secret, source, calls } = await keySource('key-one', 60);
    await source.getKey();
    await putSecretValue(admin, secret.name, 'key-two');
    const cached = await source.getKey();

    // Act
    vi.setSystemTime(Date.now() + 61_000);
    const expired = await source.getKey();

    // Assess
    expect(cached).toBe('key-one');
    expect(expired).toBe('key-two');
    expect(calls()).toBe(2);
  });

  /** How callers ask again once the secret has rotated; `answers`: how many keys they get. */
  interface RefreshCase {
    readonly prepare?: (source: SecretsManagerApiKeySource, old: string) => Promise<unknown>;
    readonly act: (source: SecretsManagerApiKeySource, old: string) => Promise<string[]>;
    readonly answers: number;
  }

  it.each<[string, RefreshCase]>([
    [
      'refreshKey fetches the rotated key with one more call',
      {
        act: async (source, old) => [await source.refreshKey(old), await source.getKey()],
        answers: 2,
      },
    ],
    [
      '10 concurrent refreshKey calls for the same rejected key share one fetch',
      {
        act: (source, old) => Promise.all(Array.from({ length: 10 }, () => source.refreshKey(old))),
        answers: 10,
      },
    ],
    [
      'refreshKey with a key already replaced answers from memory',
      {
        prepare: (source, old) => source.refreshKey(old),
        act: async (source, old) => [await source.refreshKey(old)],
        answers: 1,
      },
    ],
  ])('%s', async (_scenario, { prepare, act, answers }) => {
    // Prepare
    const { source, calls, old } = await rotatedKeySource();
    await prepare?.(source, old);

    // Act
    const keys = await act(source, old);

    // Assess: every answer is the rotated key, read with one call after the first.
    expect(keys).toEqual(Array.from({ length: answers }, () => 'key-two'));
    expect(calls()).toBe(2);
  });

  it('drops whitespace around the key', async () => {
    // Prepare
    const { source } = await keySource('  key-with-newline\n');

    // Act
    const key = await source.getKey();

    // Assess
    expect(key).toBe('key-with-newline');
  });

  it('uses the standard SDK environment (AWS_ENDPOINT_URL_SECRETS_MANAGER) without a client', async () => {
    // Prepare
    const secret = await createSecret(admin, 'key-from-env');
    stubMotoEnvironment();
    const source = new SecretsManagerApiKeySource({
      secretId: secret.arn,
      secretsRegion: TEST_REGION,
      maxAgeSeconds: 300,
    });

    // Act
    const key = await source.getKey();

    // Assess
    expect(key).toBe('key-from-env');
  });

  it('fails with not-found naming the secret when it does not exist', async () => {
    // Prepare
    const { client } = countingSecretsClient();
    const secretId = uniqueName('missing');
    const source = new SecretsManagerApiKeySource({
      secretId,
      secretsRegion: TEST_REGION,
      maxAgeSeconds: 60,
      client,
    });

    // Act
    const failure = await source.getKey().catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(ApiKeySecretError);
    expect(failure).toMatchObject({ problem: 'not-found', secretId });
    expect((failure as Error).message).toContain(secretId);
  });

  it('fails with not-a-string, without the value, when the secret is binary', async () => {
    // Prepare
    const name = uniqueName('binary');
    const secretBytes = new TextEncoder().encode('binary-secret-value');
    await admin.send(new CreateSecretCommand({ Name: name, SecretBinary: secretBytes }));
    const { client } = countingSecretsClient();
    const source = new SecretsManagerApiKeySource({
      secretId: name,
      secretsRegion: TEST_REGION,
      maxAgeSeconds: 60,
      client,
    });

    // Act
    const failure = await source.getKey().catch((error: unknown) => error);

    // Assess
    expect(failure).toMatchObject({ problem: 'not-a-string', secretId: name });
    expect(String((failure as Error).message)).not.toContain('binary-secret-value');
  });

  it('fails with unavailable when Secrets Manager cannot be reached', async () => {
    // Prepare: a port nothing listens on (the discard port on loopback).
    const { SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    const client = new SecretsManagerClient({
      endpoint: 'http://127.0.0.1:9',
      region: TEST_REGION,
      credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
      maxAttempts: 1,
    });
    const source = new SecretsManagerApiKeySource({
      secretId: 'any',
      secretsRegion: TEST_REGION,
      maxAgeSeconds: 60,
      client,
    });

    // Act
    const failure = await source.getKey().catch((error: unknown) => error);

    // Assess
    expect(failure).toMatchObject({ problem: 'unavailable', secretId: 'any' });
    expect((failure as Error).cause).toBeInstanceOf(Error);
  });
});

describe('SqsDeadLetterSink', () => {
  it('sends the body unchanged with every reason as a String attribute', async () => {
    // Prepare
    const dlq = await createQueue(sqs, { name: uniqueName('dlq') });
    const sink = new SqsDeadLetterSink({ queueUrl: dlq.queueUrl, client: sqs });
    const body = '{"correlationId":"corr-42","user":{"name":"Zoë Ünal 👩‍💻"},"spaces":"  x  "}\n';

    // Act
    await sink.send(body, deadLetterReason());

    // Assess
    const [message, ...others] = await receiveAllMessages(sqs, dlq.queueUrl, { atLeast: 1 });
    expect(others).toEqual([]);
    expect(message?.Body).toBe(body);
    expect(message?.MessageAttributes).toEqual({
      action: { DataType: 'String', StringValue: 'add-user' },
      errorCategory: { DataType: 'String', StringValue: 'permanent' },
      errorCode: { DataType: 'String', StringValue: 'INVALID_ARGUMENTS' },
      errorMessage: { DataType: 'String', StringValue: 'userName: must be an e-mail address' },
      sourceMessageId: {
        DataType: 'String',
        StringValue: 'f3b6c7a2-5a0e-4a55-9b0e-2d1f3c4b5a69',
      },
      correlationId: { DataType: 'String', StringValue: 'corr-42' },
    });
  });

  it('makes invalid, empty and over-long reasons valid attribute values', async () => {
    // Prepare
    const dlq = await createQueue(sqs, { name: uniqueName('dlq') });
    const sink = new SqsDeadLetterSink({ queueUrl: dlq.queueUrl, client: sqs });
    const longMessage = `bad\u0000byte \uD800 ${'x'.repeat(5000)}`;

    // Act
    await sink.send('{}', deadLetterReason({ errorMessage: longMessage, correlationId: '' }));

    // Assess
    const [message] = await receiveAllMessages(sqs, dlq.queueUrl, { atLeast: 1 });
    const errorMessage = message?.MessageAttributes?.errorMessage?.StringValue ?? '';
    expect(errorMessage.startsWith('bad\uFFFDbyte \uFFFD x')).toBe(true);
    expect(errorMessage.endsWith('…')).toBe(true);
    expect(Array.from(errorMessage)).toHaveLength(MAX_ERROR_MESSAGE_LENGTH);
    expect(message?.MessageAttributes?.correlationId?.StringValue).toBe('(empty)');
  });

  it('uses the standard SDK environment (AWS_ENDPOINT_URL_SQS) without a client', async () => {
    // Prepare
    const dlq = await createQueue(sqs, { name: uniqueName('dlq') });
    stubMotoEnvironment();
    const sink = new SqsDeadLetterSink({ queueUrl: dlq.queueUrl });

    // Act
    await sink.send('{"a":1}', deadLetterReason());

    // Assess
    const messages = await receiveAllMessages(sqs, dlq.queueUrl, { atLeast: 1 });
    expect(messages.map((m) => m.Body)).toEqual(['{"a":1}']);
  });

  it('throws when the queue does not exist', async () => {
    // Prepare
    const { queueUrl } = await createQueue(sqs, { name: uniqueName('exists') });
    const missingUrl = queueUrl.replace(/exists-[^/]+$/, uniqueName('missing'));
    const sink = new SqsDeadLetterSink({ queueUrl: missingUrl, client: sqs });

    // Act
    const sending = sink.send('{}', deadLetterReason());

    // Assess
    await expect(sending).rejects.toThrow();
  });
});

const searchResult = (records: number, filler = 'x'.repeat(40)): ResultEvent => ({
  action: 'search-campaign-records',
  correlationId: 'corr-search-1',
  request: { correlationId: 'corr-search-1', campaignName: 'Leads', clientId: 'c-1' },
  result: {
    status: 'SUCCESS',
    records: Array.from({ length: records }, (_, i) => ({ previewRecordId: `r-${i}`, filler })),
  },
});

const resultRoute = (action: ResultEvent['action']) =>
  createBusRuleToQueue(events, sqs, {
    eventPattern: { source: [RESULT_EVENT_SOURCE], 'detail-type': [resultDetailType(action)] },
  });

describe('EventBridgeResultPublisher', () => {
  it('publishes the result event that a rule delivers to its queue', async () => {
    // Prepare
    const route = await resultRoute('search-campaign-records');
    const publisher = new EventBridgeResultPublisher({
      eventBusName: route.busName,
      client: events,
    });
    const event = searchResult(2);

    // Act
    await publisher.publish(event);

    // Assess
    const [delivered, ...others] = await receiveAllMessages(sqs, route.queue.queueUrl, {
      atLeast: 1,
    });
    expect(others).toEqual([]);
    expect(JSON.parse(delivered?.Body ?? '')).toMatchObject({
      source: 'contact-center-sync',
      'detail-type': 'search-campaign-records.result',
      detail: { correlationId: event.correlationId, request: event.request, result: event.result },
    });
  });

  it('uses the standard SDK environment (AWS_ENDPOINT_URL_EVENTBRIDGE) without a client', async () => {
    // Prepare
    const route = await resultRoute('query-user-existence');
    stubMotoEnvironment();
    const publisher = new EventBridgeResultPublisher({ eventBusName: route.busName });

    // Act
    await publisher.publish({
      action: 'query-user-existence',
      correlationId: 'corr-q-1',
      request: { userName: 'someone' },
      result: { exists: true },
    });

    // Assess
    const delivered = await receiveAllMessages(sqs, route.queue.queueUrl, { atLeast: 1 });
    expect(delivered.map((m) => JSON.parse(m.Body ?? '').detail)).toEqual([
      { correlationId: 'corr-q-1', request: { userName: 'someone' }, result: { exists: true } },
    ]);
  });

  it('publishes a truncated result, within the entry limit, when the full one is too large', async () => {
    // Prepare
    const route = await resultRoute('search-campaign-records');
    const sent: string[] = [];
    const client = motoEventBridgeClient();
    client.middlewareStack.add(
      (next) => (args) => {
        const input = args.input as { Entries?: { Detail?: string }[] };
        sent.push(...(input.Entries ?? []).map((e) => e.Detail ?? ''));
        return next(args);
      },
      { step: 'initialize', name: 'captureEntries' },
    );
    const publisher = new EventBridgeResultPublisher({ eventBusName: route.busName, client });
    const event = searchResult(1000, 'y'.repeat(400));

    // Act
    await publisher.publish(event);

    // Assess
    const [detail = ''] = sent;
    const size = putEventsEntrySize(RESULT_EVENT_SOURCE, 'search-campaign-records.result', detail);
    expect(size).toBeLessThanOrEqual(MAX_EVENT_ENTRY_BYTES);
    const parsed = JSON.parse(detail);
    expect(parsed).toMatchObject({
      correlationId: 'corr-search-1',
      request: event.request,
      truncated: true,
      recordCount: 1000,
      result: { status: 'SUCCESS' },
    });
    expect(parsed.includedRecordCount).toBeGreaterThan(0);
    expect(parsed.includedRecordCount).toBeLessThan(1000);
    expect(parsed.result.records).toHaveLength(parsed.includedRecordCount);
    const delivered = await receiveAllMessages(sqs, route.queue.queueUrl, { atLeast: 1 });
    expect(delivered.map((m) => JSON.parse(m.Body ?? '').detail)).toEqual([parsed]);
  });

  it('throws when PutEvents reports a failed entry with HTTP 200', async () => {
    // Prepare
    const client = new EventBridgeClient({ region: TEST_REGION });
    mockClient(client)
      .on(PutEventsCommand)
      .resolves({
        FailedEntryCount: 1,
        Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }],
      });
    const publisher = new EventBridgeResultPublisher({ eventBusName: 'results', client });

    // Act
    const publishing = publisher.publish(searchResult(1));

    // Assess
    await expect(publishing).rejects.toBeInstanceOf(ResultPublishError);
    await expect(publishing).rejects.toMatchObject({ errorCode: 'InternalFailure' });
  });
});
