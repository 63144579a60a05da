/**
 * Just enough of Secrets Manager on loopback for the SDK: AWS JSON 1.1 `POST /` with
 * `X-Amz-Target: secretsmanager.GetSecretValue`. Counts the calls; nothing is signed-checked.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSecretsManagerOptions {
  /** The one secret it holds: its name (or ARN) and value. */
  readonly secretId: string;
  readonly secretString: string;
  readonly region: string;
}

export interface FakeSecretsManager {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_SECRETS_MANAGER`. */
  readonly url: string;
  /** GetSecretValue calls answered since start or the last `resetCalls`. */
  readonly calls: number;
  resetCalls(): void;
  close(): Promise<void>;
}

const JSON_11 = 'application/x-amz-json-1.1';

const send = (res: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': JSON_11, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
};

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

export const startFakeSecretsManager = async (
  options: FakeSecretsManagerOptions,
): Promise<FakeSecretsManager> => {
  const name = options.secretId.startsWith('arn:')
    ? (options.secretId.split(':')[6] ?? options.secretId)
    : options.secretId;
  const arn = options.secretId.startsWith('arn:')
    ? options.secretId
    : `arn:aws:secretsmanager:${options.region}:123456789012:secret:${name}-BeNcH1`;
  let calls = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    if (req.method !== 'POST' || req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
      send(res, 400, { __type: 'UnknownOperationException', message: 'GetSecretValue only' });
      return;
    }
    calls += 1;
    const secretId = (JSON.parse(body || '{}') as { SecretId?: unknown }).SecretId;
    if (secretId !== options.secretId && secretId !== name && secretId !== arn) {
      send(res, 400, {
        __type: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
      });
      return;
    }
    send(res, 200, {
      ARN: arn,
      Name: name,
      SecretString: options.secretString,
      VersionId: 'bench-version-0000-0000-000000000001',
      VersionStages: ['AWSCURRENT'],
      CreatedDate: 1_700_000_000,
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, { __type: 'InternalServiceError' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get calls() {
      return calls;
    },
    resetCalls() {
      calls = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
};
