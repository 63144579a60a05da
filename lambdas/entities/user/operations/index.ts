import type { UserOp } from '../model';
import type { UserOperation } from '../operation';
import { add } from './add';
import { remove } from './delete';

/** Every user operation, by the op kind its action's message becomes: a new op is one row here. */
const OPERATIONS: { readonly [K in UserOp['kind']]: UserOperation<K> } = {
  add,
  delete: remove,
};

/**
 * The operation an op, or the write step made for it, names. Typed for any op: TypeScript cannot
 * tie a key to its own entry, so a caller passes the op or step it looked the operation up by.
 */
export const operationOf = (kind: UserOp['kind']): UserOperation<UserOp['kind']> =>
  OPERATIONS[kind] as UserOperation<UserOp['kind']>;
