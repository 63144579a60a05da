import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { badRequest, errorBody, type ScimError } from './scim-error';

/**
 * The HTTP edge of the SCIM function as API Gateway's REST proxy integration presents it:
 * headers in any case, the path below `/scim/v2`, a body that may be base64, and SCIM's
 * answers (`application/scim+json`, `Retry-After` on a 503, `WWW-Authenticate` on a 401).
 */
const JSON_TYPE = 'application/scim+json';

/** One request's context: when it was received, its id, its deadline, the base URL it used. */
export interface ScimRequest {
  /** Epoch ms API Gateway received it: the `occurredAt` of its event. */
  readonly receivedAt: number;
  readonly requestId: string;
  /** Epoch ms by which its platform work must end. */
  readonly deadline: number;
  /** `https://host/stage/scim/v2`, for `meta.location`. */
  readonly baseUrl: string;
  /** Epoch ms the function started on it (its latency is logged). */
  readonly startedAt: number;
}

export const answer = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': JSON_TYPE, ...headers },
  body: body === undefined ? '' : JSON.stringify(body),
});

export const errorAnswer = (error: ScimError): APIGatewayProxyResult =>
  answer(
    error.status,
    errorBody(error),
    error.retryAfterSeconds !== undefined
      ? { 'Retry-After': String(error.retryAfterSeconds) }
      : error.status === 401
        ? { 'WWW-Authenticate': 'Bearer realm="scim"' }
        : {},
  );

export const header = (event: APIGatewayProxyEvent, name: string): string | undefined => {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
};

/** The path below `/scim/v2`, split: `['Users', '<id>']`. */
export const routeOf = (event: APIGatewayProxyEvent): string[] => {
  const path = event.pathParameters?.proxy ?? event.path.replace(/^.*?\/scim\/v2(?=\/|$)/, '');
  return path
    .split('/')
    .filter((part) => part !== '')
    .map(decoded);
};

/** A path segment decoded once; one API Gateway already decoded (a stray `%`) is kept. */
const decoded = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** The endpoint's base URL as the IdP called it (the stage in it behind API Gateway). */
const baseUrlOf = (event: APIGatewayProxyEvent): string => {
  const host = header(event, 'host') ?? 'localhost';
  const proto = header(event, 'x-forwarded-proto') ?? 'https';
  const stage = event.requestContext?.stage;
  const prefix =
    stage !== undefined && stage !== '' && stage !== '$default' && proto === 'https'
      ? `/${stage}`
      : '';
  return `${proto}://${host}${prefix}/scim/v2`;
};

export const requestOf = (
  event: APIGatewayProxyEvent,
  context: Context,
  now: () => number,
  budgetMs: number,
): ScimRequest => {
  const at = now();
  return {
    receivedAt: event.requestContext?.requestTimeEpoch ?? at,
    requestId: event.requestContext?.requestId ?? context.awsRequestId,
    // Inside API Gateway's limit and the invocation's, whichever ends first.
    deadline: at + Math.min(budgetMs, Math.max(0, context.getRemainingTimeInMillis() - 1000)),
    baseUrl: baseUrlOf(event),
    startedAt: at,
  };
};

export const bodyOf = (event: APIGatewayProxyEvent): unknown => {
  const raw =
    event.body === null || event.body === undefined
      ? ''
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  try {
    return JSON.parse(raw);
  } catch {
    throw badRequest('invalidSyntax', 'the body is not JSON');
  }
};

export const integerParameter = (value: string | undefined, name: string): number | undefined => {
  if (value === undefined || value === '') return undefined;
  if (!/^-?\d+$/.test(value)) throw badRequest('invalidValue', `${name} must be an integer`);
  return Number(value);
};
