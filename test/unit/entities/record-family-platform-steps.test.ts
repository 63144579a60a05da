/**
 * The record family's read step, on the answers a search can give: the time of an agent's last
 * attempt is what a state is weighed against, so a record with attempts and no readable time
 * fails the read with a reason that names the field, rather than leaving the work unweighed.
 */
import { describe, expect, it } from 'vitest';
import type { PlatformCaller } from '../../../lambdas/core/platform/platform-caller';
import type { CampaignRecord } from '../../../lambdas/core/platform/platform-responses';
import { UNKNOWN_FAMILY } from '../../../lambdas/entities/record-family/known';
import { runRecordStep } from '../../../lambdas/entities/record-family/platform-steps';

const record = (workAttempts: number, lastAttemptTime: string | null): CampaignRecord => ({
  previewRecordID: 'p-1',
  clientId: 'C-1',
  preferredAgent: null,
  skillQueue: 'Sales',
  createdTime: '2026-11-24 08:00:00.000',
  lastUpdatedTime: '2026-11-24 08:20:00.000',
  nextEarliestWorkTime: null,
  workedState: workAttempts > 0 ? 'COMPLETED' : 'NOTWORKED',
  workAttempts,
  lastAttemptAgent: workAttempts > 0 ? 'agent.a' : null,
  lastAttemptTime,
  previewRecordData: [{ key: 'Name', value: 'Ada' }],
});

/** A platform whose every search answers with `found` (the answer, not the code under test). */
const answering = (found: CampaignRecord) =>
  ({
    send: async () => ({
      category: 'success',
      code: 'SUCCESS',
      message: 'found',
      attempts: 1,
      body: { previewRecordClientData: [found] },
    }),
  }) as unknown as PlatformCaller;

describe('reading a record', () => {
  it.each([
    [
      'worked, with its time',
      record(1, '2026-11-24 08:20:00.000'),
      'done',
      Date.UTC(2026, 10, 24, 8, 20),
    ],
    ['never worked', record(0, null), 'done', undefined],
    ['worked, its time unreadable', record(2, 'yesterday'), 'failed', undefined],
    ['worked, no time at all', record(1, null), 'failed', undefined],
  ] as const)('%s', async (_name, found, status, workedAt) => {
    // Act
    const answer = await runRecordStep(
      { kind: 'read', campaign: 'Leads' },
      {
        id: { region: 'eu-central-1', clientId: 'C-1' },
        events: [],
        known: UNKNOWN_FAMILY,
        platform: answering(found),
        call: {},
      },
    );

    // Assess
    expect(answer.status).toBe(status);
    if (status === 'done') {
      expect(answer.finding.kind).toBe('found');
      if (answer.finding.kind === 'found') expect(answer.finding.observed.workedAt).toBe(workedAt);
    } else
      expect(answer.outcome).toMatchObject({
        category: 'retryable',
        code: 'MALFORMED_RESPONSE',
        message: expect.stringContaining('lastAttemptTime'),
      });
  });
});
