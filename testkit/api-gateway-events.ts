import type { APIGatewayProxyEvent } from 'aws-lambda';

/** One HTTP request as the SCIM endpoint's REST API proxy integration hands it to the function. */
export interface ApiGatewayRequest {
  readonly method: string;
  /** Below the proxy resource, e.g. `Users/abc` (the `{proxy+}` of `/scim/v2/{proxy+}`). */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>> | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly body?: string | null | undefined;
  /** @default a fresh id */
  readonly requestId?: string;
  /** When API Gateway received it (epoch ms). @default Date.now() */
  readonly requestTimeEpoch?: number;
  /** @default 'prod' */
  readonly stage?: string;
}

let requests = 0;

/**
 * The `APIGatewayProxyEvent` of a request to `/scim/v2/{proxy+}` (API Gateway REST API, Lambda
 * proxy integration): what tests and the local endpoint pass to the SCIM function.
 */
export const apiGatewayEvent = (request: ApiGatewayRequest): APIGatewayProxyEvent => {
  requests += 1;
  const proxy = request.path.replace(/^\/+/, '');
  const requestId = request.requestId ?? `request-${requests}`;
  return {
    httpMethod: request.method,
    path: `/scim/v2/${proxy}`,
    resource: '/scim/v2/{proxy+}',
    pathParameters: { proxy },
    queryStringParameters: request.query === undefined ? null : { ...request.query },
    multiValueQueryStringParameters:
      request.query === undefined
        ? null
        : Object.fromEntries(Object.entries(request.query).map(([k, v]) => [k, [v]])),
    headers: { ...request.headers },
    multiValueHeaders: Object.fromEntries(
      Object.entries(request.headers ?? {}).map(([k, v]) => [k, [v]]),
    ),
    body: request.body ?? null,
    isBase64Encoded: false,
    stageVariables: null,
    requestContext: {
      requestId,
      requestTimeEpoch: request.requestTimeEpoch ?? Date.now(),
      stage: request.stage ?? 'prod',
      resourcePath: '/scim/v2/{proxy+}',
      httpMethod: request.method,
      path: `/${request.stage ?? 'prod'}/scim/v2/${proxy}`,
    } as APIGatewayProxyEvent['requestContext'],
  };
};
