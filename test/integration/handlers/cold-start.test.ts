/**
 * A broken deployment fails at cold start, naming the variable, instead of consuming (and
 * dead-lettering) messages: importing the real entry point with the variable missing or invalid
 * rejects. Nothing is called, so no simulator or AWS resource is needed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

const VALID: Readonly<Record<string, string>> = {
  PLATFORM_CODE: 'PLAT',
  COMPANY_CODE: 'acme',
  ENVIRONMENT_NAME: 'prod',
  API_BASE_URL: 'https://platform.example.com:9443',
  CAMPAIGN_REGION: 'us-east-1',
  API_KEY_SECRET_ID: 'platform/api-key',
  API_KEY_SECRETS_REGION: 'us-east-1',
  API_KEY_MAX_AGE_SECONDS: '300',
  DEAD_LETTER_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/dlq',
  MAX_RECEIVE_COUNT: '5',
  RESULT_EVENT_BUS_NAME: 'contact-center-sync',
  LEDGER_TABLE_NAME: 'contact-center-sync-ledger',
  AWS_REGION: 'us-east-1',
};

const REQUIRED = Object.keys(VALID).filter(
  (name) => !['RESULT_EVENT_BUS_NAME', 'LEDGER_TABLE_NAME', 'AWS_REGION'].includes(name),
);

/** Imports a fresh copy of the entry point with exactly this contract environment. */
const coldStart = async (
  action: 'add-user' | 'search-campaign-records',
  env: Record<string, string | undefined>,
): Promise<unknown> => {
  for (const name of Object.keys(VALID)) vi.stubEnv(name, env[name]);
  vi.resetModules();
  const entryPoints: Record<typeof action, () => Promise<{ handler: unknown }>> = {
    'add-user': () => import('../../../lambdas/handlers/add-user'),
    'search-campaign-records': () => import('../../../lambdas/handlers/search-campaign-records'),
  };
  return (await entryPoints[action]()).handler;
};

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('cold start', () => {
  it.each(['add-user', 'search-campaign-records'] as const)(
    'builds the %s handler from a complete environment',
    async (action) => {
      // Act
      const handler = await coldStart(action, VALID);

      // Assess
      expect(handler).toBeTypeOf('function');
    },
  );

  it.each(REQUIRED)('fails naming %s when it is missing', async (name) => {
    // Act
    const starting = coldStart('add-user', { ...VALID, [name]: undefined });

    // Assess
    await expect(starting).rejects.toMatchObject({
      name: 'RuntimeEnvError',
      message: `Invalid handler environment: ${name} is not set`,
    });
  });

  it.each([
    ['CAMPAIGN_REGION', 'mars-north-1'],
    ['API_KEY_MAX_AGE_SECONDS', '7200'],
    ['API_BASE_URL', 'platform.example.com'],
    ['MAX_RECEIVE_COUNT', '0'],
  ])('fails naming %s when it is %j', async (name, value) => {
    // Act
    const starting = coldStart('add-user', { ...VALID, [name]: value });

    // Assess
    await expect(starting).rejects.toThrow(new RegExp(`^Invalid handler environment: ${name} `));
  });

  it('requires RESULT_EVENT_BUS_NAME for a read action only', async () => {
    // Act
    const write = await coldStart('add-user', { ...VALID, RESULT_EVENT_BUS_NAME: undefined });
    const read = coldStart('search-campaign-records', {
      ...VALID,
      RESULT_EVENT_BUS_NAME: undefined,
    });

    // Assess
    expect(write).toBeTypeOf('function');
    await expect(read).rejects.toThrow(
      'RESULT_EVENT_BUS_NAME is not set (required by read actions)',
    );
  });

  it('requires LEDGER_TABLE_NAME for a write action only', async () => {
    // Act
    const read = await coldStart('search-campaign-records', {
      ...VALID,
      LEDGER_TABLE_NAME: undefined,
    });
    const write = coldStart('add-user', { ...VALID, LEDGER_TABLE_NAME: undefined });

    // Assess
    expect(read).toBeTypeOf('function');
    await expect(write).rejects.toThrow(
      'LEDGER_TABLE_NAME is not set (required by actions that change the platform)',
    );
  });

  it('refuses a read action whose entry point passes no result publisher', async () => {
    // Prepare
    for (const [name, value] of Object.entries(VALID)) vi.stubEnv(name, value);
    vi.resetModules();
    const { createLambdaHandler } = await import('../../../lambdas/core/entry/wiring');
    const { searchCampaignRecords } = await import(
      '../../../lambdas/actions/search-campaign-records'
    );

    // Act
    const building = () => createLambdaHandler(searchCampaignRecords);

    // Assess
    expect(building).toThrow(
      'search-campaign-records is a read action: its entry point must pass `results`',
    );
  });

  it('refuses a write action whose entry point passes another entity kind than the one it orders', async () => {
    // Prepare
    for (const [name, value] of Object.entries(VALID)) vi.stubEnv(name, value);
    vi.resetModules();
    const { createLambdaHandler } = await import('../../../lambdas/core/entry/wiring');
    const { deleteUser } = await import('../../../lambdas/actions/delete-user');
    const { recordFamily } = await import('../../../lambdas/entities/record-family');

    // Act
    const building = () => createLambdaHandler(deleteUser, { entity: recordFamily });

    // Assess
    expect(building).toThrow(
      'delete-user orders user events: its entry point passes the record-family kind',
    );
  });
});
