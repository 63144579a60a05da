/**
 * The two platform reads reconciliation makes, through the same caller the functions use (X-sc
 * headers, key refresh, retries, and the deployment's breaker and pacing when wired): a
 * criteria or clientId search, and query-existence. A read that still fails after its tries
 * stops the plan: a plan from a partial view of the platform would be wrong.
 */
import {
  actionDefinition,
  type SearchCampaignRecordsMessage,
  type SearchResult,
  type UserExistenceResult,
} from '../actions';
import type { Outcome } from '../core/pipeline/outcome';
import type { PlatformCaller } from '../core/platform/platform-caller';
import type { CampaignRecord } from '../core/platform/platform-responses';
import { Refusal } from './refusal';

export interface PlatformReader {
  /** The records a search returns (none for an id lookup that matched nothing). */
  search(request: SearchCampaignRecordsMessage): Promise<readonly CampaignRecord[]>;
  userExists(loginUserId: string): Promise<UserExistenceResult>;
  /** Reads made so far (each search or query counts once, whatever its HTTP retries). */
  readonly calls: number;
}

/** The platform could not be read; the plan stops and names the call. */
export class PlatformReadError extends Refusal<'PLATFORM_READ'> {
  override readonly name = 'PlatformReadError';
  readonly code = 'PLATFORM_READ';
  // The platform or the way to it failed: the same plan may be read later.
  readonly category = 'retryable';
  override get reason(): string {
    return `the platform could not be read: ${this.message}`;
  }
}

export interface PlatformReaderOptions {
  /** Tries of one read whose outcome is retryable (a held-back or throttled call, a 5xx). @default 6 */
  readonly tries?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const platformReader = (
  caller: PlatformCaller,
  options: PlatformReaderOptions = {},
): PlatformReader => {
  const tries = options.tries ?? 6;
  const sleep = options.sleep ?? wait;
  const search = actionDefinition('search-campaign-records');
  const query = actionDefinition('query-user-existence');
  let calls = 0;
  const read = async (what: string, run: () => Promise<Outcome>): Promise<Outcome> => {
    calls += 1;
    let outcome = await run();
    for (let attempt = 1; outcome.category === 'retryable' && attempt < tries; attempt += 1) {
      await sleep(Math.max(outcome.retryAfterMs ?? 0, Math.min(10_000, 250 * 2 ** attempt)));
      outcome = await run();
    }
    if (outcome.category !== 'success') {
      throw new PlatformReadError(`${what} failed: ${outcome.code}: ${outcome.message}`);
    }
    return outcome;
  };
  return {
    get calls() {
      return calls;
    },
    async search(request) {
      const outcome = await read(`search in "${request.campaignName}"`, () =>
        search.execute(request, caller, {}),
      );
      return (outcome.result as SearchResult).records;
    },
    async userExists(loginUserId) {
      const outcome = await read('query-existence', () =>
        query.execute({ loginUserId }, caller, {}),
      );
      return outcome.result as UserExistenceResult;
    },
  };
};
