/**
 * What the bench's fake AWS services share: an AWS JSON protocol server on a free loopback
 * port. Each fake answers `(target, body)`; the SDK's `X-Amz-Target` header names the call.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';

export interface AwsJsonServer {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_<SERVICE>`. */
  readonly url: string;
  close(): Promise<void>;
}

export type AwsJsonHandler = (
  target: string,
  body: string,
  /** `performance.now()` when the request's headers arrived. */
  receivedAt: number,
) => Promise<readonly [status: number, reply: unknown]> | readonly [status: number, reply: unknown];

/**
 * Waits until `latencyMs` after `receivedAt`: a modelled service answers that long after a
 * request reaches it, however long this process took to read and answer it (the real service
 * serves its requests side by side; this one event loop serves them one after another).
 */
export const answerAfter = async (receivedAt: number, latencyMs: number): Promise<void> => {
  const left = receivedAt + latencyMs - performance.now();
  if (left > 0) await sleep(left);
};

const send = (res: ServerResponse, contentType: string, status: number, body: unknown): void => {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(json) });
  res.end(json);
};

/** `contentType`: `application/x-amz-json-1.0` (DynamoDB) or `-1.1` (Secrets Manager). */
export const startAwsJsonServer = async (
  contentType: string,
  handle: AwsJsonHandler,
): Promise<AwsJsonServer> => {
  const server = createServer((req, res) => {
    const receivedAt = performance.now();
    const target = String(req.headers['x-amz-target'] ?? '');
    text(req)
      .then((body) => handle(req.method === 'POST' ? target : '', body, receivedAt))
      .then(([status, reply]) => send(res, contentType, status, reply))
      .catch(() => send(res, contentType, 500, { __type: 'InternalServerError' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
};
