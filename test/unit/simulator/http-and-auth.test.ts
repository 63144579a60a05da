import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../../local/simulator';
import {
  addBody,
  authHeaders,
  postJson,
  provisioningUrl,
  realtimeUrl,
  statusOf,
  TENANT,
  tenantObject,
  useTestSimulator,
  withTestSimulator,
} from './simulator-support';

const queryBody = { tenant: tenantObject, loginUserId: 'ann@example.com' };

/** Posts to addOrUpdateCampaignRecord with the valid headers, less or more the `overrides`. */
const postAdd = (
  target: RunningSimulator,
  body: unknown = addBody,
  overrides: Record<string, string | undefined> = {},
) => postJson(realtimeUrl(target, 'addOrUpdateCampaignRecord'), body, authHeaders(overrides));

const HEADER_NAMES = [
  'X-sc-platform-code',
  'X-sc-company-code',
  'X-sc-company-environment',
  'X-sc-secrets-region',
  'X-sc-company-api-key',
] as const;

describe('simulator: authentication', () => {
  const sim = useTestSimulator();

  describe.each([
    ['realtime', () => realtimeUrl(sim, 'addOrUpdateCampaignRecord'), addBody],
    ['provisioning', () => provisioningUrl(sim, 'query-existence'), queryBody],
  ])('%s service', (_service, url, body) => {
    it.each(HEADER_NAMES)('answers 401 UNAUTHORIZED when %s is missing', async (header) => {
      // Act
      const reply = await postJson(url(), body, authHeaders({ [header]: undefined }));

      // Assess
      expect(reply.status).toBe(401);
      expect(reply.json).toEqual({
        result: 'UNAUTHORIZED',
        message: `missing header ${header}`,
      });
      expect(sim.state.listRecords('Leads')).toEqual([]);
    });

    it.each(HEADER_NAMES)('answers 401 UNAUTHORIZED when %s is wrong', async (header) => {
      // Act
      const reply = await postJson(url(), body, authHeaders({ [header]: 'wrong-value' }));

      // Assess
      expect(reply.status).toBe(401);
      expect(reply.json).toEqual({
        result: 'UNAUTHORIZED',
        message: `invalid header ${header}`,
      });
    });

    it('answers 401 to the old key after rotation and 200 to the new one', async () => {
      // Prepare
      sim.setApiKey('rotated-key');

      // Act
      const old = await postJson(url(), body, authHeaders());
      const rotated = await postJson(
        url(),
        body,
        authHeaders({ 'X-sc-company-api-key': 'rotated-key' }),
      );

      // Assess
      expect(old.status).toBe(401);
      expect(old.text).not.toContain(TENANT.apiKey);
      expect(rotated.status).toBe(200);
    });
  });

  it('counts unauthorized requests and restores the initial key on reset', async () => {
    // Prepare
    sim.setApiKey('rotated-key');
    await postAdd(sim);
    const unauthorizedBeforeReset = sim.stats.unauthorized;

    // Act
    sim.reset();
    const afterReset = await postAdd(sim);

    // Assess
    expect(unauthorizedBeforeReset).toBe(1);
    expect(afterReset.status).toBe(200);
    expect(sim.stats.count('addOrUpdateCampaignRecord', 200)).toBe(1);
  });

  it('accepts any well-formed AWS region as X-sc-secrets-region when none is configured', async () => {
    // Act
    const reply = await postAdd(sim, addBody, { 'X-sc-secrets-region': 'eu-west-1' });

    // Assess
    expect(reply.status).toBe(200);
  });

  it('requires the configured X-sc-secrets-region when one is set', async () => {
    // Prepare
    await withTestSimulator({ secretsRegion: 'eu-central-1' }, async (strict) => {
      // Act
      const wrong = await postAdd(strict);
      const right = await postAdd(strict, addBody, { 'X-sc-secrets-region': 'eu-central-1' });

      // Assess
      expect(wrong.status).toBe(401);
      expect(right.status).toBe(200);
    });
  });

  it('answers 200 with FAILED (not 401) when the body tenant differs from valid headers', async () => {
    // Act
    const reply = await postAdd(sim, {
      ...addBody,
      companyCode: 'other',
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(statusOf(reply)).toBe('FAILED');
  });
});

describe('simulator: HTTP rules', () => {
  const sim = useTestSimulator({ maxBodyBytes: 1024 });

  it('answers 405 with Allow: POST to another method', async () => {
    // Act
    const response = await fetch(realtimeUrl(sim, 'searchPreviewCampaign'), {
      headers: authHeaders(),
    });

    // Assess
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('answers 415 without Content-Type application/json', async () => {
    // Act
    const reply = await postAdd(sim, addBody, { 'Content-Type': 'text/plain' });

    // Assess
    expect(reply.status).toBe(415);
    expect(sim.state.listRecords('Leads')).toEqual([]);
  });

  it('accepts Content-Type application/json with a charset', async () => {
    // Act
    const reply = await postAdd(sim, addBody, {
      'Content-Type': 'application/json; charset=utf-8',
    });

    // Assess
    expect(reply.status).toBe(200);
  });

  it('answers 400 to invalid JSON and to a JSON body that is not an object', async () => {
    // Act
    const invalid = await postAdd(sim, '{"clientId":');
    const array = await postAdd(sim, [addBody]);

    // Assess
    expect(invalid.status).toBe(400);
    expect(array.status).toBe(400);
  });

  it('answers 413 to a body over the size limit', async () => {
    // Act
    const reply = await postAdd(sim, {
      ...addBody,
      previewRecordData: [{ key: 'Notes', value: 'x'.repeat(2000) }],
    });

    // Assess
    expect(reply.status).toBe(413);
  });

  it('answers 404 to an unknown realtime action and other unknown paths', async () => {
    // Act
    const action = await postJson(
      `${sim.baseUrl}/platform-previewcontact-service/svc/rs/PreviewContactServiceExternal/nope`,
      addBody,
    );
    const other = await postJson(`${sim.baseUrl}/elsewhere`, addBody);

    // Assess
    expect(action.status).toBe(404);
    expect(other.status).toBe(404);
  });

  it('answers 401 to an unknown provisioning path (the spec: a wrong endpoint address is 401)', async () => {
    // Act
    const reply = await postJson(`${sim.baseUrl}/platform-admin/api/users/rename-user`, queryBody);

    // Assess
    expect(reply.status).toBe(401);
    expect(reply.json.result).toBe('UNAUTHORIZED');
  });

  it('counts answers per endpoint, HTTP status and result', async () => {
    // Act
    await postAdd(sim);
    await postAdd(sim, { ...addBody, clientId: '' });
    await postJson(provisioningUrl(sim, 'query-existence'), queryBody);

    // Assess
    expect(sim.stats.requests).toBe(3);
    expect(sim.stats.endpoint('addOrUpdateCampaignRecord')).toMatchObject({
      requests: 2,
      httpStatus: { '200': 2 },
      result: { SUCCESS: 1, INVALIDCLIENTID: 1 },
    });
    expect(sim.stats.count('query-existence', 'NOT_FOUND')).toBe(1);
  });
});
