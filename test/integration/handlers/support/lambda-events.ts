/**
 * What the handler reported as failed in an SQS batch: the shared kit's reader, re-exported for
 * the handler tests (the event and context builders they import from testkit/ directly).
 */
export { failedIds } from '../../../../testkit';
