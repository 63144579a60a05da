/**
 * The one contract every ledger store follows, run against the in-memory store (local run) and
 * the DynamoDB store on moto (real SDK calls, real condition expressions).
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDbLedgerStore } from '../../../lambdas/core/ledger/dynamodb-ledger-store';
import { InMemoryLedgerStore } from '../../../lambdas/core/ledger/in-memory-ledger-store';
import { LedgerDocError } from '../../../lambdas/core/ledger/ledger-doc';
import { LeaseLostError, type LedgerStore } from '../../../lambdas/core/ledger/ledger-store';
import { createLedgerTable, ledgerTableStores, motoLedgerClient } from '../../support/ledger-table';

const stores = ledgerTableStores<LedgerStore>(
  () => new InMemoryLedgerStore(),
  (access) => new DynamoDbLedgerStore(access),
);

/** The store does not look into an item: any JSON document comes back as written. */
const doc = (present: boolean) => ({ schema: 2, known: { present }, events: [{ key: 'e1' }] });
const lease = (token: string, until: number, eventKey = 'e1') => ({ token, until, eventKey });

describe.each(stores)('ledger store contract: %s', (_name, makeStore) => {
  it('claims an entity it has never seen, and commits a document that a later claim reads', async () => {
    // Prepare
    const store = await makeStore();
    // Act
    const first = await store.claim('user#ana', lease('t1', 2000), 1000);
    await store.commit('user#ana', 't1', doc(true));
    const second = await store.claim('user#ana', lease('t2', 3000), 1500);
    // Assess
    expect(first).toEqual({ kind: 'claimed', doc: undefined });
    expect(second).toEqual({ kind: 'claimed', doc: doc(true) });
    expect(await store.read('user#ana')).toEqual(doc(true));
  });

  it('answers busy, with the lease end, while another holder has a live lease', async () => {
    const store = await makeStore();
    await store.claim('user#bo', lease('t1', 5000), 1000);
    const busy = await store.claim('user#bo', lease('t2', 6000), 4999);
    expect(busy).toEqual({ kind: 'busy', until: 5000 });
  });

  it('lets an expired lease be taken over and says which event held it', async () => {
    const store = await makeStore();
    await store.claim('user#cy', lease('t1', 2000, 'add-user@v1'), 1000);
    const taken = await store.claim('user#cy', lease('t2', 9000, 'add-user@v1'), 2001);
    expect(taken).toEqual({ kind: 'claimed', doc: undefined, takenOverFrom: 'add-user@v1' });
  });

  it('refuses a commit from a holder whose lease was taken over, and keeps the new holder', async () => {
    const store = await makeStore();
    await store.claim('user#di', lease('t1', 2000), 1000);
    await store.claim('user#di', lease('t2', 9000), 2001);
    await expect(store.commit('user#di', 't1', doc(true))).rejects.toBeInstanceOf(LeaseLostError);
    await store.commit('user#di', 't2', doc(false));
    expect(await store.read('user#di')).toEqual(doc(false));
  });

  it('release drops the lease without writing, and ignores a lease already lost', async () => {
    const store = await makeStore();
    await store.claim('user#ed', lease('t1', 5000), 1000);
    await store.commit('user#ed', 't1', doc(true));
    await store.claim('user#ed', lease('t2', 5000), 1000);
    await store.release('user#ed', 't2');
    await store.release('user#ed', 'not-the-holder');
    const again = await store.claim('user#ed', lease('t3', 5000), 1000);
    expect(again).toEqual({ kind: 'claimed', doc: doc(true) });
  });

  it('a commit drops the lease: the next claim needs no waiting', async () => {
    const store = await makeStore();
    await store.claim('record#x', lease('t1', 5000), 1000);
    await store.commit('record#x', 't1', doc(false), 1_900_000_000);
    expect((await store.claim('record#x', lease('t2', 5000), 1001)).kind).toBe('claimed');
  });

  it('claims again for the holder whose claim landed (a retried attempt), not as a takeover', async () => {
    // Prepare
    const store = await makeStore();
    await store.claim('record#retry', lease('t', 5000), 1000);

    // Act
    const again = await store.claim('record#retry', lease('t', 5000), 1000);

    // Assess
    expect(again).toEqual({ kind: 'claimed', doc: undefined });
  });

  it('of two concurrent claims on one entity exactly one wins', async () => {
    const store = await makeStore();
    const results = await Promise.all(
      ['a', 'b', 'c', 'd'].map((t) => store.claim('record#race', lease(t, 5000), 1000)),
    );
    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
  });

  it('keeps an alias that names an entity by another id, and answers none for an unknown one', async () => {
    // Prepare
    const store = await makeStore();
    // Act
    await store.writeAlias('record-id#1', '{"clientId":"C-1"}', 1_900_000_000);
    // Assess
    expect(await store.readAlias('record-id#1')).toBe('{"clientId":"C-1"}');
    expect(await store.readAlias('record-id#2')).toBeUndefined();
  });
});

describe('the DynamoDB ledger store on moto', () => {
  const setup = async () => {
    const client = motoLedgerClient();
    const tableName = await createLedgerTable(client);
    return { client, tableName, store: new DynamoDbLedgerStore({ tableName, client }) };
  };

  it('stores the document deflated, in a fraction of its JSON size', async () => {
    // Prepare: a document the size of an entity with a few events, repetitive as they are.
    const { client, tableName, store } = await setup();
    const events = Array.from({ length: 6 }, (_, i) => ({
      key: `add-or-update-campaign-record@00179550720000${i}.1.d5caf2fde61b74e3`,
      v: `00179550720000${i}.1.d5caf2fde61b74e3`,
      op: { kind: 'upsert', campaign: 'Leads', items: [{ key: 'Name', value: `Lead v${i}` }] },
      settled: true,
      outcome: 'SUCCESS',
    }));
    const written = { schema: 2, known: { present: true }, events };
    await store.claim('record#big', lease('t', 5000), 1000);

    // Act
    await store.commit('record#big', 't', written);

    // Assess
    const { Item } = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'record#big' } } }),
    );
    const stored = Item?.doc?.B;
    expect(stored).toBeInstanceOf(Uint8Array);
    expect(stored?.length).toBeLessThan(JSON.stringify(written).length / 2);
    expect(await store.read('record#big')).toEqual(written);
  });

  it('reads a document an earlier version stored as a JSON string, and claims over it', async () => {
    // Prepare
    const { client, tableName, store } = await setup();
    const earlier = doc(true);
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { pk: { S: 'record#old' }, doc: { S: JSON.stringify(earlier) } },
      }),
    );

    // Act
    const claim = await store.claim('record#old', lease('t', 5000), 1000);

    // Assess
    expect(claim).toMatchObject({ kind: 'claimed', doc: earlier });
    expect(await store.read('record#old')).toEqual(earlier);
  });

  it('takes a commit that landed but was retried as done, and still refuses one over a new lease', async () => {
    // Prepare: a commit whose attempt landed; then the same commit again (the SDK's retry).
    const { store } = await setup();
    await store.claim('record#sent', lease('t', 5000), 1000);
    await store.commit('record#sent', 't', doc(true));

    // Act
    const retried = store.commit('record#sent', 't', doc(true));

    // Assess
    await expect(retried).resolves.toBeUndefined();
    await store.claim('record#sent', lease('u', 9000), 1000);
    await expect(store.commit('record#sent', 't', doc(false))).rejects.toBeInstanceOf(
      LeaseLostError,
    );
  });

  it('gives the lease back when the claimed item cannot be read, naming it invalid', async () => {
    // Prepare: an item whose document is not deflated JSON.
    const { client, tableName, store } = await setup();
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { pk: { S: 'record#bad' }, doc: { B: new Uint8Array([1, 2, 3]) } },
      }),
    );

    // Act
    const attempt = store.claim('record#bad', lease('t', 5000), 1000);

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(LedgerDocError);
    const { Item } = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'record#bad' } } }),
    );
    expect(Item?.lease).toBeUndefined();
  });
});
