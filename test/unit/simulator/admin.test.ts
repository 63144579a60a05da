import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../../local/simulator';
import {
  addBody,
  addRecord,
  authHeaders,
  postJson,
  realtimeUrl,
  useTestSimulator,
} from './simulator-support';

const admin = async (
  sim: RunningSimulator,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
) => {
  const response = await fetch(`${sim.baseUrl}/__admin/${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};

describe('simulator: admin endpoint', () => {
  const sim = useTestSimulator();

  it('GET /__admin/state lists campaigns with their records, users and history', async () => {
    // Prepare
    await addRecord(sim, 'Leads', addBody);
    sim.state.addUser({ loginUserId: 'u1', firstName: 'A', lastName: 'B', userTemplateName: 'T' });

    // Act
    const reply = await admin(sim, 'GET', 'state');

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      campaigns: [{ name: 'Leads', records: [{ clientId: 'crm-1', appliedCount: 1 }] }],
      users: [{ loginUserId: 'u1', inCloudConnect: false }],
      history: [{ sequence: 1, action: 'addOrUpdateCampaignRecord:add', clientId: 'crm-1' }],
    });
  });

  it('POST /__admin/faults switches faults on; GET returns them; invalid settings get 400', async () => {
    // Act
    const set = await admin(sim, 'POST', 'faults', { serverErrorRate: 1 });
    const read = await admin(sim, 'GET', 'faults');
    const request = await addRecord(sim, 'Leads', addBody);
    const invalid = await admin(sim, 'POST', 'faults', { serverErrorRate: 2 });

    // Assess
    expect(set).toEqual({ status: 200, json: { serverErrorRate: 1 } });
    expect(read.json).toEqual({ serverErrorRate: 1 });
    expect(request.status).toBeGreaterThanOrEqual(500);
    expect(invalid.status).toBe(400);
    expect(sim.faults).toEqual({ serverErrorRate: 1 });
  });

  it('POST /__admin/api-key rotates the key without echoing it', async () => {
    // Act
    const reply = await admin(sim, 'POST', 'api-key', { apiKey: 'rotated-secret' });
    const old = await postJson(realtimeUrl(sim, 'addOrUpdateCampaignRecord'), addBody);
    const rotated = await postJson(
      realtimeUrl(sim, 'addOrUpdateCampaignRecord'),
      addBody,
      authHeaders({ 'X-sc-company-api-key': 'rotated-secret' }),
    );
    const empty = await admin(sim, 'POST', 'api-key', { apiKey: '' });

    // Assess
    expect(reply.status).toBe(200);
    expect(JSON.stringify(reply.json)).not.toContain('rotated-secret');
    expect(old.status).toBe(401);
    expect(rotated.status).toBe(200);
    expect(empty.status).toBe(400);
  });

  it('GET /__admin/stats reports counts; POST /__admin/reset clears data, stats and faults', async () => {
    // Prepare
    await addRecord(sim, 'Leads', addBody);
    sim.setFaults({ throttleRate: 1 });

    // Act
    const before = await admin(sim, 'GET', 'stats');
    const reset = await admin(sim, 'POST', 'reset');
    const after = await admin(sim, 'GET', 'stats');

    // Assess
    expect(before.json).toMatchObject({
      requests: 1,
      endpoints: { addOrUpdateCampaignRecord: { requests: 1, result: { SUCCESS: 1 } } },
    });
    expect(reset.status).toBe(200);
    expect(after.json).toMatchObject({ requests: 0, endpoints: {} });
    expect(sim.state.listCampaigns()).toEqual([]);
    expect(sim.faults).toEqual({});
  });

  it('answers 404 to an unknown admin route and 405 to a wrong method', async () => {
    // Act
    const unknown = await admin(sim, 'GET', 'nope');
    const wrongMethod = await admin(sim, 'GET', 'reset');

    // Assess
    expect(unknown.status).toBe(404);
    expect(wrongMethod.status).toBe(405);
  });
});
