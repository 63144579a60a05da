import * as z from 'zod/mini';
import type { ReadAction } from '../core/pipeline/action';
import { alreadyApplied, type Outcome } from '../core/pipeline/outcome';
import { pickDefined } from '../core/pipeline/pick-defined';
import type { CampaignRecord } from '../core/platform/platform-responses';
import {
  crossFieldCheck,
  MAX_KEY_LENGTH,
  MAX_VALUE_LENGTH,
  nonEmpty,
  recordAddress,
} from '../messages/common';

export const SEARCH_CONDITIONS = [
  'EQUALS',
  'NOTEQUALS',
  'GREATERTHAN',
  'LESSTHAN',
  'CONTAINS',
  'BEGINSWITH',
] as const;

export const SYSTEM_SEARCH_KEYS = [
  'sys_skill_queue',
  'sys_worked_attempts',
  'sys_item_time_zone',
  'sys_worked_state',
  'sys_preferred_agent',
  'sys_next_earliest_worktime_long',
] as const;

/** The spec's default; we also use it as the upper bound (larger results would not fit one result event). */
export const MAX_SEARCH_RECORDS = 1000;

/** Our cap; the spec shows none. */
export const MAX_SEARCH_CRITERIA = 50;

const SYSTEM_KEY_PREFIX = 'sys_';

export const searchCriterion = z.strictObject({
  key: nonEmpty(MAX_KEY_LENGTH).check(
    z.describe('A custom data key or one of the sys_* keys.'),
    // The platform answers an unknown sys_* key with FAILED, which would only be retried.
    z.refine(
      (key) =>
        !key.startsWith(SYSTEM_KEY_PREFIX) ||
        (SYSTEM_SEARCH_KEYS as readonly string[]).includes(key),
      { message: `a sys_* key must be one of ${SYSTEM_SEARCH_KEYS.join(', ')}` },
    ),
  ),
  value: z
    .string()
    .check(z.maxLength(MAX_VALUE_LENGTH, `must be at most ${MAX_VALUE_LENGTH} characters`)),
  condition: z.enum(SEARCH_CONDITIONS, {
    error: `must be one of ${SEARCH_CONDITIONS.join(', ')}`,
  }),
});

export const searchCampaignRecordsMessage = z
  .strictObject({
    ...recordAddress(),
    maxRecords: z.optional(
      z
        .int('must be an integer')
        .check(
          z.minimum(1, 'must be at least 1'),
          z.maximum(MAX_SEARCH_RECORDS, `must be at most ${MAX_SEARCH_RECORDS}`),
        ),
    ),
    previewRecordData: z.optional(
      z
        .array(searchCriterion)
        .check(
          z.maxLength(MAX_SEARCH_CRITERIA, `must hold at most ${MAX_SEARCH_CRITERIA} criteria`),
        ),
    ),
  })
  .check(
    crossFieldCheck(
      z.object({
        previewRecordId: z.optional(z.unknown()),
        clientId: z.optional(z.unknown()),
        previewRecordData: z.optional(z.unknown()),
      }),
      (message, ctx) => {
        const byId = message.previewRecordId !== undefined || message.clientId !== undefined;
        const criteria = message.previewRecordData;
        if (
          !byId &&
          (criteria === undefined || (Array.isArray(criteria) && criteria.length === 0))
        ) {
          ctx.addIssue({
            code: 'custom',
            path: ['previewRecordData'],
            message:
              'a search needs previewRecordId, clientId, or at least one criterion {key, value, condition}',
          });
        }
      },
    ),
  );

export type SearchCampaignRecordsMessage = z.infer<typeof searchCampaignRecordsMessage>;

/** What a search answers: published on the result bus, returned to a direct caller. */
export interface SearchResult {
  /** SUCCESS, or NORECORDFOUND for an id lookup that matched nothing. */
  readonly status: 'SUCCESS' | 'NORECORDFOUND';
  readonly records: readonly CampaignRecord[];
}

/** The records of a search answer (none for NORECORDFOUND or a failure). */
const records = (outcome: Outcome): readonly CampaignRecord[] =>
  (outcome.body as { previewRecordClientData?: CampaignRecord[] } | undefined)
    ?.previewRecordClientData ?? [];

const searchResult = (outcome: Outcome): SearchResult => ({
  status: outcome.code === 'NORECORDFOUND' ? 'NORECORDFOUND' : 'SUCCESS',
  records: records(outcome),
});

export const searchCampaignRecords: ReadAction<
  'search-campaign-records',
  SearchCampaignRecordsMessage
> & { readonly records: typeof records } = {
  name: 'search-campaign-records',
  service: 'realtime',
  endpoint: 'searchPreviewCampaign',
  kind: 'read',
  schema: searchCampaignRecordsMessage,
  requestFields: (message) => ({
    ...pickDefined(message, ['previewRecordId', 'clientId', 'maxRecords']),
    ...(message.previewRecordData === undefined
      ? {}
      : {
          previewRecordData: message.previewRecordData.map((criterion) =>
            pickDefined(criterion, ['key', 'value', 'condition']),
          ),
        }),
  }),
  execute: async (message, platform, call) => {
    const outcome = await platform.send(searchCampaignRecords, message, call);
    // An id lookup that matches nothing is an answer, not a failure, for a read.
    if (outcome.code === 'NORECORDFOUND') {
      const answered = alreadyApplied(outcome, 'NORECORDFOUND', 'no record matches the id');
      return { ...answered, result: searchResult(outcome) };
    }
    return outcome.category === 'success' ? { ...outcome, result: searchResult(outcome) } : outcome;
  },
  records,
};
