import { formatOptionalPlatformTime, formatPlatformTime } from './time-format';

/** Record states of the realtime spec. */
export const WORKED_STATES = ['NOTWORKED', 'WORKED', 'COMPLETED', 'REMOVED'] as const;
export type WorkedState = (typeof WORKED_STATES)[number];

export const isWorkedState = (value: unknown): value is WorkedState =>
  typeof value === 'string' && (WORKED_STATES as readonly string[]).includes(value);

/** Campaign defaults (the spec does not show campaign fields, so these are ours). */
export const DEFAULT_SKILL_QUEUE = 'Default';
export const DEFAULT_TIME_ZONE = 'UTC';

export interface WorkCode {
  readonly key: string;
  readonly value: string;
}

/** A data item as stored and returned: `displayOrder` is always present on the way out. */
export interface StoredDataItem {
  readonly key: string;
  readonly value: string;
  readonly displayOrder: number;
}

/** A record exactly as search returns it in `previewRecordClientData`. */
export interface CampaignRecordResponse {
  readonly previewRecordID: string;
  readonly clientId: string;
  readonly preferredAgent: string | null;
  readonly skillQueue: string;
  readonly createdTime: string;
  readonly lastUpdatedTime: string;
  readonly nextEarliestWorkTime: string | null;
  readonly workedState: WorkedState;
  readonly workAttempts: number;
  readonly lastAttemptAgent: string | null;
  readonly lastAttemptTime: string | null;
  /** Only present when work codes were assigned ("present when an agent assigned work codes"). */
  readonly workCodes?: readonly WorkCode[];
  readonly previewRecordData: readonly StoredDataItem[];
}

/** What tests see: the response shape plus what the simulator keeps beside it. */
export interface RecordView extends CampaignRecordResponse {
  readonly campaignName: string;
  /** IANA zone set on the record (`ItemTimeZone` data key or `timeZone` of status change/transfer). */
  readonly timeZone: string;
  readonly nextEarliestWorkTimeMillis: number | null;
  /** How many write requests changed this record (add, update, status change, transfer, delete). */
  readonly appliedCount: number;
}

/** Mutable record; only the services and this module touch it. */
export interface StoredRecord {
  readonly previewRecordID: string;
  readonly clientId: string;
  campaignName: string;
  preferredAgent: string | null;
  skillQueue: string;
  timeZone: string;
  readonly createdTime: number;
  lastUpdatedTime: number;
  nextEarliestWorkTime: number | null;
  workedState: WorkedState;
  workAttempts: number;
  lastAttemptAgent: string | null;
  lastAttemptTime: number | null;
  workCodes: WorkCode[];
  data: StoredDataItem[];
  /** Key → value index for criteria search. */
  dataByKey: Map<string, string>;
}

export interface Campaign {
  readonly name: string;
  readonly defaultSkillQueue: string;
  readonly defaultTimeZone: string;
  readonly records: Map<string, StoredRecord>;
  /**
   * Records by clientId, oldest first. The spec expects a clientId to be unique in a campaign
   * but does not enforce it: an add-or-update whose previewRecordId matches nothing adds a record
   * even when the clientId is taken, and a clientId then locates the oldest of them.
   */
  readonly byClientId: Map<string, StoredRecord[]>;
}

/** The record a clientId locates: the oldest with it (see `Campaign.byClientId`). */
export const recordByClientId = (campaign: Campaign, clientId: string): StoredRecord | undefined =>
  campaign.byClientId.get(clientId)?.[0];

export interface CampaignDefaults {
  readonly defaultSkillQueue?: string;
  readonly defaultTimeZone?: string;
}

/** Seed input for `putRecord`: everything optional except campaign, clientId and data. */
export interface PutRecordInput {
  readonly campaignName: string;
  readonly clientId: string;
  readonly previewRecordID?: string;
  readonly previewRecordData?: readonly {
    readonly key: string;
    readonly value: string;
    readonly displayOrder?: number;
  }[];
  readonly preferredAgent?: string | null;
  readonly skillQueue?: string;
  readonly timeZone?: string;
  readonly createdTime?: number;
  readonly lastUpdatedTime?: number;
  readonly nextEarliestWorkTime?: number | null;
  readonly workedState?: WorkedState;
  readonly workAttempts?: number;
  readonly lastAttemptAgent?: string | null;
  readonly lastAttemptTime?: number | null;
  readonly workCodes?: readonly WorkCode[];
}

export interface RecordLocator {
  readonly previewRecordId?: string;
  readonly clientId?: string;
}

export type AppliedAction =
  | 'addOrUpdateCampaignRecord:add'
  | 'addOrUpdateCampaignRecord:update'
  | 'changeCampaignRecordStatus'
  | 'transferCampaignRecord'
  | 'deleteRecordFromCampaign'
  | 'add-user'
  | 'delete-user';

/** One write the simulator applied, in order (ids only, never data values). */
export interface AppliedOperation {
  readonly sequence: number;
  readonly action: AppliedAction;
  readonly at: number;
  readonly campaignName?: string;
  readonly previewRecordID?: string;
  readonly clientId?: string;
  readonly loginUserId?: string;
}

export interface StoredUser {
  readonly loginUserId: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly primaryEmailAddr: string | null;
  readonly secondaryEmailAddr: string | null;
  readonly userTemplateName: string;
  inCloudConnect: boolean;
  connectUserId: string | null;
  readonly createdTime: number;
}

export interface UserView extends Readonly<StoredUser> {
  /** How many add-user / delete-user requests were applied for this login id. */
  readonly appliedCount: number;
}

export interface AddUserInput {
  readonly loginUserId: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly userTemplateName: string;
  readonly primaryEmailAddr?: string | null;
  readonly secondaryEmailAddr?: string | null;
  /** Also present in the backing contact-center instance. @default false */
  readonly inCloudConnect?: boolean;
  /** Used when `inCloudConnect`; generated when omitted. */
  readonly connectUserId?: string;
}

export interface StateSnapshot {
  readonly campaigns: readonly {
    readonly name: string;
    readonly defaultSkillQueue: string;
    readonly defaultTimeZone: string;
    readonly records: readonly RecordView[];
  }[];
  readonly users: readonly UserView[];
  readonly history: readonly AppliedOperation[];
}

export interface SimulatorStateOptions {
  readonly now: () => number;
  /** When false, only campaigns created with `addCampaign` (or `campaigns`) exist. @default true */
  readonly autoCreateCampaigns?: boolean;
  readonly campaigns?: readonly string[];
}

/** Ascending by createdTime, then previewRecordID (the simulator's documented result order). */
export const compareRecords = (a: StoredRecord, b: StoredRecord): number =>
  a.createdTime - b.createdTime ||
  (a.previewRecordID < b.previewRecordID ? -1 : a.previewRecordID > b.previewRecordID ? 1 : 0);

/** Stored data: given displayOrder, or else the item's 1-based position. */
export const toStoredData = (
  items: readonly {
    readonly key: string;
    readonly value: string;
    readonly displayOrder?: number;
  }[],
): StoredDataItem[] =>
  items.map((item, index) => ({
    key: item.key,
    value: item.value,
    displayOrder: item.displayOrder ?? index + 1,
  }));

export const indexData = (items: readonly StoredDataItem[]): Map<string, string> =>
  new Map(items.map((item) => [item.key, item.value]));

export const toRecordResponse = (record: StoredRecord): CampaignRecordResponse => ({
  previewRecordID: record.previewRecordID,
  clientId: record.clientId,
  preferredAgent: record.preferredAgent,
  skillQueue: record.skillQueue,
  createdTime: formatPlatformTime(record.createdTime),
  lastUpdatedTime: formatPlatformTime(record.lastUpdatedTime),
  nextEarliestWorkTime: formatOptionalPlatformTime(record.nextEarliestWorkTime),
  workedState: record.workedState,
  workAttempts: record.workAttempts,
  lastAttemptAgent: record.lastAttemptAgent,
  lastAttemptTime: formatOptionalPlatformTime(record.lastAttemptTime),
  ...(record.workCodes.length > 0 ? { workCodes: record.workCodes.map((c) => ({ ...c })) } : {}),
  previewRecordData: record.data.map((item) => ({ ...item })),
});

/**
 * The in-memory platform: campaigns with their records, users, and a log of applied writes.
 * Lookups by previewRecordID and by clientId are O(1) per campaign (the benchmark pushes
 * ~10 000 add-or-update requests through it). Views handed out are copies.
 */
export class SimulatorState {
  private readonly campaignsByName = new Map<string, Campaign>();
  private readonly liveRecordIds = new Set<string>();
  private readonly recordAppliedCounts = new Map<string, number>();
  private readonly usersById = new Map<string, StoredUser>();
  private readonly userAppliedCounts = new Map<string, number>();
  private readonly log: AppliedOperation[] = [];
  private recordSequence = 0;
  private connectUserSequence = 0;
  private readonly now: () => number;
  private readonly initialCampaigns: readonly string[];
  readonly autoCreateCampaigns: boolean;

  constructor(options: SimulatorStateOptions) {
    this.now = options.now;
    this.initialCampaigns = options.campaigns ?? [];
    this.autoCreateCampaigns = options.autoCreateCampaigns ?? true;
    this.seedInitialCampaigns();
  }

  /** Clears campaigns, records, users and history; campaigns given at start exist again. */
  clear(): void {
    this.campaignsByName.clear();
    this.liveRecordIds.clear();
    this.recordAppliedCounts.clear();
    this.usersById.clear();
    this.userAppliedCounts.clear();
    this.log.length = 0;
    this.recordSequence = 0;
    this.connectUserSequence = 0;
    this.seedInitialCampaigns();
  }

  // ---- campaigns and records: test API -------------------------------------------------

  /** Creates a campaign (no-op when it exists) and returns its name. */
  addCampaign(name: string, defaults: CampaignDefaults = {}): string {
    this.ensureCampaign(name, defaults);
    return name;
  }

  /** Campaign names in creation order. */
  listCampaigns(): string[] {
    return [...this.campaignsByName.keys()];
  }

  hasCampaign(name: string): boolean {
    return this.campaignsByName.has(name);
  }

  /** Records of a campaign in result order (createdTime, then previewRecordID). */
  listRecords(campaignName: string): RecordView[] {
    const campaign = this.campaignsByName.get(campaignName);
    if (!campaign) return [];
    return [...campaign.records.values()].sort(compareRecords).map((r) => this.toView(r));
  }

  findRecord(campaignName: string, locator: RecordLocator): RecordView | undefined {
    const campaign = this.campaignsByName.get(campaignName);
    const found = campaign ? locate(campaign, locator) : undefined;
    return found ? this.toView(found) : undefined;
  }

  findByClientId(campaignName: string, clientId: string): RecordView | undefined {
    return this.findRecord(campaignName, { clientId });
  }

  findByPreviewRecordId(campaignName: string, previewRecordId: string): RecordView | undefined {
    return this.findRecord(campaignName, { previewRecordId });
  }

  /** Times a write request changed the record with this id (kept after delete). */
  appliedCount(previewRecordID: string): number {
    return this.recordAppliedCounts.get(previewRecordID) ?? 0;
  }

  /** Seeds a record directly (no request, not counted as applied). */
  putRecord(input: PutRecordInput): RecordView {
    const campaign = this.ensureCampaign(input.campaignName);
    if (campaign.byClientId.has(input.clientId)) {
      throw new Error(`clientId already exists in campaign ${input.campaignName}`);
    }
    if (input.previewRecordID !== undefined && this.liveRecordIds.has(input.previewRecordID)) {
      throw new Error(`previewRecordID ${input.previewRecordID} already exists`);
    }
    const now = this.now();
    const data = toStoredData(input.previewRecordData ?? []);
    const record: StoredRecord = {
      previewRecordID: input.previewRecordID ?? this.nextRecordId(),
      clientId: input.clientId,
      campaignName: campaign.name,
      preferredAgent: input.preferredAgent ?? null,
      skillQueue: input.skillQueue ?? campaign.defaultSkillQueue,
      timeZone: input.timeZone ?? campaign.defaultTimeZone,
      createdTime: input.createdTime ?? now,
      lastUpdatedTime: input.lastUpdatedTime ?? input.createdTime ?? now,
      nextEarliestWorkTime: input.nextEarliestWorkTime ?? null,
      workedState: input.workedState ?? 'NOTWORKED',
      workAttempts: input.workAttempts ?? 0,
      lastAttemptAgent: input.lastAttemptAgent ?? null,
      lastAttemptTime: input.lastAttemptTime ?? null,
      workCodes: (input.workCodes ?? []).map((c) => ({ ...c })),
      data,
      dataByKey: indexData(data),
    };
    this.insertRecord(campaign, record);
    return this.toView(record);
  }

  /**
   * Simulates an agent working the record (what campaign processing would do): one more
   * attempt by `agent` at `at`, optional work codes and resulting state.
   */
  recordAttempt(
    campaignName: string,
    locator: RecordLocator,
    attempt: {
      readonly agent: string;
      readonly at?: number;
      readonly workCodes?: readonly WorkCode[];
      readonly workedState?: WorkedState;
    },
  ): RecordView {
    const campaign = this.campaignsByName.get(campaignName);
    const record = campaign ? locate(campaign, locator) : undefined;
    if (!record) throw new Error(`no such record in campaign ${campaignName}`);
    const at = attempt.at ?? this.now();
    record.workAttempts += 1;
    record.lastAttemptAgent = attempt.agent;
    record.lastAttemptTime = at;
    record.lastUpdatedTime = at;
    if (attempt.workCodes) record.workCodes = attempt.workCodes.map((c) => ({ ...c }));
    record.workedState = attempt.workedState ?? 'WORKED';
    return this.toView(record);
  }

  // ---- users: test API -----------------------------------------------------------------

  listUsers(): UserView[] {
    return [...this.usersById.values()].map((u) => this.toUserView(u));
  }

  findUser(loginUserId: string): UserView | undefined {
    const user = this.usersById.get(loginUserId);
    return user ? this.toUserView(user) : undefined;
  }

  /** Seeds a user directly (no request, not counted as applied). */
  addUser(input: AddUserInput): UserView {
    if (this.usersById.has(input.loginUserId)) throw new Error('user already exists');
    const user = this.createUser(input);
    return this.toUserView(user);
  }

  /** The user exists in the platform but not in the backing contact-center instance. */
  markNotInBackingInstance(loginUserId: string): UserView {
    const user = this.usersById.get(loginUserId);
    if (!user) throw new Error('no such user');
    user.inCloudConnect = false;
    user.connectUserId = null;
    return this.toUserView(user);
  }

  userAppliedCount(loginUserId: string): number {
    return this.userAppliedCounts.get(loginUserId) ?? 0;
  }

  /** Applied writes in order. */
  get history(): readonly AppliedOperation[] {
    return this.log.map((op) => ({ ...op }));
  }

  snapshot(): StateSnapshot {
    return {
      campaigns: [...this.campaignsByName.values()].map((c) => ({
        name: c.name,
        defaultSkillQueue: c.defaultSkillQueue,
        defaultTimeZone: c.defaultTimeZone,
        records: this.listRecords(c.name),
      })),
      users: this.listUsers(),
      history: this.history,
    };
  }

  // ---- used by the services ------------------------------------------------------------

  /** The campaign, or undefined when it does not exist. */
  campaign(name: string): Campaign | undefined {
    return this.campaignsByName.get(name);
  }

  /** The campaign, created when campaigns are created on demand; undefined otherwise. */
  campaignForWrite(name: string): Campaign | undefined {
    const existing = this.campaignsByName.get(name);
    if (existing) return existing;
    return this.autoCreateCampaigns ? this.ensureCampaign(name) : undefined;
  }

  clock(): number {
    return this.now();
  }

  nextRecordId(): string {
    let id: string;
    do {
      this.recordSequence += 1;
      id = `PR${String(this.recordSequence).padStart(10, '0')}`;
    } while (this.liveRecordIds.has(id));
    return id;
  }

  nextConnectUserId(): string {
    let id: string;
    do {
      this.connectUserSequence += 1;
      id = `00000000-0000-4000-8000-${String(this.connectUserSequence).padStart(12, '0')}`;
    } while ([...this.usersById.values()].some((u) => u.connectUserId === id));
    return id;
  }

  insertRecord(campaign: Campaign, record: StoredRecord): void {
    record.campaignName = campaign.name;
    campaign.records.set(record.previewRecordID, record);
    campaign.byClientId.set(record.clientId, [
      ...(campaign.byClientId.get(record.clientId) ?? []),
      record,
    ]);
    this.liveRecordIds.add(record.previewRecordID);
  }

  removeRecord(campaign: Campaign, record: StoredRecord): void {
    campaign.records.delete(record.previewRecordID);
    const rest = (campaign.byClientId.get(record.clientId) ?? []).filter((r) => r !== record);
    if (rest.length === 0) campaign.byClientId.delete(record.clientId);
    else campaign.byClientId.set(record.clientId, rest);
    this.liveRecordIds.delete(record.previewRecordID);
  }

  storedUser(loginUserId: string): StoredUser | undefined {
    return this.usersById.get(loginUserId);
  }

  createUser(input: AddUserInput): StoredUser {
    const inCloudConnect = input.inCloudConnect ?? false;
    const user: StoredUser = {
      loginUserId: input.loginUserId,
      firstName: input.firstName,
      lastName: input.lastName,
      primaryEmailAddr: input.primaryEmailAddr ?? null,
      secondaryEmailAddr: input.secondaryEmailAddr ?? null,
      userTemplateName: input.userTemplateName,
      inCloudConnect,
      connectUserId: inCloudConnect ? (input.connectUserId ?? this.nextConnectUserId()) : null,
      createdTime: this.now(),
    };
    this.usersById.set(user.loginUserId, user);
    return user;
  }

  deleteUser(loginUserId: string): boolean {
    return this.usersById.delete(loginUserId);
  }

  /** Counts one applied write and logs it. */
  markApplied(operation: Omit<AppliedOperation, 'sequence' | 'at'>): void {
    if (operation.previewRecordID !== undefined) {
      const id = operation.previewRecordID;
      this.recordAppliedCounts.set(id, (this.recordAppliedCounts.get(id) ?? 0) + 1);
    }
    if (operation.loginUserId !== undefined) {
      const id = operation.loginUserId;
      this.userAppliedCounts.set(id, (this.userAppliedCounts.get(id) ?? 0) + 1);
    }
    this.log.push({ ...operation, sequence: this.log.length + 1, at: this.now() });
  }

  // ---- internals ---------------------------------------------------------------------

  private seedInitialCampaigns(): void {
    for (const name of this.initialCampaigns) this.ensureCampaign(name);
  }

  private ensureCampaign(name: string, defaults: CampaignDefaults = {}): Campaign {
    const existing = this.campaignsByName.get(name);
    if (existing) return existing;
    const campaign: Campaign = {
      name,
      defaultSkillQueue: defaults.defaultSkillQueue ?? DEFAULT_SKILL_QUEUE,
      defaultTimeZone: defaults.defaultTimeZone ?? DEFAULT_TIME_ZONE,
      records: new Map(),
      byClientId: new Map(),
    };
    this.campaignsByName.set(name, campaign);
    return campaign;
  }

  private toView(record: StoredRecord): RecordView {
    return {
      ...toRecordResponse(record),
      campaignName: record.campaignName,
      timeZone: record.timeZone,
      nextEarliestWorkTimeMillis: record.nextEarliestWorkTime,
      appliedCount: this.appliedCount(record.previewRecordID),
    };
  }

  private toUserView(user: StoredUser): UserView {
    return { ...user, appliedCount: this.userAppliedCount(user.loginUserId) };
  }
}

/** previewRecordId wins over clientId (both specs' locator rule). */
export const locate = (campaign: Campaign, locator: RecordLocator): StoredRecord | undefined =>
  locator.previewRecordId !== undefined
    ? campaign.records.get(locator.previewRecordId)
    : locator.clientId !== undefined
      ? recordByClientId(campaign, locator.clientId)
      : undefined;
