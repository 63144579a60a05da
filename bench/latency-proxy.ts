/**
 * A loopback TCP proxy that holds every chunk for half a round trip in each direction: the
 * network between an operator's machine and SQS, which moto on loopback does not have. It
 * delays, nothing else (no bandwidth limit, no loss); equal delays keep each direction's
 * chunks in order, since Node runs timers of the same duration first in, first out.
 */
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

export interface LatencyProxy {
  /** `http://127.0.0.1:<port>`: use it instead of the target's endpoint. */
  readonly endpoint: string;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

const forwardLate = (from: Socket, to: Socket, delayMs: number): void => {
  from.on('data', (chunk) => setTimeout(() => to.write(chunk), delayMs));
  from.on('end', () => setTimeout(() => to.end(), delayMs));
};

export const startLatencyProxy = async (
  targetPort: number,
  roundTripMs: number,
): Promise<LatencyProxy> => {
  const oneWayMs = roundTripMs / 2;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, HOST);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // One side failing ends the connection, as a dropped network path would.
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    forwardLate(client, upstream, oneWayMs);
    forwardLate(upstream, client, oneWayMs);
  });
  server.listen(0, HOST);
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('No TCP port assigned');
  return {
    endpoint: `http://${HOST}:${address.port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
};
