/**
 * The SCIM 2.0 endpoint (issue 33): a REST API whose `/scim/v2` and `/scim/v2/{proxy+}` are one
 * Lambda proxy integration to the SCIM function, with stage throttling, JSON access logs that
 * carry no personal data, and a role that reads exactly its two secrets, the ledger table and
 * sends to delete-user's held queue. The bearer token is checked in the function (SCIM-format 401
 * bodies; docs/decisions.md#scim says why there is no API Gateway authorizer).
 */
import { fileURLToPath } from 'node:url';
import { type Duration, Stack, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { grantHoldDeletes } from './action-pipeline';
import { grantApiKeyRead } from './api-key-grant';
import type { EntityLedgerTable } from './entity-ledger-table';
import { HANDLER_FUNCTION_PROPS, handlerRole } from './handler-function';
import { SCIM_BASE_PATH, SCIM_STAGE_NAME } from './scim-routes';

/** The SCIM function's entry file. */
export const SCIM_HANDLER_ENTRY = fileURLToPath(
  new URL('../lambdas/handlers/scim.ts', import.meta.url),
);

/**
 * Access log fields: the request, the route template and the outcome, nothing of the person.
 * No `$context.path` (it holds the user id), no query string (filters hold userNames), no body,
 * no source IP or user agent (personal data under GDPR, and nothing an operator needs to trace
 * a request: the request id joins the access log to the function's log).
 */
export const SCIM_ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTimeEpoch',
  httpMethod: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  errorType: '$context.error.responseType',
} as const;

export interface ScimApiProps {
  /** The function's environment (the stack passes `scimEnvironment(config, …)`). */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * IAM resource of the bearer token's secret: a complete ARN, or `…:secret:<name>-??????`.
   */
  readonly tokenSecretArn: string;
  /** IAM resource of the platform API key's secret, as the action pipelines get it. */
  readonly apiKeySecretArn: string;
  /** Region of the API key secret; scopes `kms:Decrypt` to Secrets Manager there. */
  readonly apiKeySecretsRegion: string;
  /**
   * Customer-managed KMS key of the API key secret.
   * @default - the secret uses the AWS managed key (no KMS grant needed)
   */
  readonly apiKeyKmsKeyArn?: string;
  /** The entity ledger (also the breaker table and the brake's count). */
  readonly ledger: EntityLedgerTable;
  /**
   * delete-user's held queue: a SCIM delete the brake holds is parked there.
   * @default - no brake (no send permission)
   */
  readonly heldQueue?: sqs.IQueue;
  /** Steady-state requests per second the stage lets through (API Gateway answers 429 above). */
  readonly throttleRateLimit: number;
  /** Requests the stage lets through in a burst. */
  readonly throttleBurstLimit: number;
  /** Function timeout: below API Gateway's 29 s integration limit. */
  readonly timeout: Duration;
  /** Function memory in MiB. */
  readonly memorySize: number;
  /** Retention of the function's and the access logs' log groups. */
  readonly logRetention: logs.RetentionDays;
  /**
   * Create the account's API Gateway CloudWatch Logs role (`AWS::ApiGateway::Account`, one per
   * account and region, kept when the stack is deleted): access logs need it set.
   * @default false - the account already has one
   */
  readonly createAccountLogRole?: boolean;
  /**
   * Handler entry file exporting `handler`.
   * @default SCIM_HANDLER_ENTRY (`lambdas/handlers/scim.ts`)
   */
  readonly entry?: string;
}

/** API Gateway's integration timeout: the function must answer before it. */
const API_GATEWAY_TIMEOUT_SECONDS = 29;

const checkProps = (props: ScimApiProps): void => {
  const problems: string[] = [];
  const positive = (name: string, value: number) => {
    if (!(Number.isFinite(value) && value > 0)) problems.push(`${name} must be more than 0`);
  };
  positive('throttleRateLimit', props.throttleRateLimit);
  if (!Number.isInteger(props.throttleBurstLimit) || props.throttleBurstLimit < 1) {
    problems.push('throttleBurstLimit must be a whole number of at least 1');
  }
  const timeout = props.timeout.toSeconds();
  if (timeout < 1 || timeout >= API_GATEWAY_TIMEOUT_SECONDS) {
    problems.push(
      `timeout must be 1 to ${API_GATEWAY_TIMEOUT_SECONDS - 1} s (API Gateway gives up at ${API_GATEWAY_TIMEOUT_SECONDS} s), got ${timeout} s`,
    );
  }
  if (!Number.isInteger(props.memorySize) || props.memorySize < 128) {
    problems.push('memorySize must be a whole number of at least 128');
  }
  for (const [name, value] of [
    ['tokenSecretArn', props.tokenSecretArn],
    ['apiKeySecretArn', props.apiKeySecretArn],
  ] as const) {
    if (value.trim() === '') problems.push(`${name} must not be empty`);
  }
  if (problems.length > 0) throw new Error(`ScimApi: ${problems.join('; ')}`);
};

export class ScimApi extends Construct {
  readonly api: apigateway.RestApi;
  /** The function behind every SCIM route. */
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  /** The function's log group. */
  readonly logGroup: logs.LogGroup;
  /** The stage's access log group (fields: `SCIM_ACCESS_LOG_FIELDS`). */
  readonly accessLogGroup: logs.LogGroup;
  /** `/scim/v2` and `/scim/v2/{proxy+}`. */
  readonly baseResource: apigateway.Resource;
  readonly proxyResource: apigateway.ProxyResource;
  /** The SCIM base URL the IdP is given: `https://<api>.execute-api.<region>.amazonaws.com/prod/scim/v2`. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ScimApiProps) {
    super(scope, id);
    checkProps(props);

    this.logGroup = new logs.LogGroup(this, 'LogGroup', { retention: props.logRetention });
    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogGroup', {
      retention: props.logRetention,
    });

    const { role, allow } = handlerRole(this, 'Role', {
      description: 'contact-center-sync SCIM endpoint',
      logGroup: this.logGroup,
    });
    this.role = role;
    allow({
      sid: 'ReadScimToken',
      actions: ['secretsmanager:GetSecretValue'],
      resources: [props.tokenSecretArn],
    });
    grantApiKeyRead(this.role, {
      secretArn: props.apiKeySecretArn,
      kmsKeyArn: props.apiKeyKmsKeyArn,
      secretsRegion: props.apiKeySecretsRegion,
    });
    // The ledger items of each user, the brake's count and the breaker state: one table.
    props.ledger.grantItems(role);
    // An unfiltered GET /Users (Okta's test connection) lists SCIM's items by a key-prefix Scan.
    allow({
      sid: 'ListScimUsers',
      actions: ['dynamodb:Scan'],
      resources: [props.ledger.table.tableArn],
    });
    if (props.heldQueue !== undefined) grantHoldDeletes(role, props.heldQueue);

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      ...HANDLER_FUNCTION_PROPS,
      entry: props.entry ?? SCIM_HANDLER_ENTRY,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      description: 'contact-center-sync: SCIM 2.0 endpoint',
      environment: { ...props.environment },
    });

    const stack = Stack.of(this);
    this.api = new apigateway.RestApi(this, 'Api', {
      restApiName: `${stack.stackName}-scim`,
      description: 'contact-center-sync: SCIM 2.0 endpoint for the identity provider',
      endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
      // Access logs go through the account's API Gateway role: set once per account and region.
      cloudWatchRole: props.createAccountLogRole ?? false,
      deployOptions: {
        stageName: SCIM_STAGE_NAME,
        throttlingRateLimit: props.throttleRateLimit,
        throttlingBurstLimit: props.throttleBurstLimit,
        accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: apigateway.AccessLogFormat.custom(JSON.stringify(SCIM_ACCESS_LOG_FIELDS)),
        // Traces carry method, route and timings, no bodies: the gateway/function latency split.
        tracingEnabled: true,
        metricsEnabled: true,
      },
    });
    // The IdP only ever calls /scim/v2/…; the root answers API Gateway's own 403.
    const integration = new apigateway.LambdaIntegration(this.function, { proxy: true });
    this.baseResource = this.api.root.resourceForPath(SCIM_BASE_PATH);
    this.baseResource.addMethod('ANY', integration);
    this.proxyResource = this.baseResource.addProxy({
      defaultIntegration: integration,
      anyMethod: true,
    });
    this.url = this.api.urlForPath(`/${SCIM_BASE_PATH}`);

    this.acknowledgeFindings(props.createAccountLogRole === true);
  }

  /** What cdk-nag asks of a REST API that this endpoint answers otherwise, and why. */
  private acknowledgeFindings(accountLogRole: boolean): void {
    const acknowledge = (pack: 'AwsSolutions' | 'Serverless', rule: string, reason: string) =>
      Validations.of(this).acknowledge({ id: `${pack}::${pack}-${rule}`, reason });
    acknowledge(
      'AwsSolutions',
      'APIG2',
      'The function validates every SCIM body and answers RFC 7644 error JSON naming the attribute; an API Gateway validator would answer its own non-SCIM 400 the IdPs cannot read.',
    );
    acknowledge(
      'AwsSolutions',
      'APIG3',
      'A WAF web ACL costs more per month than the traffic of an IdP; the stage throttle and the bearer token bound the endpoint. Attach a web ACL to the stage if the deployment has one.',
    );
    acknowledge(
      'AwsSolutions',
      'APIG4',
      'The bearer token is checked in the function (constant-time, SCIM-format 401 bodies, rotation accepted at once): Entra ID and Okta send one static token, which no API Gateway authorizer type checks without another function.',
    );
    acknowledge(
      'AwsSolutions',
      'COG4',
      'No Cognito user pool: Entra ID and Okta authenticate with a static bearer token from their SCIM connector settings, checked in the function.',
    );
    // cdk-nag's Serverless pack (registered beside AwsSolutions by another change) asks these of
    // every function; the stage already has access logs, throttling and tracing.
    acknowledge(
      'Serverless',
      'LambdaDLQ',
      'API Gateway invokes the function synchronously, where DeadLetterConfig never applies: the IdP gets the answer (a 503 with Retry-After on failure) and retries.',
    );
    acknowledge(
      'Serverless',
      'LambdaTracing',
      'The stage traces each request (gateway and integration time); function tracing would add an X-Ray Resource::* grant, and Powertools logs and metrics carry the request id.',
    );
    if (accountLogRole) {
      acknowledge(
        'AwsSolutions',
        'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        "API Gateway's own role for the account's CloudWatch Logs delivery: AWS's managed policy is the documented one, and API Gateway names the log groups it writes.",
      );
    }
    acknowledge(
      'AwsSolutions',
      'APIG6',
      'Execution logs hold request paths with user ids (and at INFO, request data): personal data this endpoint keeps out of its logs; the JSON access log and the function log cover each request.',
    );
  }
}
