/**
 * Valid sample messages and small parse helpers shared by the message contract tests.
 * Each sample is built fresh so a test can change it without affecting another.
 */
import { expect, it } from 'vitest';
import type { ActionName } from '../../../lambdas/actions';
import { type MessageOf, parseMessage } from '../../../lambdas/actions';

export const REALTIME_ACTIONS = [
  'add-or-update-campaign-record',
  'search-campaign-records',
  'change-campaign-record-status',
  'transfer-campaign-record',
  'delete-campaign-record',
] as const satisfies readonly ActionName[];

export const PROVISIONING_ACTIONS = [
  'add-user',
  'query-user-existence',
  'delete-user',
] as const satisfies readonly ActionName[];

type Sample = Record<string, unknown>;

export const validMessage = (action: ActionName): Sample => {
  switch (action) {
    case 'add-or-update-campaign-record':
      return {
        campaignName: 'Spring-Leads',
        clientId: 'CRM-1001',
        previewRecordData: [
          { key: 'Name', value: 'Ada Example', displayOrder: 1 },
          { key: 'Note', value: 'Call back about the renewal', displayOrder: 2 },
        ],
      };
    case 'search-campaign-records':
      return {
        campaignName: 'Spring-Leads',
        previewRecordData: [{ key: 'sys_worked_state', value: 'NOTWORKED', condition: 'EQUALS' }],
      };
    case 'change-campaign-record-status':
      return {
        campaignName: 'Spring-Leads',
        clientId: 'CRM-1001',
        previewRecordStateEnum: 'COMPLETED',
      };
    case 'transfer-campaign-record':
      return {
        campaignName: 'Spring-Leads',
        clientId: 'CRM-1001',
        transferToCampaign: 'Renewals',
      };
    case 'delete-campaign-record':
      return { campaignName: 'Spring-Leads', clientId: 'CRM-1001' };
    case 'add-user':
      return {
        loginUserId: 'ada.example@corp.example',
        firstName: 'Ada',
        lastName: 'Example',
        userTemplateName: 'Agent',
      };
    case 'query-user-existence':
    case 'delete-user':
      return { loginUserId: 'ada.example@corp.example' };
  }
};

/** An add-or-update message whose second data item (index 1) is `item`. */
export const addOrUpdateWithItem = (item: Record<string, unknown>): Sample => ({
  ...validMessage('add-or-update-campaign-record'),
  previewRecordData: [{ key: 'Name', value: 'Ada Example' }, item],
});

/** A copy of `message` without `field`. */
export const without = (message: Sample, field: string): Sample =>
  Object.fromEntries(Object.entries(message).filter(([name]) => name !== field));

/** Parses and fails the test, with the producer-facing error, unless the message is accepted. */
export const accepted = <A extends ActionName>(action: A, input: unknown): MessageOf<A> => {
  const result = parseMessage(action, input);
  if (!result.success) {
    throw new Error(`expected ${action} to accept the message, got: ${result.error}`);
  }
  return result.message;
};

/** Parses and returns the producer-facing error; fails the test if the message is accepted. */
export const rejected = (action: ActionName, input: unknown): string => {
  const result = parseMessage(action, input);
  if (result.success) throw new Error(`expected ${action} to reject the message`);
  return result.error;
};

/**
 * A row of a refusal table: what the test says, the message, and the producer-facing error
 * (the whole text, or `expect.stringMatching(…)` where it quotes the schema library's words).
 */
export type Refusal = readonly [name: string, message: unknown, error: unknown];

/** A row of an acceptance table: what the test says and a message that parses unchanged. */
export type Acceptance = readonly [name: string, message: Sample];

/** One test per row: `action` refuses the message with exactly the row's error. */
export const itRefuses = (action: ActionName, rows: readonly Refusal[]): void => {
  it.each(rows)('%s', (_name, message, expected) => {
    // Act
    const error = rejected(action, message);

    // Assess
    expect(error).toEqual(expected);
  });
};

/** One test per row: `action` accepts the message and parses it to an equal message. */
export const itAccepts = (action: ActionName, rows: readonly Acceptance[]): void => {
  it.each(rows)('%s', (_name, message) => {
    // Act
    const parsed = accepted(action, message);

    // Assess
    expect(parsed).toEqual(message);
  });
};
