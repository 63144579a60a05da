import type { MessageOf as MessageOfAction } from '../core/pipeline/action';
import { type ParseResult, parseWith } from '../messages/parse';
import { addOrUpdateCampaignRecord } from './add-or-update-campaign-record';
import { addUser } from './add-user';
import { changeCampaignRecordStatus } from './change-campaign-record-status';
import { deleteCampaignRecord } from './delete-campaign-record';
import { deleteUser } from './delete-user';
import { queryUserExistence } from './query-user-existence';
import { searchCampaignRecords } from './search-campaign-records';
import { transferCampaignRecord } from './transfer-campaign-record';

export {
  METRICS_NAMESPACE,
  RESULT_EVENT_SOURCE,
  resultDetailType,
  SERVICE_NAME,
} from '../core/observability/identity';
export type { ServiceName } from '../core/platform/platform-services';
export type { AddOrUpdateCampaignRecordMessage } from './add-or-update-campaign-record';
export type { AddUserMessage } from './add-user';
export type {
  ChangeCampaignRecordStatusMessage,
  WorkedState,
} from './change-campaign-record-status';
export { WORKED_STATES } from './change-campaign-record-status';
export type { DeleteCampaignRecordMessage } from './delete-campaign-record';
export type { DeleteUserMessage } from './delete-user';
export type { QueryUserExistenceMessage, UserExistenceResult } from './query-user-existence';
export type { SearchCampaignRecordsMessage, SearchResult } from './search-campaign-records';
export { SEARCH_CONDITIONS, SYSTEM_SEARCH_KEYS } from './search-campaign-records';
export type { TransferCampaignRecordMessage } from './transfer-campaign-record';

/**
 * The fixed list of actions, for the infrastructure, the tools and the tests. A Lambda bundle
 * imports only its own action's module (see `lambdas/handlers/`), never this list. The stack
 * builds each action's queue, DLQ, function (entry `lambdas/handlers/<name>.ts`), alarms, config
 * section and, for `BRAKED_ACTIONS`, its held queue from this list: a new action needs no edit
 * under `lib/` (test/infra/stack.test.ts runs every assertion per action of it).
 */
export const ACTIONS = [
  addOrUpdateCampaignRecord,
  searchCampaignRecords,
  changeCampaignRecordStatus,
  transferCampaignRecord,
  deleteCampaignRecord,
  addUser,
  queryUserExistence,
  deleteUser,
] as const;

export type ActionDefinition = (typeof ACTIONS)[number];
export type ActionName = ActionDefinition['name'];

export const ACTION_NAMES: readonly ActionName[] = ACTIONS.map((a) => a.name);

/** Reads publish their result on the result bus; writes only change the platform. */
export const READ_ACTIONS: readonly ActionName[] = ACTIONS.filter((a) => a.kind === 'read').map(
  (a) => a.name,
);

/**
 * Actions with a mass-delete brake and a held queue: those some of whose messages remove
 * something (a user, a record). Whether one message is destructive is its module's
 * `destructive(message)` (a status change only when it sets REMOVED); a reconciliation repair
 * that deletes is a removing category's (`reconcile/categories.ts`).
 */
export const BRAKED_ACTIONS: readonly ActionName[] = ACTIONS.filter(
  (a) => a.destructive !== undefined,
).map((a) => a.name);

/** A read: answers with a result, takes no lease, needs the result bus and not the ledger. */
export const isReadAction = (action: ActionName): boolean => READ_ACTIONS.includes(action);

export const isActionName = (value: string): value is ActionName =>
  (ACTION_NAMES as readonly string[]).includes(value);

/** The module of one action, by name. */
export type ActionNamed<A extends ActionName> = Extract<ActionDefinition, { readonly name: A }>;

export const actionDefinition = <A extends ActionName>(name: A): ActionNamed<A> => {
  const found = ACTIONS.find((a) => a.name === name);
  if (!found) throw new Error(`Unknown action: ${name}`);
  return found as ActionNamed<A>;
};

/** The message type of an action, by name. */
export type MessageOf<A extends ActionName> = MessageOfAction<ActionNamed<A>>;

/** The public contract: one schema per action, for an SQS body or an EventBridge `detail`. */
export const MESSAGE_SCHEMAS: { readonly [A in ActionName]: ActionNamed<A>['schema'] } =
  Object.fromEntries(ACTIONS.map((a) => [a.name, a.schema])) as never;

/** Parses an already JSON-decoded message against its action's schema and the spec rules. */
export const parseMessage = <A extends ActionName>(
  action: A,
  input: unknown,
): ParseResult<MessageOf<A>> =>
  parseWith(actionDefinition(action).schema as never, input) as ParseResult<MessageOf<A>>;
