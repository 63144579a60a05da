/**
 * A pass-through HTTP proxy for the handler tests, used in two places:
 *
 * - in front of moto's Secrets Manager, to count `GetSecretValue` calls on the wire. The real
 *   Lambda entry point builds its own client (inside Powertools' SecretsProvider) and exposes
 *   nothing to hook into, so `AWS_ENDPOINT_URL_SECRETS_MANAGER` points here and every request
 *   is forwarded unchanged (moto does not check SigV4 signatures, so the Host differing is fine);
 * - in front of the platform simulator, to fail chosen requests only (the simulator's own
 *   faults hit every request alike, which a mixed batch cannot use).
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the proxy saw it. */
export interface ProxiedRequest {
  readonly path: string;
  /** `X-Amz-Target` operation (`GetSecretValue`), when the request has one. */
  readonly operation: string | undefined;
  readonly bodyText: string;
}

/** An answer the proxy gives itself instead of forwarding. */
export interface ProxyReply {
  readonly status: number;
  readonly body: unknown;
}

export interface ForwardingProxy {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  /** Requests seen so far whose `X-Amz-Target` ends in `.<operation>`. */
  count(operation: string): number;
  /** Answer requests for which `rule` returns a reply; forward the others. */
  intercept(rule: ((request: ProxiedRequest) => ProxyReply | undefined) | undefined): void;
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

export const startForwardingProxy = async (upstream: string): Promise<ForwardingProxy> => {
  const target = new URL(upstream);
  const counts = new Map<string, number>();
  let rule: ((request: ProxiedRequest) => ProxyReply | undefined) | undefined;

  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    const header = req.headers['x-amz-target'];
    const operation = typeof header === 'string' ? header.split('.').pop() : undefined;
    if (operation) counts.set(operation, (counts.get(operation) ?? 0) + 1);
    const reply = rule?.({ path: req.url ?? '/', operation, bodyText: body.toString('utf8') });
    if (reply) {
      const text = JSON.stringify(reply.body);
      res.writeHead(reply.status, { 'Content-Type': 'application/json' });
      res.end(text);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const upstreamRequest = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (upstreamResponse) => {
          res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
          upstreamResponse.pipe(res);
          upstreamResponse.on('end', resolve);
          upstreamResponse.on('error', reject);
        },
      );
      upstreamRequest.on('error', reject);
      upstreamRequest.end(body);
    });
  };

  const server = createServer((req, res) => {
    forward(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    count: (name) => counts.get(name) ?? 0,
    intercept: (next) => {
      rule = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
};
