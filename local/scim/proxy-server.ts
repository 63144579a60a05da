/**
 * API Gateway's REST proxy integration on this machine: a node:http server on loopback that turns
 * each request under `/scim/v2` into the `APIGatewayProxyEvent` the stack's `/scim/v2/{proxy+}`
 * resource gives the function (stage `prod`, the `X-Forwarded-*` headers API Gateway adds), and
 * the function's result back into the response. Other paths get API Gateway's own 403
 * `Missing Authentication Token`, as deployed. Plain HTTP has no stage in its path: the function
 * puts the stage in the URLs it answers only behind HTTPS (`X-Forwarded-Proto`), as deployed.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { SCIM_BASE_PATH, SCIM_STAGE_NAME } from '../../lib/scim-routes';

export type ProxyHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

export interface ScimProxyServer {
  /** `http://127.0.0.1:<port>/scim/v2`: what the IdP (or a test) is given. */
  readonly baseUrl: string;
  close(): Promise<void>;
}

/** API Gateway's largest request payload (10 MB); a larger body gets its 413. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

const readBody = (request: IncomingMessage): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
  });

/** Headers as API Gateway passes them: the last value per name, and every value per name. */
const headersOf = (request: IncomingMessage) => {
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index] ?? '';
    const value = request.rawHeaders[index + 1] ?? '';
    single[name] = value;
    multi[name] = [...(multi[name] ?? []), value];
  }
  return { single, multi };
};

/** Query parameters, decoded as API Gateway decodes them. */
const queryOf = (url: URL) => {
  if ([...url.searchParams.keys()].length === 0) return { single: null, multi: null };
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    single[name] = value;
    multi[name] = [...(multi[name] ?? []), value];
  }
  return { single, multi };
};

const lambdaContext = (requestId: string): Context => ({
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'scim-local',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-central-1:000000000000:function:scim-local',
  memoryLimitInMB: '256',
  awsRequestId: requestId,
  logGroupName: '/aws/lambda/scim-local',
  logStreamName: 'local',
  getRemainingTimeInMillis: () => 25_000,
  done: () => {},
  fail: () => {},
  succeed: () => {},
});

const send = (
  response: ServerResponse,
  status: number,
  headers: Record<string, string | number | boolean>,
  body: string,
): void => {
  response.writeHead(
    status,
    Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])),
  );
  response.end(body);
};

/** Starts the proxy on 127.0.0.1 (`port` 0: any free one) in front of `handler`. */
export const startScimProxyServer = async (
  handler: ProxyHandler,
  options: { readonly port?: number } = {},
): Promise<ScimProxyServer> => {
  const prefix = `/${SCIM_BASE_PATH}`;
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const requestId = randomUUID();
      const gatewayHeaders = { 'Content-Type': 'application/json', 'x-amzn-RequestId': requestId };
      if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) {
        send(
          response,
          403,
          gatewayHeaders,
          JSON.stringify({ message: 'Missing Authentication Token' }),
        );
        return;
      }
      const body = await readBody(request);
      if (body === undefined) {
        send(response, 413, gatewayHeaders, JSON.stringify({ message: 'Request Too Long' }));
        return;
      }
      // The path without the stage, as a REST API passes it; the proxy parameter is the rest.
      const path = url.pathname;
      const proxy = url.pathname.slice(prefix.length + 1);
      const headers = headersOf(request);
      const { port } = request.socket.address() as AddressInfo;
      for (const [name, value] of [
        ['X-Forwarded-For', request.socket.remoteAddress ?? '127.0.0.1'],
        ['X-Forwarded-Port', String(port)],
        ['X-Forwarded-Proto', 'http'],
      ] as const) {
        headers.single[name] = value;
        headers.multi[name] = [value];
      }
      const query = queryOf(url);
      const event: APIGatewayProxyEvent = {
        resource: proxy === '' ? `/${SCIM_BASE_PATH}` : `/${SCIM_BASE_PATH}/{proxy+}`,
        path,
        httpMethod: request.method ?? 'GET',
        headers: headers.single,
        multiValueHeaders: headers.multi,
        queryStringParameters: query.single,
        multiValueQueryStringParameters: query.multi,
        pathParameters: proxy === '' ? null : { proxy: decodeURIComponent(proxy) },
        stageVariables: null,
        body: body.length === 0 ? null : body.toString('utf8'),
        isBase64Encoded: false,
        requestContext: {
          accountId: '000000000000',
          apiId: 'local',
          authorizer: null,
          protocol: `HTTP/${request.httpVersion}`,
          httpMethod: request.method ?? 'GET',
          identity: {
            accessKey: null,
            accountId: null,
            apiKey: null,
            apiKeyId: null,
            caller: null,
            clientCert: null,
            cognitoAuthenticationProvider: null,
            cognitoAuthenticationType: null,
            cognitoIdentityId: null,
            cognitoIdentityPoolId: null,
            principalOrgId: null,
            sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
            user: null,
            userAgent: request.headers['user-agent'] ?? null,
            userArn: null,
          },
          path: `/${SCIM_STAGE_NAME}${url.pathname}`,
          stage: SCIM_STAGE_NAME,
          requestId,
          requestTimeEpoch: Date.now(),
          resourceId: 'local',
          resourcePath: proxy === '' ? `/${SCIM_BASE_PATH}` : `/${SCIM_BASE_PATH}/{proxy+}`,
        },
      };
      try {
        const result = await handler(event, lambdaContext(requestId));
        const responseHeaders: Record<string, string | number | boolean> = {
          ...(result.headers ?? {}),
          'x-amzn-RequestId': requestId,
        };
        const payload = result.isBase64Encoded
          ? Buffer.from(result.body, 'base64').toString('utf8')
          : result.body;
        send(response, result.statusCode, responseHeaders, payload);
      } catch {
        // What API Gateway answers when the function throws instead of returning a result.
        send(response, 502, gatewayHeaders, JSON.stringify({ message: 'Internal server error' }));
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
};
