/**
 * The bearer token check: the current token passes, a rotated one at once, the old one never
 * after the fresh read; wrong tokens cannot turn into one secret read each; a secret that
 * cannot be read is a 503, not a 401.
 */
import { describe, expect, it } from 'vitest';
import { ScimAuthenticator } from '../../../lambdas/scim/scim-auth';
import { InMemoryApiKeySource, InMemorySecretStore } from '../../../testkit';

const setup = () => {
  let now = Date.parse('2026-11-28T10:00:00Z');
  const store = new InMemorySecretStore('token-1');
  const tokens = new InMemoryApiKeySource({ store, maxAgeSeconds: 300, now: () => now });
  const auth = new ScimAuthenticator(tokens, { now: () => now, refetchIntervalMs: 1000 });
  return { store, tokens, auth, advance: (ms: number) => (now += ms) };
};

const outcomeOf = (check: Promise<void>) =>
  check.then(
    () => 'accepted',
    (error: { status?: number }) => `refused ${error.status}`,
  );

describe('ScimAuthenticator', () => {
  it.each([
    [undefined, 'refused 401'],
    ['token-1', 'refused 401'],
    ['Basic token-1', 'refused 401'],
    ['Bearer token-2', 'refused 401'],
    ['Bearer token-1', 'accepted'],
    ['bearer token-1', 'accepted'],
  ])('answers the header %s: %s', async (header, expected) => {
    // Prepare
    const { auth } = setup();

    // Act
    const outcome = await outcomeOf(auth.check(header));

    // Assess
    expect(outcome).toBe(expected);
  });

  it('accepts a rotated token at once, then refuses the old one', async () => {
    // Prepare
    const { store, auth } = setup();
    await auth.check('Bearer token-1');
    store.rotate('token-2');

    // Act
    const rotated = await outcomeOf(auth.check('Bearer token-2'));
    const old = await outcomeOf(auth.check('Bearer token-1'));

    // Assess
    expect([rotated, old]).toEqual(['accepted', 'refused 401']);
  });

  it('reads the secret again at most once per interval however many wrong tokens come', async () => {
    // Prepare
    const { store, auth, advance } = setup();
    await auth.check('Bearer token-1');
    const before = store.reads;

    // Act
    for (let i = 0; i < 50; i += 1) await outcomeOf(auth.check(`Bearer wrong-${i}`));
    advance(1000);
    await outcomeOf(auth.check('Bearer wrong-again'));

    // Assess
    expect(store.reads - before).toBe(2);
  });

  it('answers 503 when the secret cannot be read', async () => {
    // Prepare
    const { tokens, auth } = setup();
    tokens.failWith = new Error('Secrets Manager is down');

    // Act
    const outcome = await outcomeOf(auth.check('Bearer token-1'));

    // Assess
    expect(outcome).toBe('refused 503');
  });
});
