/**
 * A platform reader that remembers its answers and stops before the function's time is up, so
 * a plan too long for one invocation is made in several: the run keeps the answers between
 * invocations, and the next one asks the platform only what is still unknown. A user scope of
 * 100 000 candidates at the reconcile share of the provisioning ceiling takes hours; each
 * invocation gets as far as its time allows (docs/decisions.md, "Reconciliation").
 */
import type { UserExistenceResult } from '../actions';
import { SyncError } from '../core/errors';
import type { CampaignRecord } from '../core/platform/platform-responses';
import type { PlatformReader } from './platform-reader';

/** The invocation's time is nearly up: keep the answers and go on in the next one. */
export class ReadBudgetSpent extends SyncError<'READ_BUDGET_SPENT'> {
  override readonly name = 'ReadBudgetSpent';
  readonly code = 'READ_BUDGET_SPENT';
  readonly category = 'retryable';
}

export interface Answers {
  readonly users: Record<string, UserExistenceResult>;
  readonly searches: Record<string, readonly CampaignRecord[]>;
}

export const emptyAnswers = (): Answers => ({ users: {}, searches: {} });

/** Reads still on their way: their answers are kept too before the invocation hands over. */
export interface ResumableReader extends PlatformReader {
  settled(): Promise<void>;
}

export const resumableReader = (
  inner: PlatformReader,
  answers: Answers,
  hasTime: () => boolean,
): ResumableReader => {
  const inFlight = new Set<Promise<unknown>>();
  let spent = false;
  const check = () => {
    spent ||= !hasTime();
    if (spent) throw new ReadBudgetSpent('the invocation is out of time for platform reads');
  };
  const track = <T>(read: Promise<T>): Promise<T> => {
    inFlight.add(read);
    return read.finally(() => inFlight.delete(read));
  };
  /** The answer kept under `key`, else the platform's (asked while there is time), then kept. */
  const remembered = async <T>(
    kept: Record<string, T>,
    key: string,
    ask: () => Promise<T>,
  ): Promise<T> => {
    const known = kept[key];
    if (known !== undefined) return known;
    check();
    const found = await track(ask());
    kept[key] = found;
    return found;
  };
  return {
    settled: async () => {
      await Promise.allSettled([...inFlight]);
    },
    get calls() {
      return inner.calls;
    },
    search: (request) =>
      remembered(answers.searches, JSON.stringify(request), () => inner.search(request)),
    userExists: (loginUserId) =>
      remembered(answers.users, loginUserId, () => inner.userExists(loginUserId)),
  };
};
