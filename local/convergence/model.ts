/**
 * The convergence model, for `npm start -- --chaos` and the convergence suite: the platform must
 * end, per entity, as if each entity's events had been applied once each, in `occurredAt` order
 * (the ledger's version order, ties included), to a platform where the entity did not exist yet.
 *
 * `applyInOrder` builds that platform: a fresh simulator gets the events one by one, in order,
 * as plain platform calls with no retries and no ledger; an event the platform refuses in that
 * order (a status change before the record exists) simply has no effect. A rule that must look
 * before it sends can ask `simulator.state` (`listCampaigns`; in one campaign `listRecords`,
 * `findByClientId`, `findByPreviewRecordId`): a transfer there keeps the record's
 * `previewRecordID`, `clientId`, state and data (docs/decisions.md, "Effect of transfer on
 * state"; realtime-status-transfer-delete.test.ts). `project` reads the comparable state of every
 * entity out of a simulator, and `compareStates` says which differ.
 */
import {
  type ActionName,
  actionDefinition,
  isActionName,
  parseMessage,
} from '../../lambdas/actions';
import type { ApiKeySource } from '../../lambdas/core/entry/ports';
import { eventTime } from '../../lambdas/core/ledger/event-time';
import { versionOf } from '../../lambdas/core/ledger/event-version';
import { PlatformCaller } from '../../lambdas/core/platform/platform-caller';
import type { PlatformSettings } from '../../lambdas/core/platform/platform-settings';
import type { RunningSimulator } from '../simulator';

/** One producer event: the action it is for and its message (the EventBridge `detail`). */
export interface ModelEvent {
  readonly action: ActionName | string;
  readonly message: unknown;
}

/** Each valid event of a history that changes the platform, with its version and position. */
const versioned = <E extends ModelEvent>(events: readonly E[]) =>
  events.flatMap((event, index) => {
    if (!isActionName(event.action)) return [];
    const ordering = actionDefinition(event.action).ordering;
    if (ordering === undefined) return [];
    const parsed = parseMessage(event.action, event.message);
    if (!parsed.success) return [];
    const message = parsed.message;
    const time = eventTime({ occurredAt: (message as { occurredAt?: string }).occurredAt }, 0).ms;
    const version = versionOf(ordering.rank, ordering.op(message as never), time);
    // The entity the event belongs to: a version is unique within its entity only.
    const { clientId, loginUserId } = message as { clientId?: string; loginUserId?: string };
    const entity = loginUserId ?? clientId ?? '';
    return [{ event, index, action: event.action as ActionName, message, version, entity }];
  });

const byVersion = (a: { version: string }, b: { version: string }): number =>
  a.version < b.version ? -1 : a.version > b.version ? 1 : 0;

/** The events of a history that change the platform, valid ones only, in version order. */
export const inVersionOrder = (
  events: readonly ModelEvent[],
): { readonly action: ActionName; readonly message: unknown }[] => {
  // Exact duplicates (one entity, one version) are one event.
  const unique = new Map(
    versioned(events).map((event) => [`${event.entity}#${event.action}@${event.version}`, event]),
  );
  return [...unique.values()].sort(byVersion).map(({ action, message }) => ({ action, message }));
};

/**
 * The events themselves in version order (copies kept), for a delivery in order; events that
 * change nothing (reads, invalid messages) come last, as they were.
 */
export const versionOrder = <E extends ModelEvent>(events: readonly E[]): E[] => {
  const sorted = versioned(events).sort((a, b) => byVersion(a, b) || a.index - b.index);
  const placed = new Set(sorted.map(({ index }) => index));
  return [...sorted.map(({ event }) => event), ...events.filter((_, i) => !placed.has(i))];
};

/** One platform call per event, as the action's own request; the answer is not looked at. */
const send = async (platform: PlatformCaller, action: ActionName, message: unknown) => {
  const definition = actionDefinition(action);
  if (definition.kind === 'write') await platform.send(definition, message);
};

/** Applies the events once each, in version order, to `simulator` (fresh, fault-free). */
export const applyInOrder = async (
  events: readonly ModelEvent[],
  simulator: RunningSimulator,
  settings: Omit<PlatformSettings, 'baseUrl'>,
  apiKey: string,
): Promise<void> => {
  const key: ApiKeySource = {
    getKey: async () => apiKey,
    refreshKey: async () => apiKey,
  };
  const platform = new PlatformCaller({ ...settings, baseUrl: simulator.baseUrl }, key, {
    maxAttempts: 1,
  });
  for (const event of inVersionOrder(events)) {
    await send(platform, event.action, event.message);
  }
};

/** What the model compares of a record: no ids, times of work or the clientId data item. */
interface ProjectedRecord {
  readonly campaign: string;
  readonly data: readonly (readonly [string, string])[];
  readonly preferredAgent: string | null;
  readonly skillQueue: string;
  readonly workedState: string;
  readonly nextEarliestWorkTime: number | null;
  readonly timeZone: string;
}

/**
 * The state of every record (by clientId, wherever it is) and user a history names. The data
 * item the platform stores the clientId under on add is left out, and so are display orders:
 * whether the newest data reached the platform as an add or as an update depends on delivery
 * order, an update cannot carry that item, and an item sent without a display order is numbered
 * by its position, which that item shifts (docs/decisions.md).
 */
export const project = (
  simulator: RunningSimulator,
  events: readonly ModelEvent[],
): Map<string, string> => {
  const clientIds = new Set<string>();
  const logins = new Set<string>();
  for (const { message } of events) {
    if (typeof message !== 'object' || message === null) continue;
    const { clientId, loginUserId } = message as { clientId?: unknown; loginUserId?: unknown };
    if (typeof clientId === 'string') clientIds.add(clientId);
    if (typeof loginUserId === 'string') logins.add(loginUserId);
  }
  const { state } = simulator;
  const states = new Map<string, string>();
  for (const clientId of [...clientIds].sort()) {
    const records: ProjectedRecord[] = state
      .listCampaigns()
      .flatMap((campaign) => state.listRecords(campaign))
      .filter((record) => record.clientId === clientId)
      .map((record) => ({
        campaign: record.campaignName,
        data: record.previewRecordData
          .filter((item) => !(item.key === 'Id' && item.value === clientId))
          .map((item) => [item.key, item.value] as const),
        preferredAgent: record.preferredAgent || null,
        skillQueue: record.skillQueue,
        workedState: record.workedState,
        nextEarliestWorkTime: record.nextEarliestWorkTimeMillis,
        timeZone: record.timeZone,
      }))
      .sort((a, b) => a.campaign.localeCompare(b.campaign));
    states.set(`record ${clientId}`, records.length === 0 ? 'absent' : JSON.stringify(records));
  }
  for (const login of [...logins].sort()) {
    states.set(`user ${login}`, state.findUser(login) === undefined ? 'absent' : 'exists');
  }
  return states;
};

export interface EntityVerdict {
  readonly entity: string;
  readonly converged: boolean;
  readonly expected: string;
  readonly actual: string;
}

/** Per entity: does the platform hold what the model says? */
export const compareStates = (
  expected: ReadonlyMap<string, string>,
  actual: ReadonlyMap<string, string>,
): EntityVerdict[] =>
  [...new Set([...expected.keys(), ...actual.keys()])].sort().map((entity) => {
    const want = expected.get(entity) ?? 'absent';
    const got = actual.get(entity) ?? 'absent';
    return { entity, converged: want === got, expected: want, actual: got };
  });
