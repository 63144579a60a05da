import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { LedgerDocError } from './ledger-doc';

/**
 * How an entity's ledger document is stored: its JSON, deflated, as a binary attribute. The
 * JSON of an entity with a few events is 1–5 KB and deflates ~3×, and DynamoDB bills writes per
 * started KB of the larger of the item before and after, so both the claim and the commit of
 * most entities cost one write unit instead of two to five (docs/decisions.md). Deflating and
 * inflating take ~40 µs per message.
 */
export const docAttribute = (doc: object): AttributeValue => ({
  B: deflateRawSync(JSON.stringify(doc)),
});

/**
 * The document of a ledger item, or undefined when it has none. Items written before the
 * documents were deflated hold the JSON as a string; an older version of the functions (a
 * rollback) reads a binary one as absent, and writes its string again.
 */
export const docOf = (item: Readonly<Record<string, AttributeValue>> | undefined): unknown => {
  const doc = item?.doc;
  try {
    if (doc?.B !== undefined) return JSON.parse(inflateRawSync(doc.B).toString('utf8'));
    if (doc?.S !== undefined) return JSON.parse(doc.S);
  } catch (error) {
    // A damaged item is the item's fault, not a passing one: no redelivery can read it.
    throw new LedgerDocError(`item.doc: not a ledger document (${(error as Error).name})`);
  }
  return undefined;
};
