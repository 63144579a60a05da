/**
 * The local API Gateway in front of the SCIM function: each request under `/scim/v2` becomes
 * the REST proxy event the deployed `/scim/v2/{proxy+}` resource gives the function, and the
 * function's result the response; other paths and a throwing function get API Gateway's answers.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScimProxyServer, startScimProxyServer } from '../../../local/scim/proxy-server';

let server: ScimProxyServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const recording = async () => {
  const events: APIGatewayProxyEvent[] = [];
  server = await startScimProxyServer(async (event) => {
    events.push(event);
    return {
      statusCode: 201,
      headers: { 'Content-Type': 'application/scim+json', Location: 'x' },
      body: JSON.stringify({ ok: true }),
    };
  });
  return { events, baseUrl: server.baseUrl };
};

describe('the local SCIM proxy', () => {
  it('passes method, path, proxy parameter, decoded query, headers and body as a REST proxy event', async () => {
    // Prepare
    const { events, baseUrl } = await recording();

    // Act
    const response = await fetch(
      `${baseUrl}/Users?filter=${encodeURIComponent('userName eq "a@b.c"')}&count=100`,
      {
        method: 'POST',
        headers: { Authorization: 'Bearer t', 'Content-Type': 'application/scim+json' },
        body: '{"userName":"a@b.c"}',
      },
    );

    // Assess
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/scim\/v2$/);
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/scim+json');
    expect(await response.json()).toEqual({ ok: true });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      httpMethod: 'POST',
      resource: '/scim/v2/{proxy+}',
      path: '/scim/v2/Users',
      pathParameters: { proxy: 'Users' },
      queryStringParameters: { filter: 'userName eq "a@b.c"', count: '100' },
      body: '{"userName":"a@b.c"}',
      isBase64Encoded: false,
      requestContext: { stage: 'prod', path: '/prod/scim/v2/Users', httpMethod: 'POST' },
    });
    expect(events[0]?.headers).toMatchObject({
      Authorization: 'Bearer t',
      'X-Forwarded-Proto': 'http',
    });
  });

  it('gives the base path itself the root resource, no proxy parameter and a null body', async () => {
    // Prepare
    const { events, baseUrl } = await recording();

    // Act
    await fetch(baseUrl);

    // Assess
    expect(events[0]).toMatchObject({
      resource: '/scim/v2',
      path: '/scim/v2',
      pathParameters: null,
      queryStringParameters: null,
      body: null,
    });
  });

  it.each(['/', '/scim', '/prod/scim/v2/Users', '/other/scim/v2/Users', '/scim/v2x'])(
    "answers %s with API Gateway's 403 without calling the function",
    async (path) => {
      // Prepare
      const { events, baseUrl } = await recording();
      const origin = new URL(baseUrl).origin;

      // Act
      const response = await fetch(`${origin}${path}`);

      // Assess
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ message: 'Missing Authentication Token' });
      expect(events).toEqual([]);
    },
  );

  it('answers 502 when the function throws, as API Gateway does', async () => {
    // Prepare
    server = await startScimProxyServer(async () => {
      throw new Error('boom');
    });

    // Act
    const response = await fetch(`${server.baseUrl}/Users`);

    // Assess
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ message: 'Internal server error' });
  });
});
