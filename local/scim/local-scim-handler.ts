/**
 * The SCIM function as `npm start -- --scim` and the bench run it: the runtime's
 * `createScimHandler` with an in-memory ledger, delete-user's brake (the deployment's default
 * limit) and token, calling the platform at `platformBaseUrl` over a real socket.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { HeldMessage } from '../../lambdas/core/entry/ports';
import { InMemoryLedgerStore } from '../../lambdas/core/ledger/in-memory-ledger-store';
import type { LedgerStore } from '../../lambdas/core/ledger/ledger-store';
import { PlatformCaller } from '../../lambdas/core/platform/platform-caller';
import type { PlatformSettings } from '../../lambdas/core/platform/platform-settings';
import { InMemoryBrakeStore } from '../../lambdas/core/resilience/in-memory-brake-store';
import { MassDeleteBrake } from '../../lambdas/core/resilience/mass-delete-brake';
import { createScimHandler } from '../../lambdas/scim/scim-handler';
import { inMemoryProfileLister } from '../../lambdas/scim/scim-profiles';
import { DELETE_BRAKE_DEFAULTS, SCIM_DEFAULTS } from '../../lib/config';
import { InMemoryApiKeySource } from '../../testkit';

/** The user template the local endpoint gives users without the extension (the example's). */
export const LOCAL_USER_TEMPLATE = 'Agent';

export interface LocalScimHandlerOptions {
  /** The platform (the simulator) and the tenant. */
  readonly platform: PlatformSettings;
  readonly apiKey: string;
  /** The bearer token the IdP must send. */
  readonly token: string;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Wraps the ledger store the function uses (the bench adds DynamoDB's latency). @default as is */
  readonly wrapLedger?: (store: LedgerStore) => LedgerStore;
}

export interface LocalScimHandler {
  readonly handler: ReturnType<typeof createScimHandler>;
  /** What delete-user's brake held. */
  readonly held: readonly HeldMessage[];
}

export const createLocalScimHandler = (options: LocalScimHandlerOptions): LocalScimHandler => {
  const ledgerStore = new InMemoryLedgerStore();
  const held: HeldMessage[] = [];
  const handler = createScimHandler({
    platform: new PlatformCaller(options.platform, new InMemoryApiKeySource(options.apiKey)),
    ledgerStore: options.wrapLedger?.(ledgerStore) ?? ledgerStore,
    listProfiles: inMemoryProfileLister(ledgerStore),
    brake: {
      gate: new MassDeleteBrake('delete-user', new InMemoryBrakeStore(), {
        limit: DELETE_BRAKE_DEFAULTS.limit,
        windowMs: DELETE_BRAKE_DEFAULTS.windowMinutes * 60_000,
      }),
      held: {
        hold: async (message: HeldMessage) => {
          held.push(message);
        },
      },
    },
    tokens: new InMemoryApiKeySource(options.token),
    defaults: { userTemplateName: LOCAL_USER_TEMPLATE, createInCloudConnect: false },
    maxResults: SCIM_DEFAULTS.maxResults,
    campaignRegion: options.platform.campaignRegion,
    logger: options.logger,
    metrics: options.metrics,
  });
  return { handler, held };
};
