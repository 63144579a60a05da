import { createHash, createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DynamoDbError,
  DynamoDbJsonClient,
  dynamoDbEndpoint,
} from '../../../../lambdas/core/aws/dynamodb-json-client';
import {
  type CapturedRequest,
  type Reply,
  startCaptureServer,
} from '../../../support/capture-server';

const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session-token-example',
};
const REGION = 'eu-central-1';
const GET = { TableName: 'ledger', Key: { pk: { S: 'record#c-1' } } };

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A client against a loopback server that answers with `replies` in turn (the last repeats). */
const clientAnswering = async (...replies: Reply[]) => {
  const server = await startCaptureServer(
    (_request, index) => replies[Math.min(index, replies.length - 1)] as Reply,
  );
  servers.push(server);
  const client = new DynamoDbJsonClient({
    region: REGION,
    credentials: CREDENTIALS,
    endpoint: server.baseUrl,
    retryDeps: { sleep: async () => {}, random: () => 0.5, now: Date.now },
  });
  return { client, requests: server.requests };
};

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key: Buffer | string, text: string) =>
  createHmac('sha256', key).update(text, 'utf8').digest();

/**
 * Signature Version 4 recomputed from what reached the server, step by step as the AWS
 * documentation gives it ("Create a signed AWS API request"), independently of the SDK signer
 * the client uses: a header signed but sent otherwise, or a body changed after signing, fails.
 */
const expectedSignature = (request: CapturedRequest): string => {
  const authorization = String(request.headers.authorization);
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  const amzDate = String(request.headers['x-amz-date']);
  const day = amzDate.slice(0, 8);
  const canonicalRequest = [
    request.method,
    request.path,
    '',
    ...signedHeaders.map((name) => `${name}:${String(request.headers[name]).trim()}`),
    '',
    signedHeaders.join(';'),
    sha256(request.bodyText),
  ].join('\n');
  const scope = `${day}/${REGION}/dynamodb/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  let key: Buffer = hmac(`AWS4${CREDENTIALS.secretAccessKey}`, day);
  for (const part of [REGION, 'dynamodb', 'aws4_request']) key = hmac(key, part);
  return hmac(key, stringToSign).toString('hex');
};

describe('DynamoDbJsonClient', () => {
  it('sends the operation as DynamoDB JSON, signed with SigV4 over exactly what it sends', async () => {
    // Prepare
    const { client, requests } = await clientAnswering({
      body: { Item: { pk: { S: 'record#c-1' }, version: { N: '3' } } },
    });

    // Act
    const answer = await client.send('GetItem', GET);

    // Assess
    expect(answer.Item).toEqual({ pk: { S: 'record#c-1' }, version: { N: '3' } });
    const [request] = requests;
    expect(request?.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(request?.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(request?.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
    expect(request?.body).toEqual(GET);
    const authorization = String(request?.headers.authorization);
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-central-1\/dynamodb\/aws4_request, /,
    );
    expect(authorization).toMatch(/SignedHeaders=[^,]*host;[^,]*x-amz-target/);
    expect(authorization).toContain(`Signature=${expectedSignature(request as CapturedRequest)}`);
  });

  it('answers a refused condition as ConditionalCheckFailedException with the item it returned', async () => {
    // Prepare
    const old = { pk: { S: 'record#c-1' }, lease: { S: 'other' } };
    const { client, requests } = await clientAnswering({
      status: 400,
      body: {
        __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
        message: 'The conditional request failed',
        Item: old,
      },
    });

    // Act
    const sent = client.send('UpdateItem', { ...GET, UpdateExpression: 'SET lease = :l' });

    // Assess
    const error = await sent.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DynamoDbError);
    expect(error).toMatchObject({
      name: 'ConditionalCheckFailedException',
      message: 'The conditional request failed',
      item: old,
      retryable: false,
    });
    expect(requests).toHaveLength(1);
  });

  it.each([
    ['throttling', { status: 400, body: { __type: 'x#ProvisionedThroughputExceededException' } }],
    ['a server error', { status: 500, body: { __type: 'x#InternalServerError' } }],
    ['a connection reset', { destroy: true } as const],
  ])(
    'retries %s up to four attempts, as the SDK does for DynamoDB, then throws',
    async (_, reply) => {
      // Prepare
      const { client, requests } = await clientAnswering(reply);

      // Act
      const error = await client.send('GetItem', GET).catch((e: unknown) => e);

      // Assess
      expect(error).toBeInstanceOf(Error);
      expect(requests).toHaveLength(4);
    },
  );

  it('succeeds when a retry does, each attempt signed afresh', async () => {
    // Prepare
    const { client, requests } = await clientAnswering(
      { status: 400, body: { __type: 'x#ThrottlingException' } },
      { body: {} },
    );

    // Act
    const answer = await client.send('PutItem', { TableName: 'ledger', Item: GET.Key });

    // Assess
    expect(answer).toEqual({});
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(String(request.headers.authorization)).toContain(expectedSignature(request));
    }
  });

  it('takes a 200 without a JSON body for a failure to retry, never for "no item"', async () => {
    // Prepare
    const { client, requests } = await clientAnswering({ body: '<html>proxy</html>' });

    // Act
    const error = await client.send('GetItem', GET).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('DynamoDB answered 200 without a JSON object');
    expect(requests).toHaveLength(4);
  });

  it('does not retry a request DynamoDB rejects as invalid', async () => {
    // Prepare
    const { client, requests } = await clientAnswering({
      status: 400,
      body: {
        __type: 'x#ValidationException',
        message: 'One or more parameter values were invalid',
      },
    });

    // Act
    const error = await client.send('GetItem', GET).catch((e: unknown) => e);

    // Assess
    expect(error).toMatchObject({ name: 'ValidationException', retryable: false, statusCode: 400 });
    expect(requests).toHaveLength(1);
  });
});

describe('dynamoDbEndpoint', () => {
  it('fails a client built for the function, at once, when an endpoint setting is refused', () => {
    const saved = process.env.AWS_USE_FIPS_ENDPOINT;
    process.env.AWS_USE_FIPS_ENDPOINT = 'true';
    try {
      expect(() => new DynamoDbJsonClient({ region: REGION, credentials: CREDENTIALS })).toThrow(
        'AWS_USE_FIPS_ENDPOINT=true is not supported',
      );
    } finally {
      if (saved === undefined) delete process.env.AWS_USE_FIPS_ENDPOINT;
      else process.env.AWS_USE_FIPS_ENDPOINT = saved;
    }
  });

  it.each([
    ['eu-central-1', {}, 'https://dynamodb.eu-central-1.amazonaws.com'],
    ['us-east-1', {}, 'https://dynamodb.us-east-1.amazonaws.com'],
    ['cn-north-1', {}, 'https://dynamodb.cn-north-1.amazonaws.com.cn'],
    ['us-gov-west-1', {}, 'https://dynamodb.us-gov-west-1.amazonaws.com'],
    ['eu-west-1', { AWS_ENDPOINT_URL: 'http://127.0.0.1:5000' }, 'http://127.0.0.1:5000'],
    [
      'eu-west-1',
      { AWS_ENDPOINT_URL: 'http://a:1', AWS_ENDPOINT_URL_DYNAMODB: 'http://b:2' },
      'http://b:2',
    ],
  ])('%s with %j is %s', (region, env, expected) => {
    expect(dynamoDbEndpoint(region, env)).toBe(expected);
  });

  it.each(['AWS_USE_FIPS_ENDPOINT', 'AWS_USE_DUALSTACK_ENDPOINT'])(
    'refuses %s=true, naming it, instead of silently using the standard endpoint',
    (setting) => {
      expect(() => dynamoDbEndpoint('us-east-1', { [setting]: 'true' })).toThrow(
        `${setting}=true is not supported`,
      );
    },
  );
});
