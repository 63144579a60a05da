import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { fromEnv } from '@aws-sdk/credential-provider-env';

type CredentialsOption = NonNullable<DynamoDBClientConfig['credentials']>;
type Environment = Readonly<Record<string, string | undefined>>;

type RequestHandlerOption = NonNullable<DynamoDBClientConfig['requestHandler']>;

/** Settings every AWS SDK client of a function is built with (any client accepts them). */
export interface AwsClientConfig {
  readonly region?: string;
  readonly credentials?: CredentialsOption;
  readonly requestHandler?: RequestHandlerOption;
}

/**
 * Each attempt's time limits. The SDK sets none (a silent socket is given up after 5 minutes),
 * and one hung request would hold its record, and the batch, until the function's timeout; a
 * timed-out attempt is retried as the SDK retries any transient error.
 */
export const AWS_REQUEST_LIMITS = {
  connectionTimeout: 1_000,
  requestTimeout: 5_000,
  // Without it a request past its time is only warned about.
  throwOnRequestTimeout: true,
} as const satisfies RequestHandlerOption;

/**
 * The limits of a client that moves whole files (the reconcile run's S3 objects: a plan of
 * 100 000 users is tens of MB): the request limit counts from the first byte sent to the
 * response's headers, upload included, so it is minutes, not seconds.
 */
export const AWS_TRANSFER_LIMITS = {
  ...AWS_REQUEST_LIMITS,
  requestTimeout: 300_000,
} as const satisfies RequestHandlerOption;

/** Where an adapter's SDK client comes from: one handed in (shared, or a test's), or one it builds. */
export interface AwsClientSource<Client> {
  readonly client?: Client;
  /** Settings of the client built when none is given. @default the SDK's defaults */
  readonly clientConfig?: AwsClientConfig;
}

/**
 * The client settings of a Lambda function: its region, each attempt's time limits, and the
 * credentials Lambda puts in its environment, read by the SDK's own `fromEnv`. The SDK's default chain would find the same ones
 * first (it tries the environment before anything else, unless AWS_PROFILE is set); handing that
 * link over directly spares each client's first request the walk down the chain, a few ms of
 * every cold start (bench/README.md). Without keys in the environment the chain is left to the SDK.
 */
export const lambdaClientConfig = (env: Environment = process.env): AwsClientConfig => {
  const fromEnvironment =
    Boolean(env.AWS_ACCESS_KEY_ID) && Boolean(env.AWS_SECRET_ACCESS_KEY) && !env.AWS_PROFILE;
  return {
    ...(env.AWS_REGION ? { region: env.AWS_REGION } : {}),
    ...(fromEnvironment ? { credentials: fromEnv() } : {}),
    requestHandler: AWS_REQUEST_LIMITS,
  };
};
