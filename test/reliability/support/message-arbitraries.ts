/**
 * Arbitraries of VALID messages for every action: the zod walker derives each field from the
 * action's schema; the refinements and cross-field rules, which a walker cannot see, are added
 * here from the spec (data keys with special meaning, unique keys, the reserved clientId key,
 * a record locator, a time with WORKED, a search with something to search by).
 */
import fc from 'fast-check';
import type { ActionName } from '../../../lambdas/actions';
import {
  MESSAGE_SCHEMAS,
  type MessageOf,
  SEARCH_CONDITIONS,
  SYSTEM_SEARCH_KEYS,
} from '../../../lambdas/actions';
import { arbitraryFromSchema, integer, text } from './zod-arbitrary';

export type Message = Record<string, unknown>;

/** Latest instant the contract accepts: 9999-12-31T23:59:59.999Z. */
const MAX_EPOCH_MILLIS = 253_402_300_799_999;

/** IANA zone names as the runtime knows them (the spec asks for tz database names). */
export const timeZone: fc.Arbitrary<string> = fc.constantFrom(
  ...Intl.supportedValuesOf('timeZone'),
);

/** Clean E.164: `+`, a non-zero country digit, at most 15 digits in all. */
export const e164: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: 1, max: 9 }),
    fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 14 }),
  )
  .map(([first, rest]) => `+${first}${rest}`);

const httpUrl: fc.Arbitrary<string> = fc.webUrl({
  validSchemes: ['http', 'https'],
  withQueryParameters: true,
  withFragments: true,
});

const isSpecialKey = (key: string): boolean =>
  key.toLowerCase().includes('phone') ||
  key.endsWith('_link') ||
  key.endsWith('_button') ||
  key === 'ItemTimeZone';

const displayOrder = integer(1, 2_147_483_647);

/** One data item of add-or-update, covering the spec's specially named keys. */
const dataItem: fc.Arbitrary<Message> = fc
  .tuple(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc.tuple(
          text(1, 128).filter((key) => !isSpecialKey(key)),
          text(0, 4000),
        ),
      },
      { weight: 2, arbitrary: fc.tuple(fc.constant('Name'), text(0, 4000)) },
      {
        weight: 2,
        arbitrary: fc.tuple(
          fc.constantFrom('Phone', 'mobilePhone', 'HOME_PHONE', 'phone2', 'WorkPhoneNumber'),
          e164,
        ),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(
          fc.tuple(text(1, 100), fc.constantFrom('_link', '_button')).map(([a, b]) => `${a}${b}`),
          httpUrl,
        ),
      },
      { weight: 1, arbitrary: fc.tuple(fc.constant('ItemTimeZone'), timeZone) },
      {
        weight: 1,
        arbitrary: fc.tuple(
          fc.constantFrom('Highlight', 'Hidden'),
          fc.oneof(
            fc.constant('ALL'),
            fc.array(text(1, 20), { maxLength: 4 }).map((k) => k.join('|')),
          ),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(
          fc.constant('SkillQueue'),
          text(1, 64).filter((name) => name.trim() !== ''),
        ),
      },
    ),
    fc.option(displayOrder, { nil: undefined }),
  )
  .map(([[key, value], order]) =>
    order === undefined ? { key, value } : { key, value, displayOrder: order },
  );

/** A custom data key (not one the platform reserves) or one of the spec's sys_* keys. */
const criterionKey = fc.oneof(
  text(1, 128).filter((key) => !key.startsWith('sys_')),
  fc.constantFrom(...SYSTEM_SEARCH_KEYS),
);

const epochMillis = integer(0, MAX_EPOCH_MILLIS);
const id = text(1, 256);

/** The walker's message plus the cross-field rule of each action. */
const builders: { readonly [A in ActionName]: () => fc.Arbitrary<Message> } = {
  'add-or-update-campaign-record': () =>
    fc
      .tuple(
        walk('add-or-update-campaign-record', {
          // Keys are unique: the contract refuses duplicates (which one wins is not shown).
          previewRecordData: fc.uniqueArray(dataItem, {
            selector: (item) => item.key,
            minLength: 1,
            maxLength: 8,
          }),
        }),
        text(0, 4000),
      )
      .map(([message, fallbackValue]) => {
        // No data key may equal the clientIdFieldName in effect (INVALIDRECORDDATAKEY).
        const reserved =
          typeof message.clientIdFieldName === 'string' ? message.clientIdFieldName : 'Id';
        const items = (message.previewRecordData as Message[]).filter(
          (item) => item.key !== reserved,
        );
        if (items.length === 0)
          items.push({ key: reserved === 'Name' ? 'Label' : 'Name', value: fallbackValue });
        return { ...message, previewRecordData: items };
      }),

  'search-campaign-records': () =>
    fc
      .tuple(
        walk('search-campaign-records', { 'previewRecordData[].key': criterionKey }),
        fc.record(
          {
            key: criterionKey,
            value: text(0, 4000),
            condition: fc.constantFrom(...SEARCH_CONDITIONS),
          },
          { noNullPrototype: true },
        ),
      )
      .map(([message, criterion]) => {
        const byId = message.previewRecordId !== undefined || message.clientId !== undefined;
        const criteria = message.previewRecordData as Message[] | undefined;
        // Without an id a search needs at least one criterion.
        if (byId || (criteria !== undefined && criteria.length > 0)) return message;
        return { ...message, previewRecordData: [criterion] };
      }),

  'change-campaign-record-status': () =>
    fc
      .tuple(walk('change-campaign-record-status', { timeZone }), id, epochMillis)
      .map(([message, clientId, time]) => {
        const located = withLocator(message, clientId);
        // WORKED needs nextEarliestWorkTimeUTC.
        return located.previewRecordStateEnum === 'WORKED' &&
          located.nextEarliestWorkTimeUTC === undefined
          ? { ...located, nextEarliestWorkTimeUTC: time }
          : located;
      }),

  'transfer-campaign-record': () =>
    fc
      .tuple(walk('transfer-campaign-record', { timeZone }), id)
      .map(([message, clientId]) => withLocator(message, clientId))
      // A transfer must leave the campaign the record is in.
      .filter((message) => message.transferToCampaign !== message.campaignName),

  'delete-campaign-record': () =>
    fc
      .tuple(walk('delete-campaign-record'), id)
      .map(([message, clientId]) => withLocator(message, clientId)),

  'add-user': () => walk('add-user'),
  'query-user-existence': () => walk('query-user-existence'),
  'delete-user': () => walk('delete-user'),
};

/** Either id locates the record. */
const withLocator = (message: Message, clientId: string): Message =>
  message.previewRecordId === undefined && message.clientId === undefined
    ? { ...message, clientId }
    : message;

/** A campaign name: any text but `__proto__`, which the ledger cannot key by (refined). */
const campaign = text(1, 256).filter((name) => name !== '__proto__');

const walk = (
  action: ActionName,
  overrides: Readonly<Record<string, fc.Arbitrary<unknown>>> = {},
): fc.Arbitrary<Message> =>
  arbitraryFromSchema(MESSAGE_SCHEMAS[action], {
    overrides: { campaignName: campaign, transferToCampaign: campaign, ...overrides },
  }) as fc.Arbitrary<Message>;

/** Valid messages of `action`. */
export const validMessage = <A extends ActionName>(
  action: A,
): fc.Arbitrary<MessageOf<A> & Message> =>
  builders[action]() as fc.Arbitrary<MessageOf<A> & Message>;
