/**
 * The ledger table's client is the SDK's, set up as the functions set it up
 * (`ledgerTableClient(lambdaClientConfig())`): its endpoint follows the SDK's standard settings,
 * FIPS and dual-stack included, and the SDK retries what it deems transient. Only the transport
 * is replaced, by one that records each request and answers it, so nothing leaves the machine.
 */
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lambdaClientConfig } from '../../../../lambdas/core/aws/client-config';
import { LedgerTable, ledgerTableClient } from '../../../../lambdas/core/aws/ledger-table';

const LAMBDA_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  AWS_SESSION_TOKEN: 'token',
};

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** A transport that records the URL of each request and gives the next answer (then 200 `{}`). */
const recordingTransport = (answers: Answer[] = []) => {
  const urls: URL[] = [];
  return {
    urls,
    handle: async (request: {
      protocol: string;
      hostname: string;
      port?: number;
      path: string;
    }) => {
      const port = request.port === undefined ? '' : `:${request.port}`;
      urls.push(new URL(`${request.protocol}//${request.hostname}${port}${request.path}`));
      const { status, body } = answers.shift() ?? { status: 200, body: {} };
      return {
        response: {
          statusCode: status,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: Readable.from([Buffer.from(JSON.stringify(body))]),
        },
      };
    },
  };
};

/** The functions' ledger table with the recording transport, under `env` on top of Lambda's. */
const functionsTable = (
  env: Readonly<Record<string, string>>,
  transport: ReturnType<typeof recordingTransport>,
): LedgerTable => {
  for (const [name, value] of Object.entries({ ...LAMBDA_ENV, ...env })) vi.stubEnv(name, value);
  for (const name of ['AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_DYNAMODB', 'AWS_PROFILE']) {
    if (!(name in env)) vi.stubEnv(name, undefined);
  }
  const client = ledgerTableClient({ ...lambdaClientConfig(), requestHandler: transport });
  return new LedgerTable({ tableName: 'ledger', client });
};

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the ledger table client', () => {
  it.each([
    ['no endpoint setting', {}, 'https://dynamodb.us-east-1.amazonaws.com/'],
    [
      'AWS_USE_FIPS_ENDPOINT',
      { AWS_USE_FIPS_ENDPOINT: 'true' },
      'https://dynamodb-fips.us-east-1.amazonaws.com/',
    ],
    [
      'AWS_USE_DUALSTACK_ENDPOINT',
      { AWS_USE_DUALSTACK_ENDPOINT: 'true' },
      'https://dynamodb.us-east-1.api.aws/',
    ],
    [
      'both',
      { AWS_USE_FIPS_ENDPOINT: 'true', AWS_USE_DUALSTACK_ENDPOINT: 'true' },
      'https://dynamodb-fips.us-east-1.api.aws/',
    ],
    [
      'AWS_ENDPOINT_URL_DYNAMODB',
      { AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000' },
      'http://127.0.0.1:8000/',
    ],
  ])('sends to the endpoint the SDK chooses with %s', async (_case, env, expected) => {
    // Prepare
    const transport = recordingTransport();
    const table = functionsTable(env, transport);

    // Act
    await table.get('entity#1');

    // Assess
    expect(transport.urls.map(String)).toEqual([expected]);
  });

  it('retries a throttled request as the SDK does, then reads the answer', async () => {
    // Prepare
    const throttled = {
      status: 400,
      body: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'slow' },
    };
    const transport = recordingTransport([
      throttled,
      throttled,
      { status: 200, body: { Item: { pk: { S: 'entity#1' } } } },
    ]);
    const table = functionsTable({}, transport);

    // Act
    const item = await table.get('entity#1');

    // Assess
    expect(transport.urls).toHaveLength(3);
    expect(item).toEqual({ pk: { S: 'entity#1' } });
  });

  it('answers a refused condition with the item as it was, not an error', async () => {
    // Prepare
    const transport = recordingTransport([
      {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
          message: 'The conditional request failed',
          Item: { pk: { S: 'entity#1' }, n: { N: '3' } },
        },
      },
    ]);
    const table = functionsTable({}, transport);

    // Act
    const write = await table.update('entity#1', {
      UpdateExpression: 'SET n = :n',
      ConditionExpression: 'attribute_not_exists(n)',
      ExpressionAttributeValues: { ':n': { N: '4' } },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });

    // Assess
    expect(write).toEqual({ done: false, item: { pk: { S: 'entity#1' }, n: { N: '3' } } });
  });

  it.each([
    ['without a logger, runs no log filtering over the items', undefined, false],
    ['with a logger, still logs each request', 'given', true],
  ] as const)('%s', async (_name, given, logged) => {
    // Prepare
    const transport = recordingTransport([{ status: 200, body: { Item: { pk: { S: 'e#1' } } } }]);
    const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const client = ledgerTableClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret' },
      requestHandler: transport,
      ...(given === undefined ? {} : { logger }),
    });

    // Act
    await new LedgerTable({ tableName: 'ledger', client }).get('e#1');

    // Assess
    expect(client.middlewareStack.identify().some((m) => m.startsWith('loggerMiddleware'))).toBe(
      logged,
    );
    // A given logger still gets each request (without one, there is nothing to watch).
    if (given !== undefined) expect(logger.info).toHaveBeenCalled();
  });
});

describe('ledgerTableClient: the middleware chain', () => {
  it('is built once per command, not on every request', async () => {
    // Prepare
    const transport = recordingTransport();
    const client = ledgerTableClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret' },
      requestHandler: transport,
    });
    const table = new LedgerTable({ tableName: 'ledger', client });
    await table.get('e#1');
    const late = vi.fn((next) => next);

    // Act: a middleware added after the first request is not in the cached chain
    client.middlewareStack.add(late, { step: 'initialize' });
    await table.get('e#1');

    // Assess
    expect(late).not.toHaveBeenCalled();
    expect(transport.urls).toHaveLength(2);
  });
});
