/**
 * Secrets and personal data: the API key never leaves in logs, dead-letter reasons or result
 * events, even when the platform echoes it back; log lines never carry names, e-mails, phone
 * numbers or record values; the key is never served from cache beyond its max age.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ACTION_NAMES, READ_ACTIONS } from '../../lambdas/actions';
import { SecretsManagerApiKeySource } from '../../lambdas/core/aws';
import type { ApiKeySource } from '../../lambdas/core/entry/ports';
import { InMemoryApiKeySource, InMemorySecretStore } from '../../testkit';
import { type CapturedRequest, type Reply, startCaptureServer } from '../support/capture-server';
import {
  captureOutput,
  deliverWithRedelivery,
  RecordingDeadLetters,
  RecordingResults,
  testHandler,
} from './support/harness';
import { PII_VALUES, piiMessage } from './support/pii-messages';

const T0 = Date.parse('2026-07-01T08:00:00Z');

/** Hands out a new, never-seen key on every refresh and remembers all of them. */
class RotatingKeySource implements ApiKeySource {
  readonly issued: string[] = [];
  #current: string;

  constructor() {
    this.#current = this.#next();
  }

  #next(): string {
    const key = `sk-live-rotated-${this.issued.length + 1}-9f8e7d6c5b4a`;
    this.issued.push(key);
    return key;
  }

  async getKey(): Promise<string> {
    return this.#current;
  }

  async refreshKey(rejectedKey: string): Promise<string> {
    if (rejectedKey === this.#current) this.#current = this.#next();
    return this.#current;
  }
}

/**
 * A hostile platform: every kind of failure the specs allow, each quoting the API key header
 * and the request body (personal data) back in its error text. Reads sometimes succeed with
 * records holding that data.
 */
const echoingPlatform = (request: CapturedRequest, index: number): Reply => {
  const key = String(request.headers['x-sc-company-api-key'] ?? '');
  const echo = `key ${key} rejected for ${request.bodyText}`;
  const provisioning = request.path.startsWith('/platform-admin/');
  const status = (realtime: string, other: string) =>
    provisioning
      ? { result: other, message: echo }
      : { previewResult: { previewResultStatus: realtime, error: echo } };
  switch (index % 8) {
    case 0:
      return { status: 401, body: { result: 'UNAUTHORIZED', message: echo } };
    case 1:
      return { status: 500, body: `<html><body><h1>Error</h1><p>${echo}</p></body></html>` };
    case 2:
      return { status: 200, body: status('FAILED', 'FAIL') };
    case 3:
      return { status: 429, headers: { 'retry-after': '1' }, body: { message: echo } };
    case 4:
      return { status: 400, body: { message: echo } };
    case 5:
      return { status: 200, body: status('INVALIDCLIENTID', 'INVALID_ARGUMENTS') };
    case 6:
      return { status: 200, body: status('SURPRISE', 'SURPRISE') };
    default:
      return {
        status: 200,
        body: provisioning
          ? { result: 'SUCCESS', message: echo, cloudConnectStatus: 'EXISTS', connectUserId: 'u-1' }
          : {
              previewResult: { previewResultStatus: 'SUCCESS', error: null },
              previewRecordClientData: [
                {
                  previewRecordID: 'PR1',
                  clientId: 'crm-1',
                  previewRecordData: [{ key: 'Note', value: request.bodyText }],
                },
              ],
            },
      };
  }
};

describe('the API key and personal data', () => {
  it('never appear in logs, and the key never in dead letters or result events, when the platform echoes them back', async () => {
    // Prepare
    const server = await startCaptureServer(echoingPlatform);
    const output = captureOutput();
    const sinks = ACTION_NAMES.map((action) => ({
      action,
      keys: new RotatingKeySource(),
      deadLetters: new RecordingDeadLetters(),
      results: new RecordingResults(),
    }));

    // Act
    try {
      for (const { action, keys, deadLetters, results } of sinks) {
        const handler = testHandler(action, {
          baseUrl: server.baseUrl,
          apiKey: keys,
          deadLetters,
          results,
          maxReceiveCount: 3,
        });
        const bodies = Array.from({ length: 12 }, (_, n) => JSON.stringify(piiMessage(action, n)));
        server.respond(echoingPlatform);
        await deliverWithRedelivery(handler, bodies, 3, action);
        // Retryable echoes only: these messages give up on their last receive.
        server.respond((request, index) => echoingPlatform(request, index % 4));
        await deliverWithRedelivery(handler, bodies.slice(0, 3), 3, `${action}-retryable`);
      }
    } finally {
      output.stop();
      await server.close();
    }

    // Assess
    const logs = output.writes.join('');
    const letters = sinks.flatMap((s) => s.deadLetters.entries);
    const events = sinks.flatMap((s) => s.results.events);
    const keys = sinks.flatMap((s) => s.keys.issued);
    // The run exercised what it claims: echoed keys were redacted, reads were published.
    expect(server.requests.length).toBeGreaterThan(100);
    expect(letters.some((l) => l.reason.errorMessage.includes('[redacted]'))).toBe(true);
    expect(new Set(letters.map((l) => l.reason.errorCategory))).toEqual(
      new Set(['permanent', 'retryable']),
    );
    expect(new Set(events.map((e) => e.action))).toEqual(new Set(READ_ACTIONS));
    expect(keys.length).toBeGreaterThan(ACTION_NAMES.length);
    // The capture sees the handler's own lines.
    expect(logs).toContain('"correlationId":"pii-add-user-0"');
    for (const key of keys) {
      expect(logs).not.toContain(key);
      expect(JSON.stringify(letters.map((l) => l.reason))).not.toContain(key);
      expect(JSON.stringify(events)).not.toContain(key);
    }
    for (const value of PII_VALUES) expect(logs).not.toContain(value);
  });
});

describe('SecretsManagerApiKeySource', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const SECRET = { secretId: 'platform-api-key', secretsRegion: 'eu-west-2' } as const;

  /**
   * A source with `maxAgeSeconds` over a mocked Secrets Manager whose secret `rotate()` moves to
   * its next version, with the clock standing at T0.
   */
  const secretsManagerSource = (maxAgeSeconds: number) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    const client = new SecretsManagerClient({ region: SECRET.secretsRegion });
    const mock = mockClient(client);
    let version = 1;
    mock
      .on(GetSecretValueCommand)
      .callsFake(async () => ({ SecretString: `sm-key-v${version}-abcdef` }));
    return {
      source: new SecretsManagerApiKeySource({ ...SECRET, maxAgeSeconds, client }),
      rotate: () => {
        version += 1;
      },
      reads: () => mock.commandCalls(GetSecretValueCommand).length,
    };
  };

  it.each([60, 900, 3600])(
    'with maxAge %i s serves the cached key up to its max age and reads the secret again right after',
    async (maxAgeSeconds) => {
      // Prepare
      const sm = secretsManagerSource(maxAgeSeconds);
      const { source } = sm;

      // Act
      const first = await source.getKey();
      sm.rotate();
      vi.setSystemTime(T0 + maxAgeSeconds * 1000 - 1);
      const withinMaxAge = await source.getKey();
      const readsWithin = sm.reads();
      vi.setSystemTime(T0 + maxAgeSeconds * 1000 + 1);
      const afterMaxAge = await source.getKey();

      // Assess
      expect(first).toBe('sm-key-v1-abcdef');
      expect(withinMaxAge).toBe('sm-key-v1-abcdef');
      expect(readsWithin).toBe(1);
      expect(afterMaxAge).toBe('sm-key-v2-abcdef');
      expect(sm.reads()).toBe(2);
    },
  );

  it('never caches beyond one hour: a longer maxAge is refused', () => {
    // Prepare
    const options = { ...SECRET, maxAgeSeconds: 3601 };

    // Act
    const create = () => new SecretsManagerApiKeySource(options);

    // Assess
    expect(create).toThrow(RangeError);
  });

  it('reads the secret once, within max age, when the platform rejects the cached key, however many callers were rejected', async () => {
    // Prepare
    const sm = secretsManagerSource(900);
    const { source } = sm;
    const rejected = await source.getKey();
    sm.rotate();
    vi.setSystemTime(T0 + 10_000);

    // Act
    const refreshed = await Promise.all(
      Array.from({ length: 5 }, () => source.refreshKey(rejected)),
    );
    const next = await source.getKey();

    // Assess
    expect(new Set(refreshed)).toEqual(new Set(['sm-key-v2-abcdef']));
    expect(next).toBe('sm-key-v2-abcdef');
    expect(sm.reads()).toBe(2);
  });
});

describe('InMemoryApiKeySource (the local run and the fault matrix)', () => {
  it.each([60, 900, 3600])(
    'with maxAge %i s serves the cached key within its max age and reads the store once it has passed',
    async (maxAgeSeconds) => {
      // Prepare
      let now = T0;
      const store = new InMemorySecretStore('local-key-v1-abcdef');
      const source = new InMemoryApiKeySource({ store, maxAgeSeconds, now: () => now });

      // Act
      const first = await source.getKey();
      store.rotate('local-key-v2-abcdef');
      now = T0 + maxAgeSeconds * 1000 - 1;
      const withinMaxAge = await source.getKey();
      const readsWithin = store.reads;
      now = T0 + maxAgeSeconds * 1000 + 1;
      const afterMaxAge = await source.getKey();

      // Assess
      expect(first).toBe('local-key-v1-abcdef');
      expect(withinMaxAge).toBe('local-key-v1-abcdef');
      expect(readsWithin).toBe(1);
      expect(afterMaxAge).toBe('local-key-v2-abcdef');
      expect(store.reads).toBe(2);
    },
  );

  it('refuses a max age above one hour', () => {
    // Act
    const create = () =>
      new InMemoryApiKeySource({ store: new InMemorySecretStore('k'), maxAgeSeconds: 3601 });

    // Assess
    expect(create).toThrow(RangeError);
  });
});
