import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

type CredentialsOption = NonNullable<DynamoDBClientConfig['credentials']>;
type Environment = Readonly<Record<string, string | undefined>>;

/** Settings every AWS SDK client of a function is built with (any client accepts them). */
export interface AwsClientConfig {
  readonly region?: string;
  readonly credentials?: CredentialsOption;
}

/**
 * The credentials Lambda puts in every function's environment, read as the SDK's `fromEnv`
 * reads them (the same variables, optional fields included), each time the SDK asks.
 */
export const environmentCredentials =
  (env: Environment = process.env): Extract<CredentialsOption, (...args: never[]) => unknown> =>
  async () => {
    const accessKeyId = env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
    if (!accessKeyId || !secretAccessKey) {
      throw new Error('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set');
    }
    const { AWS_SESSION_TOKEN, AWS_CREDENTIAL_EXPIRATION, AWS_CREDENTIAL_SCOPE, AWS_ACCOUNT_ID } =
      env;
    return {
      accessKeyId,
      secretAccessKey,
      ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
      ...(AWS_CREDENTIAL_EXPIRATION ? { expiration: new Date(AWS_CREDENTIAL_EXPIRATION) } : {}),
      ...(AWS_CREDENTIAL_SCOPE ? { credentialScope: AWS_CREDENTIAL_SCOPE } : {}),
      ...(AWS_ACCOUNT_ID ? { accountId: AWS_ACCOUNT_ID } : {}),
    };
  };

/**
 * The client settings of a Lambda function: its region, and the credentials from the
 * environment. The SDK's default chain would find the same ones first (it tries the environment
 * before anything else, unless AWS_PROFILE is set); handing them over directly spares each
 * client's first request the walk down that chain, a few ms of every cold start
 * (bench/README.md). Without keys in the environment the chain is left to the SDK.
 */
export const lambdaClientConfig = (env: Environment = process.env): AwsClientConfig => {
  const fromEnvironment =
    Boolean(env.AWS_ACCESS_KEY_ID) && Boolean(env.AWS_SECRET_ACCESS_KEY) && !env.AWS_PROFILE;
  return {
    ...(env.AWS_REGION ? { region: env.AWS_REGION } : {}),
    ...(fromEnvironment ? { credentials: environmentCredentials(env) } : {}),
  };
};
