/**
 * The SCIM endpoint in the stack (issue 33): the routes as one Lambda proxy integration, the
 * stage throttle and access log, the function's role and environment, and no API when the config
 * leaves SCIM off.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as logs from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  SCIM_MIN_MAX_RESULTS as RUNTIME_MIN_MAX_RESULTS,
  readScimEnv,
  scimEnvSchema,
} from '../../lambdas/scim/scim-env';
import {
  type DeploymentConfig,
  deleteBrakeFor,
  loadConfig,
  parseConfig,
  SCIM_MIN_MAX_RESULTS,
  scimSettingsOf,
} from '../../lib/config';
import type { ContactCenterSyncStack } from '../../lib/contact-center-sync-stack';
import { EntityLedgerTable } from '../../lib/entity-ledger-table';
import { SCIM_ACCESS_LOG_FIELDS, ScimApi, type ScimApiProps } from '../../lib/scim-api';
import { scimEnvironment } from '../../lib/scim-environment';
import { SCIM_URL_OUTPUT_KEY } from '../../lib/stack-outputs';
import { readSecretStatement } from './policy-statements';
import {
  actionsOf,
  configWith,
  getAtt,
  identityStatements,
  logicalId,
  minimalConfigInput,
  type PolicyStatement,
  ref,
  synth,
  withoutReconciliation,
} from './synth';

const SCIM_ON = {
  enabled: true,
  tokenSecretId: 'contact-center-sync/scim-token',
  defaults: { userTemplateName: 'Agent' },
};

let config: DeploymentConfig;
let stack: ContactCenterSyncStack;
let template: Template;
let scimApi: ScimApi;

beforeAll(() => {
  config = withoutReconciliation(configWith({ scim: SCIM_ON }));
  ({ stack, template } = synth(config));
  if (stack.scimApi === undefined) throw new Error('no SCIM API with scim.enabled');
  scimApi = stack.scimApi;
});

const roleStatements = (): PolicyStatement[] =>
  identityStatements(template, logicalId(scimApi.role));

describe('the SCIM API', () => {
  it('serves /scim/v2 and /scim/v2/{proxy+} with any method as one Lambda proxy integration', () => {
    // Prepare
    const proxyIntegration = {
      Type: 'AWS_PROXY',
      IntegrationHttpMethod: 'POST',
      Uri: Match.objectLike({
        'Fn::Join': Match.arrayWith([Match.arrayWith([getAtt(scimApi.function)])]),
      }),
    };

    // Act
    const methods = template.findResources('AWS::ApiGateway::Method');

    // Assess
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: 'scim' });
    template.hasResourceProperties('AWS::ApiGateway::Resource', {
      PathPart: 'v2',
      ParentId: ref(scimApi.baseResource.parentResource as ScimApi['baseResource']),
    });
    template.hasResourceProperties('AWS::ApiGateway::Resource', {
      PathPart: '{proxy+}',
      ParentId: ref(scimApi.baseResource),
    });
    expect(Object.keys(methods)).toHaveLength(2);
    for (const resource of [scimApi.baseResource, scimApi.proxyResource]) {
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: 'ANY',
        ResourceId: ref(resource),
        AuthorizationType: 'NONE',
        Integration: proxyIntegration,
      });
    }
  });

  it('throttles the whole stage at the configured rate and burst, and traces it', () => {
    // Assess
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      TracingEnabled: true,
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: config.scim.throttle.rateLimit,
          ThrottlingBurstLimit: config.scim.throttle.burstLimit,
        }),
      ]),
    });
  });

  it('writes a JSON access log of request id, method, route template, status and latencies only', () => {
    // Prepare
    const stages = template.findResources('AWS::ApiGateway::Stage');
    const [stage] = Object.values(stages) as {
      Properties: { AccessLogSetting: { DestinationArn: unknown; Format: string } };
    }[];
    if (stage === undefined) throw new Error('no stage');

    // Act
    const format = JSON.parse(stage.Properties.AccessLogSetting.Format) as Record<string, string>;

    // Assess
    expect(stage.Properties.AccessLogSetting.DestinationArn).toEqual(
      getAtt(scimApi.accessLogGroup),
    );
    expect(format).toEqual(SCIM_ACCESS_LOG_FIELDS);
    expect(Object.values(format)).toEqual(
      expect.arrayContaining([
        '$context.requestId',
        '$context.httpMethod',
        '$context.resourcePath',
        '$context.status',
        '$context.responseLatency',
        '$context.integrationLatency',
      ]),
    );
    // The path holds the user id, the query string the filtered userName; the rest is the person.
    for (const value of Object.values(format)) {
      expect(value).not.toMatch(
        /^\$context\.(path|identity\.|authorizer\.|requestOverride|responseOverride)|\$input|querystring|\$method\.request/i,
      );
    }
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      RetentionInDays: config.logRetentionDays,
    });
  });

  it('runs the function the way the action handlers run: same runtime, ARM64, own log group', () => {
    // Assess
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'contact-center-sync: SCIM 2.0 endpoint',
      Architectures: ['arm64'],
      Runtime: Match.stringLikeRegexp('^nodejs'),
      Timeout: config.scim.timeoutSeconds,
      MemorySize: config.scim.memoryMiB,
      LoggingConfig: { LogGroup: ref(scimApi.logGroup) },
    });
    expect(config.scim.timeoutSeconds).toBeLessThan(29);
  });

  it('lets the function read exactly the token and API key secrets, the ledger (items, and a Scan to list), and send only to the held queue', () => {
    // Act
    const statements = roleStatements().filter(
      (s) => !actionsOf(s).some((a) => a.startsWith('logs:')),
    );

    // Assess
    const heldQueue = stack.pipelines.get('delete-user')?.heldQueue;
    if (heldQueue === undefined) throw new Error('delete-user has no held queue');
    expect(statements).toEqual([
      readSecretStatement('ReadScimToken', undefined, SCIM_ON.tokenSecretId),
      readSecretStatement('ReadApiKey', config.apiKey.secretsRegion, config.apiKey.secretId),
      {
        Sid: 'EntityLedger',
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Resource: getAtt(stack.ledger.table),
      },
      {
        Sid: 'ListScimUsers',
        Effect: 'Allow',
        Action: 'dynamodb:Scan',
        Resource: getAtt(stack.ledger.table),
      },
      {
        Sid: 'HoldDeletes',
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: getAtt(heldQueue),
      },
    ]);
    expect(
      roleStatements()
        .filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')))
        .map((s) => s.Resource),
    ).toEqual([getAtt(scimApi.logGroup)]);
  });

  it("sets exactly the variables scim-env reads (plus Powertools'), and they parse", () => {
    // Prepare
    const scim = scimSettingsOf(config);
    if (scim === undefined) throw new Error('scim is off');

    // Act
    const environment = scimEnvironment(config, scim, {
      ledgerTableName: 'ledger',
      heldQueueUrl: 'https://sqs.eu-central-1.amazonaws.com/111122223333/held',
    });
    const env = readScimEnv(environment);

    // Assess
    const own = Object.keys(environment).filter((name) => !name.startsWith('POWERTOOLS_'));
    expect(own.sort()).toEqual(Object.keys(scimEnvSchema.shape).sort());
    expect(env).toMatchObject({
      SCIM_TOKEN_SECRET_ID: SCIM_ON.tokenSecretId,
      SCIM_DEFAULT_USER_TEMPLATE: 'Agent',
      SCIM_DEFAULT_CREATE_IN_CLOUD_CONNECT: false,
      SCIM_MAX_RESULTS: 100,
      DELETE_BRAKE_LIMIT: deleteBrakeFor(config, 'delete-user')?.limit,
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'contact-center-sync: SCIM 2.0 endpoint',
      Environment: {
        Variables: {
          ...environment,
          LEDGER_TABLE_NAME: ref(stack.ledger.table),
          BREAKER_TABLE_NAME: ref(stack.ledger.table),
          HELD_QUEUE_URL: ref(heldQueue(stack)),
        },
      },
    });
  });

  it('puts the SCIM base URL in the stack outputs', () => {
    // Assess
    template.hasOutput(SCIM_URL_OUTPUT_KEY, {
      Value: {
        'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/scim/v2$')])],
      },
    });
  });
});

const heldQueue = (of: ContactCenterSyncStack) => {
  const queue = of.pipelines.get('delete-user')?.heldQueue;
  if (queue === undefined) throw new Error('delete-user has no held queue');
  return queue;
};

describe("with delete-user's brake off", () => {
  it('gives the function no held queue, no brake variables and no send permission', () => {
    // Prepare
    const off = withoutReconciliation(
      configWith({ scim: SCIM_ON, deleteBrake: { 'delete-user': { enabled: false } } }),
    );

    // Act
    const { stack: braked, template: brakedTemplate } = synth(off);

    // Assess
    const api = braked.scimApi;
    if (api === undefined) throw new Error('no SCIM API');
    const statements = identityStatements(brakedTemplate, logicalId(api.role));
    expect(statements.flatMap(actionsOf)).not.toContain('sqs:SendMessage');
    brakedTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'contact-center-sync: SCIM 2.0 endpoint',
      Environment: {
        Variables: Match.objectLike({
          HELD_QUEUE_URL: Match.absent(),
          DELETE_BRAKE_LIMIT: Match.absent(),
          DELETE_BRAKE_WINDOW_SECONDS: Match.absent(),
        }),
      },
    });
  });
});

describe('without scim.enabled', () => {
  it.each([
    ['a minimal config', () => configWith()],
    ['scim switched off', () => configWith({ scim: { ...SCIM_ON, enabled: false } })],
  ])('%s has no API, no SCIM function and no URL output', (_name, make) => {
    // Act
    const { stack: off, template: offTemplate } = synth(withoutReconciliation(make()));

    // Assess
    expect(off.scimApi).toBeUndefined();
    offTemplate.resourceCountIs('AWS::ApiGateway::RestApi', 0);
    expect(Object.keys(offTemplate.findOutputs(SCIM_URL_OUTPUT_KEY))).toEqual([]);
  });

  it('is on in the example config', () => {
    // Assess
    expect(scimSettingsOf(loadConfig('example'))).toBeDefined();
  });
});

describe('scim config errors name the field', () => {
  it.each([
    [
      { enabled: true, defaults: { userTemplateName: 'Agent' } },
      'scim.tokenSecretId: is required when scim.enabled is true',
    ],
    [
      { enabled: true, tokenSecretId: 's' },
      'scim.defaults.userTemplateName: is required when scim.enabled is true',
    ],
    [{ ...SCIM_ON, maxResults: 50 }, 'scim.maxResults: must be at least 100'],
    [{ ...SCIM_ON, throttle: { rateLimit: 0 } }, 'scim.throttle.rateLimit: must be more than 0'],
    [{ ...SCIM_ON, throttle: { burstLimit: 0 } }, 'scim.throttle.burstLimit: must be at least 1'],
    [{ ...SCIM_ON, timeoutSeconds: 29 }, 'scim.timeoutSeconds: must be at most 28'],
    [
      { ...SCIM_ON, tokenSecretId: 'arn:aws:nope' },
      'scim.tokenSecretId: must be a secret name or a complete secret ARN',
    ],
    [{ ...SCIM_ON, extra: 1 }, 'scim: unknown field(s) "extra"'],
  ])('%j', (scim, message) => {
    // Act
    const parse = () => parseConfig({ ...minimalConfigInput(), scim }, 'test config');

    // Assess
    expect(parse).toThrow(message);
  });

  it("holds maxResults to the runtime's own minimum", () => {
    // Assess
    expect(SCIM_MIN_MAX_RESULTS).toBe(RUNTIME_MIN_MAX_RESULTS);
  });

  it('refuses SCIM with delete-user off, naming scim.enabled', () => {
    // Act
    const parse = () =>
      parseConfig(
        { ...minimalConfigInput(), scim: SCIM_ON, actions: { 'delete-user': { enabled: false } } },
        'test config',
      );

    // Assess
    expect(parse).toThrow('scim.enabled: needs delete-user enabled in actions');
  });
});

describe('ScimApi props', () => {
  const props = (stack: Stack, overrides: Partial<ScimApiProps>): ScimApiProps => ({
    environment: {},
    tokenSecretArn: 'arn:aws:secretsmanager:eu-central-1:111122223333:secret:t-AbC123',
    apiKeySecretArn: 'arn:aws:secretsmanager:eu-central-1:111122223333:secret:k-AbC123',
    apiKeySecretsRegion: 'eu-central-1',
    ledger: new EntityLedgerTable(stack, 'Ledger'),
    throttleRateLimit: 10,
    throttleBurstLimit: 20,
    timeout: Duration.seconds(25),
    memorySize: 256,
    logRetention: logs.RetentionDays.ONE_MONTH,
    ...overrides,
  });

  it.each([
    [{ timeout: Duration.seconds(29) }, 'timeout must be 1 to 28 s'],
    [{ throttleRateLimit: 0 }, 'throttleRateLimit must be more than 0'],
    [{ throttleBurstLimit: 0.5 }, 'throttleBurstLimit must be a whole number'],
    [{ memorySize: 64 }, 'memorySize must be a whole number of at least 128'],
    [{ tokenSecretArn: ' ' }, 'tokenSecretArn must not be empty'],
  ] as const)('%j is refused before anything is built', (overrides, message) => {
    // Prepare
    const stack = new Stack();

    // Act
    const build = () => new ScimApi(stack, 'Scim', props(stack, overrides));

    // Assess
    expect(build).toThrow(message);
    expect(Template.fromStack(stack).findResources('AWS::ApiGateway::RestApi')).toEqual({});
  });
});

describe("the account's API Gateway log role", () => {
  it.each([
    [false, 0],
    [true, 1],
  ])('createApiGatewayLogRole %s: %i AWS::ApiGateway::Account', (create, count) => {
    // Act
    const { template: built } = synth(
      withoutReconciliation(configWith({ scim: { ...SCIM_ON, createApiGatewayLogRole: create } })),
    );

    // Assess
    built.resourceCountIs('AWS::ApiGateway::Account', count);
    if (create) {
      built.hasResource('AWS::ApiGateway::Account', {
        DeletionPolicy: 'Retain',
        Properties: { CloudWatchRoleArn: Match.anyValue() },
      });
      built.hasResourceProperties('AWS::IAM::Role', {
        AssumeRolePolicyDocument: {
          Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
        },
      });
    }
  });
});
