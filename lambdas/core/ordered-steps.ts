import type { ActionName } from '../actions';
import type { MessageOf } from '../messages';
import {
  confirmExistingUser,
  EXECUTORS,
  type ExecutionOptions,
  mayHaveBeenApplied,
  type PlatformClients,
  platformTimeMillis,
} from './action-executors';
import type { FieldValue, OrderedEvent } from './ledger/entity';
import type { ApplyDecision, StepResult } from './ledger/entity-ledger';
import { type EventKind, eventVersion, payloadHash } from './ledger/event-version';
import { recordLocation, userLocation } from './ledger/locations';
import type { Outcome } from './outcome';
import type { CampaignRecord } from './realtime-client';
import type { PlatformRegion } from './regions';

/**
 * What each write action means for its entity's order: which entity, which kind of event, which
 * fields it sets; and how it sends only what the ledger found fresh. The ledger decides; these
 * steps talk to the platform and say what the platform holds afterwards.
 */

type OrderedAction = Exclude<ActionName, 'search-campaign-records' | 'query-user-existence'>;

export interface Ordered {
  /** Where the entity is kept in the ledger. */
  readonly location: string;
  readonly event: OrderedEvent;
}

interface OrderedSteps<A extends OrderedAction> {
  readonly kind: EventKind;
  /** The entity's place; undefined when the message cannot be ordered (previewRecordId only). */
  readonly location: (message: MessageOf<A>, campaignRegion: string) => string | undefined;
  readonly destination?: (message: MessageOf<A>, campaignRegion: string) => string;
  readonly destinationAddress?: (message: MessageOf<A>) => Record<string, string>;
  /** The fields the event sets, as the ledger keeps them (hashes for record data). */
  readonly sets: (message: MessageOf<A>) => Record<string, FieldValue>;
  readonly apply: (
    message: MessageOf<A>,
    decision: ApplyDecision,
    clients: PlatformClients,
    call: ExecutionOptions,
  ) => Promise<StepResult>;
}

const success = (code: string, message: string, attempts = 0): Outcome => ({
  category: 'success',
  code,
  message,
  attempts,
});

/** What a write left on the platform, from its outcome alone. */
const appliedBy = (outcome: Outcome): StepResult['applied'] =>
  outcome.category === 'success'
    ? { kind: 'applied' }
    : mayHaveBeenApplied(outcome)
      ? { kind: 'uncertain' }
      : { kind: 'unchanged' };

const result = (outcome: Outcome, applied = appliedBy(outcome)): StepResult => ({
  outcome,
  applied,
});

/**
 * Watches a call's own retries: when a try that failed may still have been applied (a lost
 * answer, a 5xx), a later "not found" or "already exists" in the same call may be its doing.
 */
const watchingRetries = (call: ExecutionOptions) => {
  let doubt = false;
  return {
    call: {
      ...call,
      beforeRetry: async (failed: Outcome) => {
        if (mayHaveBeenApplied(failed)) doubt = true;
        return call.beforeRetry?.(failed);
      },
    } satisfies ExecutionOptions,
    ours: (decision: ApplyDecision) => decision.ourEarlierAttempt || doubt,
  };
};

const notYetThere = (outcome: Outcome, what: string): StepResult =>
  result(
    {
      ...outcome,
      category: 'retryable',
      code: 'RECORD_NOT_YET_THERE',
      message: `${what}: the record is not in the campaign (yet); its add may still be on its way in another queue, so this is retried until the retry window is spent`,
    },
    { kind: 'unchanged' },
  );

// ---- campaign records ------------------------------------------------------------------

type RecordFields = {
  state?: string;
  agent?: string | null;
  skillQueue?: string;
  nextWork?: number;
  timeZone?: string;
};

const recordKey = (
  message: { readonly campaignName: string; readonly region?: string; readonly clientId?: string },
  campaignRegion: string,
): string | undefined =>
  message.clientId === undefined
    ? undefined
    : recordLocation(message.region ?? campaignRegion, message.campaignName, message.clientId);

/** Optional routing fields of a change-status or transfer, as ledger fields. */
const routingSets = (message: {
  readonly skillQueue?: string;
  readonly preferredAgent?: string;
  readonly nextEarliestWorkTimeUTC?: number;
  readonly timeZone?: string;
}): Record<string, FieldValue> => ({
  ...(message.skillQueue === undefined ? {} : { skillQueue: message.skillQueue }),
  ...(message.preferredAgent === undefined ? {} : { agent: message.preferredAgent || null }),
  ...(message.nextEarliestWorkTimeUTC === undefined
    ? {}
    : { nextWork: message.nextEarliestWorkTimeUTC }),
  ...(message.timeZone === undefined ? {} : { timeZone: message.timeZone }),
});

/** The message without the optional fields the ledger found stale. */
const withoutStale = <M extends object>(message: M, decision: ApplyDecision): M => {
  const copy: Record<string, unknown> = { ...(message as Record<string, unknown>) };
  const drop: Record<string, string> = {
    agent: 'preferredAgent',
    nextWork: 'nextEarliestWorkTimeUTC',
    skillQueue: 'skillQueue',
    timeZone: 'timeZone',
  };
  for (const field of decision.stale) {
    const property = drop[field];
    if (property !== undefined) delete copy[property];
  }
  return copy as unknown as M;
};

type DataItems = MessageOf<'add-or-update-campaign-record'>['previewRecordData'];

type Located = {
  readonly campaignName: string;
  readonly region?: PlatformRegion | undefined;
  readonly clientId: string;
};

/** Looks a record up by clientId: found, absent, or the lookup's own failure. */
const findRecord = async (
  where: Located,
  clients: PlatformClients,
  call: ExecutionOptions,
): Promise<
  | { readonly kind: 'found'; readonly record: CampaignRecord }
  | { readonly kind: 'absent' }
  | { readonly kind: 'failed'; readonly outcome: Outcome }
> => {
  const lookup = await clients.realtime.searchPreviewCampaign(
    { campaignName: where.campaignName, region: where.region, clientId: where.clientId },
    call,
  );
  if (lookup.code === 'NORECORDFOUND') return { kind: 'absent' };
  if (lookup.category !== 'success') return { kind: 'failed', outcome: lookup };
  const record = lookup.body?.previewRecordClientData[0];
  return record === undefined ? { kind: 'absent' } : { kind: 'found', record };
};

/**
 * Sets routing fields (and the state) of a record with one change-status. The request needs a
 * state; without one to set, the record's current state (and, for WORKED, its next work time)
 * is read from the platform first.
 */
const setFields = async (
  where: Located,
  fields: RecordFields,
  clients: PlatformClients,
  call: ExecutionOptions,
): Promise<Outcome> => {
  let state = fields.state;
  let nextWork = fields.nextWork;
  if (state === undefined || (state === 'WORKED' && nextWork === undefined)) {
    const found = await findRecord(where, clients, call);
    if (found.kind === 'failed') return found.outcome;
    if (found.kind === 'absent') {
      return notYetThere(
        { category: 'retryable', code: 'NORECORDFOUND', message: '', attempts: 0 },
        'changeCampaignRecordStatus',
      ).outcome;
    }
    state ??= found.record.workedState;
    nextWork ??= platformTimeMillis(found.record.nextEarliestWorkTime);
  }
  return clients.realtime.changeCampaignRecordStatus(
    {
      campaignName: where.campaignName,
      region: where.region,
      clientId: where.clientId,
      previewRecordStateEnum:
        state as MessageOf<'change-campaign-record-status'>['previewRecordStateEnum'],
      ...(fields.skillQueue === undefined ? {} : { skillQueue: fields.skillQueue }),
      ...(fields.agent === undefined ? {} : { preferredAgent: fields.agent ?? '' }),
      ...(nextWork === undefined ? {} : { nextEarliestWorkTimeUTC: nextWork }),
      ...(fields.timeZone === undefined ? {} : { timeZone: fields.timeZone }),
    },
    call,
  );
};

const asRecordFields = (values: Readonly<Record<string, FieldValue>>): RecordFields =>
  values as RecordFields;

const pickFields = (
  values: Readonly<Record<string, FieldValue>>,
  names: readonly string[],
): Record<string, FieldValue> =>
  Object.fromEntries(Object.entries(values).filter(([name]) => names.includes(name)));

const itemValue = (
  message: MessageOf<'add-or-update-campaign-record'>,
  key: string,
): string | undefined => message.previewRecordData.find((item) => item.key === key)?.value;

/** Fields an add-or-update sets besides its data, from the message. */
const upsertScalars = (message: MessageOf<'add-or-update-campaign-record'>) => ({
  ...(message.preferredAgent === undefined ? {} : { agent: message.preferredAgent || null }),
  ...(message.nextEarliestWorkTimeUTC === undefined
    ? {}
    : { nextWork: message.nextEarliestWorkTimeUTC }),
  ...(itemValue(message, 'SkillQueue') === undefined
    ? {}
    : { skillQueue: itemValue(message, 'SkillQueue') as string }),
  ...(itemValue(message, 'ItemTimeZone') === undefined
    ? {}
    : { timeZone: itemValue(message, 'ItemTimeZone') as string }),
});

const addOrUpdate: OrderedSteps<'add-or-update-campaign-record'> = {
  kind: 'create',
  location: recordKey,
  sets: (message) => ({
    data: payloadHash({ items: message.previewRecordData }),
    ...upsertScalars(message),
  }),
  apply: async (message, decision, clients, call) => {
    const where = message;
    const scalars = upsertScalars(message);
    if (decision.entity === 'present' && decision.stale.includes('data')) {
      // Newer data is on the platform; only some of this event's other fields are fresh.
      const fresh = { ...pickFields(scalars, decision.fresh), ...decision.restore };
      const outcome = await setFields(where, asRecordFields(fresh), clients, call);
      return result(outcome);
    }
    const sent = await EXECUTORS['add-or-update-campaign-record'](
      withoutStale(message, decision),
      clients,
      { ...call, redelivered: decision.ourEarlierAttempt },
    );
    if (sent.outcome.category !== 'success') return result(sent.outcome);
    // The data items SkillQueue / ItemTimeZone set fields that newer events may own, and fields
    // waiting in limbo come back with this create: set them after the data.
    const impliedStale = decision.stale.filter((f) => f === 'skillQueue' || f === 'timeZone');
    const after = {
      ...pickFields(decision.current, impliedStale),
      ...(decision.restore ?? {}),
    };
    if (Object.keys(after).length === 0) return result(sent.outcome);
    const created = decision.entity !== 'present';
    const fields = asRecordFields(after);
    const outcome = await setFields(
      where,
      created && fields.state === undefined ? { state: 'NOTWORKED', ...fields } : fields,
      clients,
      call,
    );
    // The data is in place either way; a failed follow-up makes the whole event retry.
    return outcome.category === 'success'
      ? result(sent.outcome)
      : result(outcome, { kind: 'uncertain' });
  },
};

const changeStatus: OrderedSteps<'change-campaign-record-status'> = {
  kind: 'change',
  location: recordKey,
  sets: (message) => ({ state: message.previewRecordStateEnum, ...routingSets(message) }),
  apply: async (message, decision, clients, call) => {
    if (message.clientId === undefined) throw new Error('ordered without a clientId');
    const where = { ...message, clientId: message.clientId };
    // With nothing stale, the message goes as it is; otherwise only its fresh fields, with the
    // state and (for WORKED) the next work time the request needs taken from the record.
    const fresh = pickFields(changeStatus.sets(message), decision.fresh);
    const outcome =
      decision.stale.length === 0
        ? await clients.realtime.changeCampaignRecordStatus(message, call)
        : await setFields(where, asRecordFields(fresh), clients, call);
    if (outcome.code === 'NORECORDFOUND') return notYetThere(outcome, 'changeCampaignRecordStatus');
    return result(outcome);
  },
};

const transfer: OrderedSteps<'transfer-campaign-record'> = {
  kind: 'move',
  location: recordKey,
  destination: (message, campaignRegion) =>
    recordLocation(
      message.region ?? campaignRegion,
      message.transferToCampaign,
      message.clientId ?? '',
    ),
  destinationAddress: (message) => ({ campaignName: message.transferToCampaign }),
  sets: (message) => routingSets(message),
  apply: async (message, decision, clients, call) => {
    if (decision.historic === true && message.clientId !== undefined) {
      // A later move took the record on already: set what this one sets, where it is now.
      const routing = pickFields(routingSets(message), decision.fresh);
      const set = await setFields(
        { campaignName: message.campaignName, region: message.region, clientId: message.clientId },
        asRecordFields(routing),
        clients,
        call,
      );
      return result(set);
    }
    if (decision.deletedAtDestination === true && message.clientId !== undefined) {
      // Moved and then deleted there: the record ends absent, so the source copy goes.
      const removed = await clients.realtime.deleteRecordFromCampaign(
        { campaignName: message.campaignName, region: message.region, clientId: message.clientId },
        call,
      );
      if (removed.category !== 'success' && removed.code !== 'NORECORDFOUND') {
        return result(removed);
      }
      return result(
        success(
          'DELETED_AT_DESTINATION',
          `the record was deleted in "${message.transferToCampaign}" after this move: removed from "${message.campaignName}"`,
        ),
        { kind: 'absent' },
      );
    }
    if (decision.mergeInto !== undefined && message.clientId !== undefined) {
      return mergeMove(
        { ...message, clientId: message.clientId },
        decision.mergeInto.fields,
        // Only a record known to be in the source can have been removed by our earlier attempt.
        decision.ourEarlierAttempt && decision.entity === 'present',
        clients,
        call,
      );
    }
    const watched = watchingRetries(call);
    const outcome = await clients.realtime.transferCampaignRecord(
      withoutStale(message, decision),
      watched.call,
    );
    if (outcome.code !== 'NORECORDFOUND' || message.clientId === undefined) return result(outcome);
    // Not in the source campaign: moved already by our own earlier attempt, not there yet, or
    // the destination holds another record with this clientId.
    const found = await findRecord(
      {
        campaignName: message.transferToCampaign,
        region: message.region,
        clientId: message.clientId,
      },
      clients,
      call,
    );
    if (found.kind === 'failed') return result(found.outcome, { kind: 'unchanged' });
    if (found.kind === 'absent') return notYetThere(outcome, 'transferCampaignRecord');
    // Our earlier try can only have moved a record that was in the source: one the ledger knows
    // there, or one it knows nothing of (created outside) when no add of ours made one there.
    const couldHaveMovedIt =
      decision.entity === 'present' ||
      (decision.entity === 'unknown' && decision.destinationOurs !== true);
    if (decision.alreadyMovedThere === true || (watched.ours(decision) && couldHaveMovedIt)) {
      return result(
        success(
          'ALREADY_TRANSFERRED',
          `an earlier attempt of this transfer moved the record to "${message.transferToCampaign}"`,
          outcome.attempts,
        ),
        { kind: 'applied' },
      );
    }
    if (decision.destinationOurs === true) {
      // Likely the record a later add of ours created there: once that add and this record's
      // own add have settled, the move merges into it.
      return notYetThere(outcome, 'transferCampaignRecord');
    }
    return result(
      {
        ...outcome,
        category: 'permanent',
        code: 'TRANSFER_TARGET_OCCUPIED',
        message: `the record is not in "${message.campaignName}", and "${message.transferToCampaign}" already holds a record with this clientId that this integration did not move there: check both campaigns before redriving`,
      },
      { kind: 'unchanged' },
    );
  },
};

/**
 * The destination already holds the moved record (events sent there after the move arrived
 * first): the copy still in the source campaign goes, and what the source knew that is newer
 * than the destination's fields is set there.
 */
const mergeMove = async (
  message: MessageOf<'transfer-campaign-record'> & { readonly clientId: string },
  fields: Readonly<Record<string, FieldValue>>,
  removedByUs: boolean,
  clients: PlatformClients,
  call: ExecutionOptions,
): Promise<StepResult> => {
  // Only a record that is in the source (or arrives there) was moved; one never added there
  // means the move could not happen (its add may still be on its way: wait for it).
  // An earlier attempt of ours may have removed it already and failed after that.
  const source = await findRecord(message, clients, call);
  if (source.kind === 'failed') return result(source.outcome, { kind: 'unchanged' });
  if (source.kind === 'absent' && !removedByUs) {
    return notYetThere(
      { category: 'retryable', code: 'NORECORDFOUND', message: '', attempts: 0 },
      'transferCampaignRecord',
    );
  }
  if (source.kind === 'found') {
    const removed = await clients.realtime.deleteRecordFromCampaign(
      { campaignName: message.campaignName, region: message.region, clientId: message.clientId },
      call,
    );
    if (removed.category !== 'success' && removed.code !== 'NORECORDFOUND') return result(removed);
  }
  const routing = pickFields(fields, ['state', 'agent', 'skillQueue', 'nextWork', 'timeZone']);
  if (Object.keys(routing).length > 0) {
    const set = await setFields(
      {
        campaignName: message.transferToCampaign,
        region: message.region,
        clientId: message.clientId,
      },
      asRecordFields(routing),
      clients,
      call,
    );
    if (set.category !== 'success') return result(set, { kind: 'uncertain' });
  }
  return result(
    success(
      'MERGED_INTO_DESTINATION',
      `"${message.transferToCampaign}" already held this record (later events reached it first): the copy in "${message.campaignName}" was removed`,
    ),
    { kind: 'applied' },
  );
};

const deleteRecord: OrderedSteps<'delete-campaign-record'> = {
  kind: 'delete',
  location: recordKey,
  sets: () => ({}),
  apply: async (message, decision, clients, call) => {
    if (decision.recreate !== undefined && message.clientId !== undefined) {
      return recreate(
        { ...message, clientId: message.clientId },
        decision.recreate.keep,
        decision.pending,
        clients,
        call,
      );
    }
    const sent = await EXECUTORS['delete-campaign-record'](message, clients, call);
    return deleted(sent.outcome, decision);
  },
};

/** A delete's outcome: gone is gone, whoever removed it; only our own attempt says ALREADY_DELETED. */
const deleted = (outcome: Outcome, decision: ApplyDecision): StepResult => {
  if (outcome.code === 'ALREADY_DELETED' && !decision.ourEarlierAttempt) {
    return result(
      { ...outcome, code: 'ALREADY_ABSENT', message: `${outcome.message}; nothing to delete` },
      { kind: 'absent' },
    );
  }
  return outcome.category === 'success' ? result(outcome, { kind: 'absent' }) : result(outcome);
};

/**
 * A delete older than a create already applied as an update: the record is deleted and added
 * afresh with the data it holds now (the later create's) and the fields later events set.
 */
const recreate = async (
  where: Located,
  keep: Readonly<Record<string, FieldValue>>,
  pending: Readonly<Record<string, unknown>> | undefined,
  clients: PlatformClients,
  call: ExecutionOptions,
): Promise<StepResult> => {
  const found = await findRecord(where, clients, call);
  if (found.kind === 'failed') return result(found.outcome, { kind: 'unchanged' });
  // An earlier attempt that deleted the record but could not add it again left its data.
  let data = pending?.previewRecordData as DataItems | undefined;
  if (found.kind === 'found') {
    // The item the platform stores the clientId under goes back in as clientId.
    data = found.record.previewRecordData
      .filter((item) => !(item.key === 'Id' && item.value === where.clientId))
      .map(({ key, value, displayOrder }) => ({
        key,
        value,
        ...(displayOrder === undefined ? {} : { displayOrder }),
      }));
    const removed = await clients.realtime.deleteRecordFromCampaign(where, call);
    if (removed.category !== 'success' && removed.code !== 'NORECORDFOUND') {
      // The delete may have gone through unanswered: keep the data for the retry to add.
      return result(
        removed,
        mayHaveBeenApplied(removed)
          ? { kind: 'uncertain', pending: { previewRecordData: data } }
          : { kind: 'unchanged' },
      );
    }
  }
  if (data === undefined) {
    return result(
      success('ALREADY_ABSENT', 'the record is not in the campaign; nothing to re-create'),
      { kind: 'absent' },
    );
  }
  const fields = asRecordFields(keep);
  const added = await clients.realtime.addOrUpdateCampaignRecord(
    {
      campaignName: where.campaignName,
      region: where.region,
      clientId: where.clientId,
      previewRecordData: data,
      ...(fields.agent === undefined ? {} : { preferredAgent: fields.agent ?? '' }),
      ...(fields.nextWork === undefined ? {} : { nextEarliestWorkTimeUTC: fields.nextWork }),
    },
    call,
  );
  if (added.category !== 'success') {
    // Deleted but not added again: the data waits in the ledger for the retry to add it.
    return result(
      { ...added, category: 'retryable', code: 'RECREATE_INCOMPLETE' },
      { kind: 'uncertain', pending: { previewRecordData: data } },
    );
  }
  const routing = pickFields(keep, ['state', 'skillQueue', 'timeZone']);
  if (Object.keys(routing).length > 0) {
    const set = await setFields(
      where,
      { state: 'NOTWORKED', ...asRecordFields(routing) },
      clients,
      call,
    );
    if (set.category !== 'success') {
      return result(set, { kind: 'uncertain', pending: { previewRecordData: data } });
    }
  }
  return result(
    success('RECREATED', 'deleted and added afresh: a newer add had been applied as an update', 0),
    { kind: 'applied' },
  );
};

// ---- users -----------------------------------------------------------------------------

const addUser: OrderedSteps<'add-user'> = {
  kind: 'create',
  location: (message) => userLocation(message.loginUserId),
  sets: () => ({}),
  apply: async (message, decision, clients, call) => {
    const watched = watchingRetries(call);
    const added = await clients.provisioning.addUser(message, watched.call);
    const { outcome } =
      added.code === 'ALREADY_EXISTS'
        ? await confirmExistingUser(message, added, clients, call)
        : { outcome: added };
    if (outcome.code !== 'ALREADY_EXISTS' || outcome.category !== 'success') {
      return result(
        outcome,
        outcome.category === 'success' ? { kind: 'applied', ours: true } : appliedBy(outcome),
      );
    }
    // In place already: honest only if we brought it about.
    if (watched.ours(decision) || (decision.entity === 'present' && decision.ours)) {
      return result(outcome, { kind: 'applied', ours: true });
    }
    return result(
      {
        ...outcome,
        category: 'permanent',
        code: 'USER_EXISTS_NOT_OURS',
        message:
          'a user with this loginUserId already exists on the platform and this integration did not create it: check that it is the same person, then delete this dead letter (or the other user and redrive)',
      },
      { kind: 'unchanged' },
    );
  },
};

const deleteUser: OrderedSteps<'delete-user'> = {
  kind: 'delete',
  location: (message) => userLocation(message.loginUserId),
  sets: () => ({}),
  apply: async (message, decision, clients, call) => {
    const sent = await EXECUTORS['delete-user'](message, clients, call);
    return deleted(sent.outcome, decision);
  },
};

/** The record moved since the event happened: the step addresses it where it is now. */
const readdressed = <A extends OrderedAction>(steps: OrderedSteps<A>): OrderedSteps<A> => ({
  ...steps,
  apply: (message, decision, clients, call) =>
    steps.apply(
      decision.address === undefined ? message : { ...message, ...decision.address },
      decision,
      clients,
      call,
    ),
});

export const ORDERED_STEPS: { readonly [A in OrderedAction]: OrderedSteps<A> } = {
  'add-or-update-campaign-record': readdressed(addOrUpdate),
  'change-campaign-record-status': readdressed(changeStatus),
  'transfer-campaign-record': readdressed(transfer),
  'delete-campaign-record': readdressed(deleteRecord),
  'add-user': addUser,
  'delete-user': deleteUser,
};

export const isOrderedAction = (action: ActionName): action is OrderedAction =>
  action in ORDERED_STEPS;

/** The ledger's view of a message: its entity and event; undefined when it cannot be ordered. */
export const orderedEventOf = <A extends OrderedAction>(
  action: A,
  message: MessageOf<A>,
  occurredAtMs: number,
  campaignRegion: string,
): Ordered | undefined => {
  const steps = ORDERED_STEPS[action] as unknown as OrderedSteps<A>;
  const location = steps.location(message, campaignRegion);
  if (location === undefined) return undefined;
  const hash = payloadHash(message as Record<string, unknown>);
  const version = eventVersion(occurredAtMs, steps.kind, hash);
  return {
    location,
    event: {
      key: `${action}@${version}`,
      attemptKey: `${action}#${hash.slice(0, 32)}`,
      version,
      kind: steps.kind,
      sets: steps.sets(message),
      ...(steps.destination === undefined
        ? {}
        : { destination: steps.destination(message, campaignRegion) }),
      ...(steps.destinationAddress === undefined
        ? {}
        : { destinationAddress: steps.destinationAddress(message) }),
    },
  };
};
