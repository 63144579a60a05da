/**
 * The deployment config schema: defaults, derived values and error messages that name the file
 * and the bad field.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_NAMES, BRAKED_ACTIONS } from '../../lambdas/actions';
import { platformBaseUrl as runtimeBaseUrl } from '../../lambdas/core/platform/base-url';
import { PLATFORM_REGIONS } from '../../lambdas/core/platform/regions';
import {
  ACTION_DEFAULTS,
  ConfigError,
  DELETE_BRAKE_DEFAULTS,
  type DeploymentConfigInput,
  deleteBrakeFor,
  loadConfig,
  parseConfig,
  stackNameFor,
} from '../../lib/config';
import { configWith, minimalConfigInput } from './synth';

/** The message of the ConfigError `run` throws (fails the test when it does not throw one). */
const configErrorOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
};

describe('loadConfig', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ccs-config-'));
    writeFileSync(
      join(dir, 'too-slow.json'),
      JSON.stringify({
        ...minimalConfigInput(),
        actions: { 'add-user': { timeoutSeconds: 1000 } },
      }),
    );
    writeFileSync(join(dir, 'broken.json'), '{ "tenant": ');
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads the committed example config', () => {
    // Act
    const config = loadConfig('example');

    // Assess
    expect(config.tenant.environmentName).toBe('prod');
    expect(config.platform.baseUrl).toBe('https://eu-central-1.platform.example.com:9443');
    expect(Object.keys(config.actions)).toEqual([...ACTION_NAMES]);
  });

  it('names the file and the field in the error', () => {
    // Act
    const message = configErrorOf(() => loadConfig('too-slow', dir));

    // Assess
    expect(message).toBe(
      `${join(dir, 'too-slow.json')}: actions.add-user.timeoutSeconds: must be at most 900`,
    );
  });

  it('shows the path relative to the working directory for the committed configs', () => {
    // Act
    const message = configErrorOf(() => loadConfig('does-not-exist'));

    // Assess
    expect(message).toMatch(/^config\/does-not-exist\.json: not found \(available: .*example/);
  });

  it('reports a file that is not JSON', () => {
    // Act
    const message = configErrorOf(() => loadConfig('broken', dir));

    // Assess
    expect(message).toContain('broken.json: not valid JSON');
  });

  it('refuses a config name that is a path', () => {
    // Act
    const message = configErrorOf(() => loadConfig('../package'));

    // Assess
    expect(message).toContain('config name must be a file name without path or extension');
  });
});

describe('parseConfig defaults', () => {
  it('gives every action the documented defaults in a minimal config', () => {
    // Act
    const config = configWith();

    // Assess
    for (const action of ACTION_NAMES) {
      // maxReceiveCount is derived from the default 24 h retry window, not configured.
      expect(config.actions[action]).toEqual({ ...ACTION_DEFAULTS, maxReceiveCount: 220 });
    }
    expect(config.retry).toEqual({ windowHours: 24, firstDelaySeconds: 30, maxDelaySeconds: 900 });
    expect(config.platformRateLimits).toEqual({ realtime: 50, provisioning: 10 });
    expect(config.apiKey.maxAgeSeconds).toBe(900);
    expect(config.eventBus).toEqual({ kind: 'create', name: undefined });
    expect(config.eventDelivery).toEqual({ retryAttempts: 185, maxEventAgeSeconds: 86_400 });
    expect(config.alarms).toEqual({ oldestMessageAgeSeconds: 900 });
    expect(config.logRetentionDays).toBe(30);
    expect(config.logLevel).toBe('INFO');
    expect(config.sourceMapStackTraces).toBe(false);
    expect(config.campaignRegion).toBe('eu-central-1');
  });

  it('keeps the defaults of the fields an action does not override', () => {
    // Act
    const config = configWith({ actions: { 'delete-user': { enabled: false, memoryMiB: 512 } } });

    // Assess
    expect(config.actions['delete-user']).toEqual({
      ...ACTION_DEFAULTS,
      maxReceiveCount: 220,
      enabled: false,
      memoryMiB: 512,
    });
  });

  it('derives the stack name from the environment, made CloudFormation-safe', () => {
    // Act
    const plain = stackNameFor(configWith());
    const odd = stackNameFor(
      configWith({ tenant: { ...minimalConfigInput().tenant, environmentName: 'eu_prod.2' } }),
    );
    const named = stackNameFor(configWith({ stackName: 'Custom-Name' }));

    // Assess
    expect(plain).toBe('ContactCenterSync-test');
    expect(odd).toBe('ContactCenterSync-eu-prod-2');
    expect(named).toBe('Custom-Name');
  });

  it('maps the event bus choice to one kind', () => {
    // Act
    const byName = configWith({ eventBus: { existingBusName: 'default' } });
    const byArn = configWith({
      eventBus: { existingBusArn: 'arn:aws:events:eu-central-1:111122223333:event-bus/crm-bus' },
    });
    const created = configWith({ eventBus: { create: true, name: 'my-bus' } });

    // Assess
    expect(byName.eventBus).toEqual({ kind: 'existing-name', name: 'default' });
    expect(byArn.eventBus).toEqual({
      kind: 'existing-arn',
      arn: 'arn:aws:events:eu-central-1:111122223333:event-bus/crm-bus',
      name: 'crm-bus',
    });
    expect(created.eventBus).toEqual({ kind: 'create', name: 'my-bus' });
  });
});

describe('deleteBrake', () => {
  it('is on by default for every destructive action, with a generous limit', () => {
    // Act
    const config = configWith();

    // Assess
    expect(BRAKED_ACTIONS).toEqual([
      'change-campaign-record-status',
      'delete-campaign-record',
      'delete-user',
    ]);
    for (const action of BRAKED_ACTIONS) {
      expect(deleteBrakeFor(config, action)).toEqual(DELETE_BRAKE_DEFAULTS);
    }
    expect(deleteBrakeFor(config, 'add-user')).toBeUndefined();
  });

  it('is switched off per action, and with the action', () => {
    // Act
    const config = configWith({
      deleteBrake: { 'delete-user': { enabled: false }, 'delete-campaign-record': { limit: 50 } },
      actions: { 'change-campaign-record-status': { enabled: false } },
    });

    // Assess
    expect(deleteBrakeFor(config, 'delete-user')).toBeUndefined();
    expect(deleteBrakeFor(config, 'change-campaign-record-status')).toBeUndefined();
    expect(deleteBrakeFor(config, 'delete-campaign-record')).toMatchObject({
      limit: 50,
      windowMinutes: DELETE_BRAKE_DEFAULTS.windowMinutes,
    });
  });
});

describe('platform base URL', () => {
  it.each(PLATFORM_REGIONS)('matches what the runtime builds for %s', (region) => {
    // Act
    const config = configWith({ platform: { host: 'Platform.Example.com', region } });

    // Assess
    expect(config.platform.baseUrl).toBe(runtimeBaseUrl('platform.example.com', region));
  });

  it('has no region prefix for us-east-1 and one for other regions', () => {
    // Act
    const east = configWith({ platform: { host: 'platform.example.com', region: 'us-east-1' } });
    const sydney = configWith({
      platform: { host: 'platform.example.com', region: 'ap-southeast-2' },
    });

    // Assess
    expect(east.platform.baseUrl).toBe('https://platform.example.com:9443');
    expect(sydney.platform.baseUrl).toBe('https://ap-southeast-2.platform.example.com:9443');
  });

  it('takes a full base URL override and then needs an explicit campaign region', () => {
    // Act
    const config = configWith({
      platform: { baseUrlOverride: 'https://proxy.example.net/cc/' },
      campaignRegion: 'us-west-2',
    });
    const message = configErrorOf(() =>
      configWith({ platform: { baseUrlOverride: 'https://proxy.example.net' } }),
    );

    // Assess
    expect(config.platform.baseUrl).toBe('https://proxy.example.net/cc');
    expect(config.campaignRegion).toBe('us-west-2');
    expect(message).toBe(
      'test config: campaignRegion: is required when platform.region is not given',
    );
  });
});

describe('parseConfig errors name the bad field', () => {
  const base = minimalConfigInput();
  const cases: ReadonlyArray<
    [string, Partial<DeploymentConfigInput> | Record<string, unknown>, string]
  > = [
    [
      'a number given as a string',
      { actions: { 'add-user': { timeoutSeconds: '30' } } },
      'actions.add-user.timeoutSeconds: must be an integer',
    ],
    ['an object of the wrong type', { tenant: 'acme' }, 'tenant: must be an object'],
    [
      'a bus ARN outside the pinned deployment account',
      {
        deployment: { account: '444455556666' },
        eventBus: { existingBusArn: 'arn:aws:events:eu-central-1:111122223333:event-bus/crm' },
      },
      'eventBus.existingBusArn: must be a bus in the deployment account and region',
    ],
    [
      'a missing tenant field',
      { tenant: { platformCode: 'P', companyCode: 'c' } },
      'tenant.environmentName: is required',
    ],
    [
      'a tenant value with spaces',
      { tenant: { ...base.tenant, companyCode: 'acme corp' } },
      'tenant.companyCode: must be printable ASCII without spaces',
    ],
    [
      'a region the specs do not list',
      { platform: { host: 'platform.example.com', region: 'eu-north-1' } },
      'platform.region: must be one of us-east-1',
    ],
    [
      'a host with a scheme',
      { platform: { host: 'https://platform.example.com', region: 'us-east-1' } },
      'platform.host: must be a host name',
    ],
    [
      'an http override',
      { platform: { baseUrlOverride: 'http://platform.example.com' }, campaignRegion: 'us-east-1' },
      'platform.baseUrlOverride: must be an https URL',
    ],
    [
      'both host and override',
      {
        platform: {
          host: 'a.example.com',
          region: 'us-east-1',
          baseUrlOverride: 'https://b.example.com',
        },
      },
      'platform.host: give either host (with region) or baseUrlOverride, not both',
    ],
    [
      'a key cache above one hour',
      { apiKey: { ...base.apiKey, maxAgeSeconds: 3601 } },
      'apiKey.maxAgeSeconds: must be at most 3600',
    ],
    [
      'a partial secret ARN',
      {
        apiKey: {
          secretId: 'arn:aws:secretsmanager:eu-central-1:111122223333:secret:api-key',
          secretsRegion: 'eu-central-1',
        },
      },
      'apiKey.secretId: must be a secret name or a complete secret ARN',
    ],
    [
      'a secret ARN in another region than secretsRegion',
      {
        apiKey: {
          secretId: 'arn:aws:secretsmanager:us-east-1:111122223333:secret:api-key-AbC123',
          secretsRegion: 'eu-central-1',
        },
      },
      'apiKey.secretsRegion: must be the region of the secret ARN in secretId (us-east-1)',
    ],
    [
      'a function timeout above 15 minutes',
      { actions: { 'add-user': { timeoutSeconds: 901 } } },
      'actions.add-user.timeoutSeconds: must be at most 900',
    ],
    [
      'a maximum concurrency of 1',
      { actions: { 'delete-user': { maxConcurrency: 1 } } },
      'actions.delete-user.maxConcurrency: must be at least 2',
    ],
    [
      'a batch above 10 without a batching window',
      { actions: { 'add-user': { batchSize: 50 } } },
      'actions.add-user.batchSize: must be at most 10 unless maxBatchingWindowSeconds is at least 1',
    ],
    [
      'a misspelled action',
      { actions: { 'add-users': {} } },
      'actions: unknown field(s) "add-users"',
    ],
    [
      'a misspelled action setting',
      { actions: { 'add-user': { timeout: 30 } } },
      'actions.add-user: unknown field(s) "timeout"',
    ],
    ['an unknown top-level field', { alarm: {} }, 'unknown field(s) "alarm"'],
    [
      'two bus choices',
      { eventBus: { create: true, existingBusName: 'default' } },
      'eventBus: give exactly one of "create": true, "existingBusName" or "existingBusArn"',
    ],
    [
      'a malformed bus ARN',
      { eventBus: { existingBusArn: 'arn:aws:events:eu-central-1:1:bus' } },
      'eventBus.existingBusArn: must be an event bus ARN',
    ],
    ['no allowed sources', { allowedSources: [] }, 'allowedSources: must list at least one source'],
    [
      'an AWS-reserved source',
      { allowedSources: ['aws.s3'] },
      'allowedSources[0]: must not start with "aws."',
    ],
    [
      "the integration's own result source",
      { allowedSources: ['contact-center-sync'] },
      'allowedSources[0]: must not be "contact-center-sync"',
    ],
    [
      'a duplicate source in an action override',
      { actions: { 'add-user': { allowedSources: ['hr', 'hr'] } } },
      'actions.add-user.allowedSources[1]: duplicate source "hr"',
    ],
    [
      'a bad alarm e-mail',
      { alarms: { email: 'ops-at-example.com' } },
      'alarms.email: must be an e-mail address',
    ],
    [
      'a FIFO alarm topic',
      { alarms: { topicArn: 'arn:aws:sns:eu-central-1:111122223333:ops.fifo' } },
      'alarms.topicArn: must be a standard (not FIFO) SNS topic ARN',
    ],
    [
      'a maxReceiveCount of its own (it is derived from the retry window)',
      { actions: { 'add-user': { maxReceiveCount: 5 } } },
      'actions.add-user.maxReceiveCount: is derived from "retry"',
    ],
    [
      'a retry window the backoff cannot give within 1000 receives',
      { retry: { windowHours: 72, firstDelaySeconds: 1, maxDelaySeconds: 60 } },
      'retry.windowHours: cannot be given with this backoff: it needs',
    ],
    [
      'a longest backoff below the first',
      { retry: { firstDelaySeconds: 120, maxDelaySeconds: 60 } },
      'retry.maxDelaySeconds: must be at least firstDelaySeconds (120)',
    ],
    [
      'a retry window longer than SQS keeps a message',
      { retry: { windowHours: 400 } },
      'retry.windowHours: must be at most 312',
    ],
    [
      'a request ceiling too small to share among the instances',
      { platformRateLimits: { realtime: 0.1 } },
      'platformRateLimits.realtime: gives each function instance 0.0040 requests/s (the ceiling ÷ 25',
    ],
    [
      'a brake on an action that removes nothing',
      { deleteBrake: { 'add-user': { limit: 10 } } },
      'deleteBrake: unknown field(s) "add-user"',
    ],
    [
      'a brake limit of 0',
      { deleteBrake: { 'delete-user': { limit: 0 } } },
      'deleteBrake.delete-user.limit: must be at least 1',
    ],
    [
      'a brake window longer than 7 days',
      { deleteBrake: { 'delete-campaign-record': { windowMinutes: 20_000 } } },
      'deleteBrake.delete-campaign-record.windowMinutes: must be at most 10080',
    ],
    [
      'a brake switched off with a string',
      { deleteBrake: { 'change-campaign-record-status': { enabled: 'no' } } },
      'deleteBrake.change-campaign-record-status.enabled: must be true or false',
    ],
    [
      'a tombstone shorter than a 3-day retry window plus the DLQ retention',
      { retry: { windowHours: 72 }, ledger: { tombstoneDays: 15 } },
      'ledger.tombstoneDays: must be at least 17',
    ],
    [
      'a log retention CloudWatch does not offer',
      { logRetentionDays: 10 },
      'logRetentionDays: must be one of 1, 3, 5, 7, 14, 30',
    ],
  ];

  it.each(cases)('rejects %s', (_name, overrides, expected) => {
    // Act
    const message = configErrorOf(() => parseConfig({ ...base, ...overrides }, 'config/x.json'));

    // Assess
    expect(message).toContain(`config/x.json: ${expected}`);
  });

  it('reports every problem at once, one line each', () => {
    // Act
    const message = configErrorOf(() =>
      parseConfig(
        {
          ...base,
          apiKey: { ...base.apiKey, maxAgeSeconds: 0 },
          actions: { 'add-user': { memoryMiB: 64 } },
        },
        'config/x.json',
      ),
    );

    // Assess
    expect(message.split('\n')).toEqual([
      'config/x.json: apiKey.maxAgeSeconds: must be at least 1',
      'config/x.json: actions.add-user.memoryMiB: must be at least 128',
    ]);
  });
});
