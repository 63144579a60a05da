import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * Counts the GetSecretValue calls sent through `client` from now on; returns the count so far.
 * The local run reports it, and the tests check with it that the key is read once per cache
 * period rather than once per request.
 */
export const countSecretReads = (client: SecretsManagerClient): (() => number) => {
  let reads = 0;
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (context.commandName === 'GetSecretValueCommand') reads += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countSecretReads' },
  );
  return () => reads;
};
