import type * as z from 'zod/mini';
import type { ActionName } from '../actions';
import { addOrUpdateCampaignRecordMessage } from './add-or-update-campaign-record';
import { addUserMessage } from './add-user';
import { changeCampaignRecordStatusMessage } from './change-campaign-record-status';
import { deleteCampaignRecordMessage } from './delete-campaign-record';
import { deleteUserMessage } from './delete-user';
import { queryUserExistenceMessage } from './query-user-existence';
import { searchCampaignRecordsMessage } from './search-campaign-records';
import { transferCampaignRecordMessage } from './transfer-campaign-record';

export type { AddOrUpdateCampaignRecordMessage } from './add-or-update-campaign-record';
export type { AddUserMessage } from './add-user';
export type {
  ChangeCampaignRecordStatusMessage,
  RecordState,
} from './change-campaign-record-status';
export { RECORD_STATES } from './change-campaign-record-status';
export type { DataItem } from './common';
export type { DeleteCampaignRecordMessage } from './delete-campaign-record';
export type { DeleteUserMessage } from './delete-user';
export type { QueryUserExistenceMessage } from './query-user-existence';
export type { SearchCampaignRecordsMessage } from './search-campaign-records';
export { SEARCH_CONDITIONS, SYSTEM_SEARCH_KEYS } from './search-campaign-records';
export type { TransferCampaignRecordMessage } from './transfer-campaign-record';

/** The public contract: one schema per action, for an SQS body or an EventBridge `detail`. */
export const MESSAGE_SCHEMAS = {
  'add-or-update-campaign-record': addOrUpdateCampaignRecordMessage,
  'search-campaign-records': searchCampaignRecordsMessage,
  'change-campaign-record-status': changeCampaignRecordStatusMessage,
  'transfer-campaign-record': transferCampaignRecordMessage,
  'delete-campaign-record': deleteCampaignRecordMessage,
  'add-user': addUserMessage,
  'query-user-existence': queryUserExistenceMessage,
  'delete-user': deleteUserMessage,
} as const satisfies Record<ActionName, z.ZodMiniType>;

export type MessageOf<A extends ActionName> = z.infer<(typeof MESSAGE_SCHEMAS)[A]>;

export type ParseResult<A extends ActionName> =
  | { readonly success: true; readonly message: MessageOf<A> }
  | { readonly success: false; readonly error: string };

/** Path of an issue as a producer reads it: `previewRecordData[2].value`. */
const formatPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    const name = String(segment);
    return text === '' ? name : `${text}.${name}`;
  }, '');

/**
 * Formats zod issues as one line naming every bad field. Values are never echoed: they may
 * be personal data and this text ends up in logs and dead-letter attributes.
 */
export const formatIssues = (issues: readonly z.core.$ZodIssue[]): string =>
  issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        const where = formatPath(issue.path);
        const keys = issue.keys.map((k) => `"${k}"`).join(', ');
        return `${where === '' ? '' : `${where}: `}unknown field(s) ${keys}`;
      }
      const where = formatPath(issue.path);
      let text = issue.message;
      // `input` is only present when parsed with `reportInput`; without it a wrong type would
      // read as a missing field. The input itself is never printed.
      if (issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined) {
        text = 'is required';
      }
      return `${where === '' ? '(message)' : where}: ${text}`;
    })
    .join('; ');

/** Parses an already JSON-decoded message against its action's schema and the spec rules. */
export const parseMessage = <A extends ActionName>(action: A, input: unknown): ParseResult<A> => {
  const schema = MESSAGE_SCHEMAS[action] as unknown as z.ZodMiniType<MessageOf<A>>;
  // reportInput lets formatIssues tell a missing field from a wrong type; it prints no input.
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return { success: true, message: result.data };
  return { success: false, error: formatIssues(result.error.issues) };
};
