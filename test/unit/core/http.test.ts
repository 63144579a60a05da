import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createServer as createTcpServer } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { postJson } from '../../../lambdas/core/platform/http';
import { type CaptureServer, startCaptureServer } from '../../support/capture-server';

const servers: { close: () => Promise<void> }[] = [];
const start = async (...args: Parameters<typeof startCaptureServer>): Promise<CaptureServer> => {
  const server = await startCaptureServer(...args);
  servers.push(server);
  return server;
};

/** A server whose replies a test writes by hand (partial bodies, encodings, repeated headers). */
const startRawServer = async (listener: RequestListener): Promise<string> => {
  const sockets = new Set<Socket>();
  const server = createServer(listener);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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

  it('sends the headers fetch added, so the request on the wire is unchanged', async () => {
    // Prepare
    const server = await start(() => ({ status: 200, body: {} }));

    // Act
    await postJson({ ...request(server.baseUrl), body: '{"name":"Zoë"}' });

    // Assess
    expect(server.requests[0]?.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': '15',
      accept: '*/*',
      'accept-language': '*',
      'sec-fetch-mode': 'cors',
      'user-agent': 'node',
      'accept-encoding': 'gzip, deflate',
      connection: 'keep-alive',
    });
    expect(server.requests[0]?.headers['transfer-encoding']).toBeUndefined();
    expect(server.requests[0]?.bodyText).toBe('{"name":"Zoë"}');
  });

  it('times out a response whose body stops coming', async () => {
    // Prepare: the headers and half a body arrive, the rest never does.
    const url = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '20' });
      res.write('{"ok":');
    });

    // Act
    const result = await postJson(request(url, 100));

    // Assess
    expect(result).toEqual({
      kind: 'network-error',
      code: 'TIMEOUT',
      message: 'no complete response within 100 ms',
    });
  });

  it('reports a connection closed in the middle of the body as NETWORK_ERROR', async () => {
    // Prepare
    const url = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '20' });
      res.write('{"ok":', () => res.socket?.destroy());
    });

    // Act
    const result = await postJson(request(url));

    // Assess
    expect(result).toMatchObject({ kind: 'network-error', code: 'NETWORK_ERROR' });
    expect(result.kind === 'network-error' && result.message).toMatch(/fetch failed: .+/);
  });

  it('decodes a gzip-encoded body', async () => {
    // Prepare
    const url = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync('{"result":"SUCCESS"}'));
    });

    // Act
    const result = await postJson(request(url));

    // Assess
    expect(result).toMatchObject({
      kind: 'response',
      status: 200,
      bodyText: '{"result":"SUCCESS"}',
      json: { result: 'SUCCESS' },
    });
  });

  it('lower-cases header names and joins repeated headers with a comma', async () => {
    // Prepare
    const url = await startRawServer((_req, res) => {
      res.setHeader('X-Repeated', ['a', 'b']);
      res.setHeader('Retry-After', '3');
      res.end('{}');
    });

    // Act
    const result = await postJson(request(url));

    // Assess
    expect(result.kind === 'response' && result.headers['x-repeated']).toBe('a, b');
    expect(result.kind === 'response' && result.headers['retry-after']).toBe('3');
  });

  it('speaks TLS to an https URL', async () => {
    // Prepare: a plain TCP server that records the first bytes it gets, then hangs up.
    const firstBytes: Buffer[] = [];
    const tcp = createTcpServer((socket) => {
      socket.once('data', (data: Buffer) => {
        firstBytes.push(data);
        socket.destroy();
      });
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => new Promise<void>((resolve) => tcp.close(() => resolve())) });
    const { port } = tcp.address() as AddressInfo;

    // Act
    const result = await postJson(request(`https://127.0.0.1:${port}/path`));

    // Assess: a TLS handshake record (0x16), not a plain-text "POST /path".
    expect(result).toMatchObject({ kind: 'network-error', code: 'NETWORK_ERROR' });
    expect(firstBytes[0]?.[0]).toBe(0x16);
  });

  it('ignores proxy settings in the environment', async () => {
    // Prepare
    const proxy = await start(() => ({ status: 200, body: { via: 'proxy' } }));
    const server = await start(() => ({ status: 200, body: { via: 'direct' } }));
    const saved = { http: process.env.HTTP_PROXY, lower: process.env.http_proxy };
    process.env.HTTP_PROXY = proxy.baseUrl;
    process.env.http_proxy = proxy.baseUrl;

    // Act
    const result = await postJson(request(server.baseUrl)).finally(() => {
      if (saved.http === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved.http;
      if (saved.lower === undefined) delete process.env.http_proxy;
      else process.env.http_proxy = saved.lower;
    });

    // Assess
    expect(result).toMatchObject({ kind: 'response', json: { via: 'direct' } });
    expect(proxy.requests).toHaveLength(0);
  });
});
