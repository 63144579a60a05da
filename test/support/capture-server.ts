import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the server saw it. */
export interface CapturedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly bodyText: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly body: unknown;
}

/** What the server does with a request. */
export type Reply =
  | {
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
      /** An object is sent as JSON; a string as is. */
      readonly body?: unknown;
    }
  /** Destroy the socket without answering (a connection reset). */
  | { readonly destroy: true }
  /** Never answer (until the server closes). */
  | { readonly hang: true };

export type Responder = (request: CapturedRequest, index: number) => Reply;

export interface CaptureServer {
  readonly baseUrl: string;
  readonly requests: CapturedRequest[];
  /** Number of TCP connections accepted so far. */
  readonly connections: () => number;
  respond(responder: Responder): void;
  close(): Promise<void>;
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/**
 * A node:http server on an ephemeral loopback port that records every request and answers
 * with a scripted reply: the stand-in platform for transport and client tests.
 */
export const startCaptureServer = async (
  initial: Responder = () => ({ status: 200, body: {} }),
): Promise<CaptureServer> => {
  const requests: CapturedRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let responder = initial;
  const server = createServer(async (req, res) => {
    const bodyText = await readBody(req);
    const captured: CapturedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      bodyText,
      body: parse(bodyText),
    };
    requests.push(captured);
    const reply = responder(captured, requests.length - 1);
    if ('destroy' in reply) {
      req.socket.destroy();
      return;
    }
    if ('hang' in reply) return;
    const payload = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
    res.writeHead(reply.status ?? 200, {
      'content-type': typeof reply.body === 'string' ? 'text/html' : 'application/json',
      ...reply.headers,
    });
    res.end(payload);
  });
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    connections: () => connections,
    respond(next) {
      responder = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
};
