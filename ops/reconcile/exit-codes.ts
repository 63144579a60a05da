/**
 * The exit codes of `reconcile plan` and `reconcile apply`, in Terraform's spirit
 * (`-detailed-exitcode`) so that a scheduled job can branch on them: every error or refusal is 1,
 * a wrong command line included (2 is taken), and an apply that sent what it could but held the
 * deletes for a person is 3, never 0. docs/operations.md#reconcile lists them.
 */
export const RECONCILE_EXIT = {
  /** plan: no changes; apply: every repair sent. */
  done: 0,
  /** Refused, failed, or a wrong command line. */
  error: 1,
  /** plan: changes to apply. */
  changes: 2,
  /** apply: the rest sent, the deletes held for a person (the last line says how to release them). */
  deletesHeld: 3,
} as const;
