/**
 * A user event as today's code names it, given one as versions 2 and 3 of the ledger item wrote
 * it: an add was a `join`, a delete a `leave`. Written out here, apart from the code under test.
 */
export const inTodaysWords = <E extends { readonly op: { readonly kind: string } }>(event: E) => {
  const { op } = event;
  if (op.kind === 'join' && 'user' in op) return { ...event, op: { kind: 'add', user: op.user } };
  if (op.kind === 'leave') return { ...event, op: { kind: 'delete' } };
  throw new Error(`not an op of version 3: ${JSON.stringify(op)}`);
};
