import { afterEach, describe, expect, it } from 'vitest';
import { postJson } from '../../../lambdas/core/http';
import { type CaptureServer, startCaptureServer } from '../../support/capture-server';

const servers: CaptureServer[] = [];
const start = async (...args: Parameters<typeof startCaptureServer>) => {
  const server = await startCaptureServer(...args);
  servers.push(server);
  return server;
};

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const request = (url: string, timeoutMs = 5000) => ({
  url,
  headers: { 'Content-Type': 'application/json', 'X-sc-platform-code': 'P' },
  body: '{"a":1}',
  timeoutMs,
});

describe('postJson', () => {
  it('POSTs the body with the headers and returns status, headers, text and JSON', async () => {
    // Prepare
    const server = await start(() => ({
      status: 200,
      headers: { 'x-trace': 't-1' },
      body: { ok: true },
    }));

    // Act
    const result = await postJson(request(`${server.baseUrl}/path`));

    // Assess
    expect(result).toMatchObject({
      kind: 'response',
      status: 200,
      bodyText: '{"ok":true}',
      json: { ok: true },
    });
    expect(result.kind === 'response' && result.headers['x-trace']).toBe('t-1');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      path: '/path',
      bodyText: '{"a":1}',
    });
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    expect(server.requests[0]?.headers['x-sc-platform-code']).toBe('P');
  });

  it('returns a non-JSON body as text without json', async () => {
    // Prepare
    const server = await start(() => ({ status: 503, body: '<h1>down</h1>' }));

    // Act
    const result = await postJson(request(server.baseUrl));

    // Assess
    expect(result).toEqual({
      kind: 'response',
      status: 503,
      headers: expect.any(Object),
      bodyText: '<h1>down</h1>',
    });
  });

  it('keeps the connection alive: several calls share one socket', async () => {
    // Prepare
    const server = await start(() => ({ status: 200, body: { ok: true } }));

    // Act
    const results = [];
    for (let i = 0; i < 5; i += 1) {
      results.push(await postJson(request(server.baseUrl)));
    }

    // Assess
    expect(results.every((r) => r.kind === 'response' && r.status === 200)).toBe(true);
    expect(server.requests).toHaveLength(5);
    expect(server.connections()).toBe(1);
    expect(server.requests.every((r) => r.headers.connection !== 'close')).toBe(true);
  });

  it('reuses the socket after error statuses too (bodies are drained)', async () => {
    // Prepare
    const server = await start((_r, i) =>
      i % 2 === 0 ? { status: 500, body: '<html>oops</html>' } : { status: 200, body: {} },
    );

    // Act
    for (let i = 0; i < 4; i += 1) await postJson(request(server.baseUrl));

    // Assess
    expect(server.requests).toHaveLength(4);
    expect(server.connections()).toBe(1);
  });

  it('times out a request that gets no answer', async () => {
    // Prepare
    const server = await start(() => ({ hang: true }));

    // Act
    const result = await postJson(request(server.baseUrl, 50));

    // Assess
    expect(result).toEqual({
      kind: 'network-error',
      code: 'TIMEOUT',
      message: 'no complete response within 50 ms',
    });
  });

  it('reports a reset connection as NETWORK_ERROR with the cause', async () => {
    // Prepare
    const server = await start(() => ({ destroy: true }));

    // Act
    const result = await postJson(request(server.baseUrl));

    // Assess
    expect(result).toMatchObject({ kind: 'network-error', code: 'NETWORK_ERROR' });
    expect(result.kind === 'network-error' && result.message).toMatch(/fetch failed: .+/);
  });

  it('reports a refused connection as NETWORK_ERROR naming ECONNREFUSED', async () => {
    // Prepare
    const server = await start();
    const url = server.baseUrl;
    await server.close();
    servers.pop();

    // Act
    const result = await postJson(request(url));

    // Assess
    expect(result).toMatchObject({ kind: 'network-error', code: 'NETWORK_ERROR' });
    expect(result.kind === 'network-error' && result.message).toContain('ECONNREFUSED');
  });

  it('does not follow a redirect, so headers never go to another host', async () => {
    // Prepare
    const elsewhere = await start(() => ({ status: 200, body: {} }));
    const server = await start(() => ({
      status: 307,
      headers: { location: `${elsewhere.baseUrl}/steal` },
    }));

    // Act
    const result = await postJson(request(server.baseUrl));

    // Assess
    expect(result).toMatchObject({ kind: 'response', status: 307 });
    expect(elsewhere.requests).toHaveLength(0);
  });
});
