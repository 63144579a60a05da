import { createReconcileFunction } from '../reconcile/run-wiring';

/** Lambda entry point of the reconcile run (the state machine's plan and applied steps). */
export const handler = createReconcileFunction();
