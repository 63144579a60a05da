/**
 * CloudFormation output keys of the stack. The stack writes them and the operator commands
 * (`npm run ops`) read them, so both take the names from here. No CDK import: the operator
 * commands load this without pulling in aws-cdk-lib.
 */
import type { ActionName } from '../lambdas/actions';

/** Output holding the name of the bus producers put action events on. */
export const EVENT_BUS_OUTPUT_KEY = 'EventBusName';

/** Output holding the name of the entity ledger table (when any write action is enabled). */
export const LEDGER_TABLE_OUTPUT_KEY = 'EntityLedgerTableName';

/** Outputs of reconciliation (when the config has `reconcile.scopes`). */
export const RECONCILE_BUCKET_OUTPUT_KEY = 'ReconcileBucketName';
export const RECONCILE_STATE_MACHINE_OUTPUT_KEY = 'ReconcileStateMachineArn';

/** Output holding the SCIM 2.0 base URL the identity provider is given (with `scim.enabled`). */
export const SCIM_URL_OUTPUT_KEY = 'ScimBaseUrl';

export interface ActionOutputKeys {
  /** URL of the action's source queue. */
  readonly queueUrl: string;
  /** URL of the action's dead-letter queue. */
  readonly deadLetterQueueUrl: string;
  /** Name of the action's log group. */
  readonly logGroupName: string;
  /** URL of the queue the action's mass-delete brake holds messages in (destructive actions). */
  readonly heldQueueUrl: string;
}

/**
 * `add-user` → `AddUser`: output keys allow only letters and digits. The stack names each
 * action's construct the same way, so its logical ids and output keys share the prefix.
 */
export const pascalCase = (action: ActionName): string =>
  action
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/** Output keys of one (enabled) action, e.g. `AddUserQueueUrl`. */
export const actionOutputKeys = (action: ActionName): ActionOutputKeys => {
  const prefix = pascalCase(action);
  return {
    queueUrl: `${prefix}QueueUrl`,
    deadLetterQueueUrl: `${prefix}DeadLetterQueueUrl`,
    logGroupName: `${prefix}LogGroupName`,
    heldQueueUrl: `${prefix}HeldQueueUrl`,
  };
};
