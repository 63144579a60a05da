/**
 * The same scenario for every write action: an EventBridge event that invokes the function
 * directly (a rule whose target is the function) and cannot be applied is dead-lettered with
 * its reason, the whole event as the body, not thrown for Lambda's async retries, after which
 * it would be gone: one the action cannot take at once, one that fails retryably once the
 * in-process retries are spent. Per-action files keep what is specific to each action.
 */
import { describe, expect, it } from 'vitest';
import type { ActionName } from '../../../lambdas/actions';
import type { FaultSettings } from '../../../local/simulator';
import { eventBridgeEvent, lambdaContext } from '../../../testkit';
import { expectDeadLettered } from './support/expectations';
import { type Harness, harnessPerFile } from './support/handler-harness';
import { lead, newHire, stateChange, transfer } from './support/messages';
import { seedRecord, seedUser } from './support/seed-data';

const harness = harnessPerFile();

const GRACE = 'grace@example.com';
const seedC1 = (h: Harness) => seedRecord(h, 'c-1');

interface DirectEventCase {
  readonly action: ActionName;
  /** What is wrong with the event, as the test name says it. */
  readonly flaw: string;
  readonly seed?: (harness: Harness) => void;
  /** Simulator faults. @default none */
  readonly faults?: FaultSettings;
  /** @default the action */
  readonly detailType?: ActionName;
  readonly detail: unknown;
  readonly errorCategory: 'permanent' | 'retryable';
  readonly errorCode: string | RegExp;
  /** What the reason must say. @default anything */
  readonly reason?: string;
}

/** Every request answered HTTP 5xx: the event fails retryably until its retries are spent. */
const spent = {
  faults: { serverErrorRate: 1 },
  errorCategory: 'retryable',
  errorCode: /^HTTP_5\d\d$/,
} as const;
const SPENT = 'whose retries are spent';

const DIRECT_EVENTS: readonly DirectEventCase[] = [
  { action: 'add-or-update-campaign-record', flaw: SPENT, detail: lead('c-1'), ...spent },
  {
    action: 'add-or-update-campaign-record',
    flaw: 'whose detail-type names another action',
    detailType: 'add-user',
    detail: lead('c-1'),
    errorCategory: 'permanent',
    errorCode: 'WRONG_DETAIL_TYPE',
    reason: 'detail-type "add-user" but this is the add-or-update-campaign-record handler',
  },
  {
    action: 'change-campaign-record-status',
    flaw: SPENT,
    seed: seedC1,
    detail: stateChange('c-1'),
    ...spent,
  },
  {
    action: 'transfer-campaign-record',
    flaw: SPENT,
    seed: seedC1,
    detail: transfer('c-1', { transferToCampaign: 'Closed' }),
    ...spent,
  },
  {
    action: 'delete-campaign-record',
    flaw: SPENT,
    seed: seedC1,
    detail: { campaignName: 'Leads', clientId: 'c-1' },
    ...spent,
  },
  {
    action: 'delete-campaign-record',
    flaw: 'the schema rejects',
    detail: { campaignName: '' },
    errorCategory: 'permanent',
    errorCode: 'INVALID_MESSAGE',
    reason: 'campaignName: must not be empty',
  },
  { action: 'add-user', flaw: SPENT, detail: newHire(GRACE), ...spent },
  {
    action: 'add-user',
    flaw: 'the schema rejects',
    detail: { loginUserId: GRACE },
    errorCategory: 'permanent',
    errorCode: 'INVALID_MESSAGE',
    reason: 'firstName: is required',
  },
  {
    action: 'delete-user',
    flaw: SPENT,
    seed: (h) => seedUser(h, GRACE),
    detail: { loginUserId: GRACE },
    ...spent,
  },
];

describe('a direct EventBridge event that cannot be applied', () => {
  it.each(DIRECT_EVENTS)(
    'goes to the $action DLQ with its reason: an event $flaw',
    async ({ action, seed, faults, detailType, detail, errorCategory, errorCode, reason }) => {
      // Prepare
      seed?.(harness);
      harness.sim.setFaults(faults ?? {});
      const handler = await harness.load(action);
      const event = eventBridgeEvent(detailType ?? action, detail);

      // Act
      const result = await handler(event, lambdaContext());

      // Assess
      expect(result).toBeUndefined();
      await expectDeadLettered(harness, {
        source: event,
        action,
        errorCategory,
        errorCode,
        errorMessage: reason,
      });
    },
  );
});
