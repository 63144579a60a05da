/**
 * The cold-start options measured side by side with the deployed bundle, each in the same run,
 * each differing from the deployed function in one choice: what each kept
 * part saves, and what each part given back for a standard one (issue 25) cost. They are built
 * with the stack's bundling options changed where the option is a bundling choice, or from a
 * bench entry point where it is a wiring choice.
 */
import { join } from 'node:path';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { BUILTIN_ALIASES, BUNDLE_ALIASES, HANDLER_BUNDLING, SDK_ALIASES } from '../lib/bundling';
import type { BundleVariant } from './build';
import { PROJECT_ROOT } from './paths';

export interface ColdStartOption extends BundleVariant {
  /** What differs from the deployed function, for RESULTS.md. */
  readonly differs: string;
  /** Environment changes (undefined removes the variable). @default none */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const changed = (changes: nodejs.BundlingOptions) => ({ ...HANDLER_BUNDLING, ...changes });
const withAliases = (aliases: readonly string[]) =>
  changed({ esbuildArgs: { '--alias': [...aliases] } });
const without = (alias: string) => withAliases(BUNDLE_ALIASES.filter((a) => a !== alias));
const variantEntry = (file: string) => join(PROJECT_ROOT, 'bench', 'variants', file);
const SOURCE_MAPS = { NODE_OPTIONS: '--enable-source-maps' };

export const COLD_START_OPTIONS: readonly ColdStartOption[] = [
  {
    name: 'option-sdk-from-runtime',
    differs:
      'the AWS SDK left to the runtime (`@aws-sdk/*` external; here it resolves to the same version in node_modules)',
    bundling: changed({
      esbuildArgs: { '--alias': [...BUILTIN_ALIASES] },
      externalModules: ['@aws-sdk/*'],
    }),
  },
  {
    name: 'option-no-builtin-shims',
    differs: 'node:http, process and fs imported as ESM (node:http’s facade loads undici)',
    bundling: withAliases(Object.values(SDK_ALIASES)),
  },
  {
    name: 'option-sdk-credential-chain',
    differs:
      'the SDK’s whole default credential chain bundled and walked on each client’s first request',
    entry: variantEntry('sdk-default-credentials.ts'),
    bundling: without(SDK_ALIASES.credentialChain),
  },
  {
    name: 'option-event-streams',
    differs: 'the SDK’s event-stream code bundled (no operation of the functions uses it)',
    bundling: without(SDK_ALIASES.eventStreams),
  },
  {
    name: 'option-event-bridge',
    differs: 'the EventBridge client in the write bundle too (as every bundle had it)',
    entry: variantEntry('write-with-event-bridge.ts'),
  },
  {
    name: 'option-source-maps',
    differs:
      '`NODE_OPTIONS=--enable-source-maps` (config `sourceMapStackTraces`, as every function had it): source-mapped stack traces',
    env: SOURCE_MAPS,
  },
];
