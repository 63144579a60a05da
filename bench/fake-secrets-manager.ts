/**
 * Just enough of Secrets Manager on loopback for the SDK: AWS JSON 1.1 `POST /` with
 * `X-Amz-Target: secretsmanager.GetSecretValue`. Counts the calls; nothing is signed-checked.
 */
import { answerAfter, startAwsJsonServer } from './aws-json-server';

export interface FakeSecretsManagerOptions {
  /** The one secret it holds: its name (or ARN) and value. */
  readonly secretId: string;
  readonly secretString: string;
  readonly region: string;
  /** Every answer waits this long first: the network and Secrets Manager's own time. @default 0 */
  readonly latencyMs?: number;
}

export interface FakeSecretsManager {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_SECRETS_MANAGER`. */
  readonly url: string;
  /** GetSecretValue calls answered since start or the last `resetCalls`. */
  readonly calls: number;
  resetCalls(): void;
  close(): Promise<void>;
}

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

  const server = await startAwsJsonServer(
    'application/x-amz-json-1.1',
    async (target, body, at) => {
      await answerAfter(at, options.latencyMs ?? 0);
      if (target !== 'secretsmanager.GetSecretValue') {
        return [400, { __type: 'UnknownOperationException', message: 'GetSecretValue only' }];
      }
      calls += 1;
      const secretId = (JSON.parse(body || '{}') as { SecretId?: unknown }).SecretId;
      if (secretId !== options.secretId && secretId !== name && secretId !== arn) {
        return [
          400,
          {
            __type: 'ResourceNotFoundException',
            message: "Secrets Manager can't find the specified secret.",
          },
        ];
      }
      return [
        200,
        {
          ARN: arn,
          Name: name,
          SecretString: options.secretString,
          VersionId: 'bench-version-0000-0000-000000000001',
          VersionStages: ['AWSCURRENT'],
          CreatedDate: 1_700_000_000,
        },
      ];
    },
  );
  return {
    url: server.url,
    get calls() {
      return calls;
    },
    resetCalls() {
      calls = 0;
    },
    close: () => server.close(),
  };
};
