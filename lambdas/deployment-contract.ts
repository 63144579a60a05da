/**
 * What the infrastructure (lib/, bin/) may take from the runtime besides the action list
 * (`lambdas/actions`): the few runtime facts the stack must agree with. Each lives in its own
 * runtime module; this file only names them, so the stack never reaches into runtime internals
 * and a test (test/infra/runtime-imports.test.ts) holds it to that. Lambda bundles never import it.
 */

/** Key prefix of the breaker items in the shared table: the read actions' IAM is scoped to it. */
export { BREAKER_KEY_PREFIX } from './core/aws/dynamodb-breaker-store';
/** The API key's cache age is capped by the specs; the config may not ask for more. */
export { MAX_API_KEY_MAX_AGE_SECONDS } from './core/entry/ports';
/** The retry schedule: the queue's `maxReceiveCount` is derived from the handler's backoff. */
export {
  DEFAULT_RETRY_SCHEDULE,
  type RetrySchedule,
  receivesWithinWindow,
  SQS_MAX_RECEIVE_COUNT,
  SQS_MAX_VISIBILITY_SECONDS,
} from './core/entry/retry-schedule';
/** The one error base: the config's refusal is sorted by the same category as the runtime's. */
export { SyncError } from './core/errors';
/** The base-URL rule: the config builds `API_BASE_URL` with the very function the specs fix. */
export { platformBaseUrl } from './core/platform/base-url';
/** The regions the specs list (the config's `campaignRegion` and the base-URL prefix). */
export { PLATFORM_REGIONS, type PlatformRegion } from './core/platform/regions';
/** Reconciliation: the config's scopes are parsed by the runtime's own schema (one definition). */
export { DEFAULT_PLAN_MAX_AGE_HOURS } from './reconcile/apply-check';
/** The actions a repair is sent as, by scope kind: the stack gives the run their queues. */
export { repairActionsOf } from './reconcile/categories';
export { RUN_HISTORY_KEY_PREFIX } from './reconcile/dynamodb-run-history';
/** The outcomes of the reconcile run's plan step, which the state machine's Choice matches. */
export { PLAN_STEP_OUTCOME } from './reconcile/plan-step-outcome';
export { parseScopes, type ReconcileScope, SCOPE_DEFAULTS } from './reconcile/scope';
/** SCIM (issue 33): the function's variables, the least page maximum, and its items' key prefix. */
export { SCIM_ENVIRONMENT_VARIABLES, SCIM_MIN_MAX_RESULTS } from './scim/scim-env';
export { PROFILE_PREFIX as SCIM_PROFILE_KEY_PREFIX } from './scim/scim-profiles';
