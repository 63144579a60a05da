import type { RecordOp } from '../model';
import type { RecordOperation } from '../operation';
import { remove } from './delete';
import { status } from './status';
import { transfer } from './transfer';
import { upsert } from './upsert';

/** Every record operation, by the op kind its action's message becomes: a new op is one row here. */
const OPERATIONS: { readonly [K in RecordOp['kind']]: RecordOperation<K> } = {
  upsert,
  status,
  transfer,
  delete: remove,
};

/**
 * The operation an op, or the write step made for it, names. Typed for any op: TypeScript cannot
 * tie a key to its own entry, so a caller passes the op or step it looked the operation up by.
 */
export const operationOf = (kind: RecordOp['kind']): RecordOperation<RecordOp['kind']> =>
  OPERATIONS[kind] as RecordOperation<RecordOp['kind']>;
