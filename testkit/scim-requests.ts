import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { type ApiGatewayRequest, apiGatewayEvent } from './api-gateway-events';
import { lambdaContext } from './lambda-context';

/** The SCIM function's entry point, as API Gateway's proxy integration invokes it. */
export type ScimEntry = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/** A SCIM request as an IdP sends it: JSON with its bearer token. */
export interface IdpRequest extends Omit<ApiGatewayRequest, 'headers' | 'body'> {
  /** `null` sends no Authorization header. */
  readonly token: string | null;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** Sent as it is, instead of `body` (a body that is not JSON). */
  readonly rawBody?: string;
  /** @default 'scim.example.com' */
  readonly host?: string;
}

export interface ScimAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: a caller reads whatever JSON the endpoint answered
  readonly body: any;
}

/** Sends one request to `entry` as API Gateway would, and reads its JSON answer. */
export const callScim = async (entry: ScimEntry, request: IdpRequest): Promise<ScimAnswer> => {
  const { token, body, rawBody, host = 'scim.example.com', ...rest } = request;
  const result = await entry(
    apiGatewayEvent({
      ...rest,
      headers: {
        Host: host,
        'Content-Type': 'application/scim+json',
        ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
      },
      body: rawBody ?? (body === undefined ? null : JSON.stringify(body)),
    }),
    lambdaContext(),
  );
  return {
    status: result.statusCode,
    headers: (result.headers ?? {}) as Record<string, string>,
    body: result.body === '' ? undefined : JSON.parse(result.body),
  };
};
