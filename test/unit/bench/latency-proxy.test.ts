/**
 * The bulk-load bench's latency proxy: a faithful pipe (every byte, in order, both ways, kept-alive
 * connections) that holds each chunk for half the round trip.
 */
import { once } from 'node:events';
import { Agent, createServer, request } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type LatencyProxy, startLatencyProxy } from '../../../bench/latency-proxy';

const closing: (() => Promise<void>)[] = [];

afterEach(async () => {
  vi.useRealTimers();
  for (const close of closing.splice(0)) await close();
});

const listen = async (server: ReturnType<typeof createTcpServer>): Promise<number> => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closing.push(async () => {
    server.close();
    await once(server, 'close');
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
};

const proxyTo = async (port: number, roundTripMs: number): Promise<LatencyProxy> => {
  const proxy = await startLatencyProxy(port, roundTripMs);
  closing.unshift(() => proxy.close());
  return proxy;
};

const post = (agent: Agent, endpoint: string, body: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const req = request(`${endpoint}/echo`, { method: 'POST', agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', reject);
    req.end(body);
  });

describe('latency proxy', () => {
  it('passes every byte through, in order, both ways, over kept-alive connections', async () => {
    // Prepare: an HTTP server answering each request with its body.
    const echo = createServer((req, res) => req.pipe(res));
    const proxy = await proxyTo(await listen(echo), 2);
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    closing.unshift(async () => agent.destroy());
    const bodies = [
      ...Array.from({ length: 6 }, (_, n) => `{"n":${n}}`),
      'x'.repeat(1024 * 1024),
      'é'.repeat(70_000),
    ];

    // Act
    const answers = await Promise.all(bodies.map((body) => post(agent, proxy.endpoint, body)));

    // Assess
    expect(answers).toEqual(bodies);
  });

  it('holds a chunk for half the round trip before passing it on', async () => {
    // Prepare: a TCP server recording what reaches it; only setTimeout is faked, sockets are real.
    const received: string[] = [];
    const target = createTcpServer((socket: Socket) => {
      socket.on('data', (chunk) => received.push(chunk.toString('utf8')));
    });
    const proxy = await proxyTo(await listen(target), 40);
    const client = connect(Number(new URL(proxy.endpoint).port), '127.0.0.1');
    closing.unshift(async () => {
      client.destroy();
    });
    await once(client, 'connect');
    vi.useFakeTimers({ toFake: ['setTimeout'] });

    // Act: the proxy has the chunk once it set a timer for it.
    client.write('ping');
    while (vi.getTimerCount() === 0) await tick();
    vi.advanceTimersByTime(19);
    for (let n = 0; n < 20; n += 1) await tick();
    const beforeHalf = [...received];
    vi.advanceTimersByTime(1);
    while (received.length === 0) await tick();

    // Assess
    expect(beforeHalf).toEqual([]);
    expect(received.join('')).toBe('ping');
  });
});
