/**
 * The same scenario for every write action: an EventBridge event that invokes the function
 * directly (a rule whose target is the function) and cannot succeed within the in-process
 * retries is dead-lettered with its reason, not thrown for Lambda's async retries, after which
 * it would be gone. Per-action files keep what is specific to each action.
 */
import { describe, expect, it } from 'vitest';
import type { ActionName } from '../../../lambdas/actions';
import { eventBridgeEvent, lambdaContext } from '../../../testkit';
import { expectDeadLettered } from './support/expectations';
import { harnessPerFile } from './support/handler-harness';
import { seedRecord, seedUser } from './support/seed-data';

const harness = harnessPerFile();

const CASES: readonly {
  readonly action: ActionName;
  readonly message: Record<string, unknown>;
  readonly seed: () => void;
}[] = [
  {
    action: 'add-or-update-campaign-record',
    message: {
      campaignName: 'Leads',
      clientId: 'c-1',
      previewRecordData: [{ key: 'Name', value: 'Ada' }],
    },
    seed: () => undefined,
  },
  {
    action: 'change-campaign-record-status',
    message: { campaignName: 'Leads', clientId: 'c-1', previewRecordStateEnum: 'COMPLETED' },
    seed: () => seedRecord(harness, 'c-1'),
  },
  {
    action: 'transfer-campaign-record',
    message: { campaignName: 'Leads', clientId: 'c-1', transferToCampaign: 'Closed' },
    seed: () => seedRecord(harness, 'c-1'),
  },
  {
    action: 'delete-campaign-record',
    message: { campaignName: 'Leads', clientId: 'c-1' },
    seed: () => seedRecord(harness, 'c-1'),
  },
  {
    action: 'add-user',
    message: {
      loginUserId: 'grace@example.com',
      firstName: 'Grace',
      lastName: 'Hopper',
      userTemplateName: 'Agent',
    },
    seed: () => undefined,
  },
  {
    action: 'delete-user',
    message: { loginUserId: 'grace@example.com' },
    seed: () => seedUser(harness, 'grace@example.com'),
  },
];

describe('a direct EventBridge event whose retries are spent', () => {
  it.each(CASES)('goes to the $action DLQ with its reason', async ({ action, message, seed }) => {
    // Prepare
    seed();
    harness.sim.setFaults({ serverErrorRate: 1 });
    const handler = await harness.load(action);
    const event = eventBridgeEvent(action, message);

    // Act
    const result = await handler(event, lambdaContext());

    // Assess
    expect(result).toBeUndefined();
    await expectDeadLettered(harness, {
      source: event,
      action,
      errorCategory: 'retryable',
      errorCode: /^HTTP_5\d\d$/,
    });
  });
});
