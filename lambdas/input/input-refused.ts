import { SyncError } from '../core/errors';

/**
 * An input file that cannot be read as a whole (a bad CSV header, a JSON document that does not
 * parse). A single bad line is not this: it is reported on its line, and the rest is read.
 */
export class InputRefused extends SyncError<'INPUT_REFUSED'> {
  override readonly name = 'InputRefused';
  readonly code = 'INPUT_REFUSED';
  readonly category = 'usage';
}
