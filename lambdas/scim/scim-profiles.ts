import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { SyncError } from '../core/errors';
import { LeaseLostError, type LedgerStore } from '../core/ledger/ledger-store';
import { USER_FIELDS } from '../entities/user/model';
import type { ScimUser } from './scim-user';

/**
 * What SCIM keeps of a user beside the entity ledger: the resource the IdP made (its id, the
 * SCIM-only attributes, whether it asked for it active), one item per userName in the ledger's
 * own store, under a key of its own (`scim#`, never scanned as a user). The ledger stays the
 * truth of what is on the platform; a user has an item here only once a POST created it as
 * ours, so someone else's user is never one of these. The item's lease serialises one user's
 * SCIM requests, as the ledger's does its events.
 */
export interface ScimProfile {
  readonly schema: 1;
  readonly id: string;
  readonly user: ScimUser;
  readonly created: string;
  readonly lastModified: string;
  /** DELETE ran: the resource is gone, its id never answered again. */
  readonly deleted?: true;
  /** Epoch ms until which an IdP's retry of a delete the brake held is not held again. */
  readonly heldDeleteUntil?: number;
}

/** What add-user sends for the user: the ledger's own shape of it (a change there is a change here). */
const fields = USER_FIELDS;

const profileSchema = z.object({
  schema: z.literal(1),
  id: z.string(),
  user: z.object({
    userName: z.string(),
    fields,
    active: z.boolean(),
    externalId: z.optional(z.string()),
    displayName: z.optional(z.string()),
  }),
  created: z.string(),
  lastModified: z.string(),
  deleted: z.optional(z.literal(true)),
  heldDeleteUntil: z.optional(z.number()),
});

/** An item that is not a profile this version wrote: read as none (never misread). */
export const parseProfile = (raw: unknown): ScimProfile | undefined => {
  const parsed = profileSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
};

const digest = (text: string): string =>
  createHash('sha256').update(text).digest('hex').slice(0, 32);

export const PROFILE_PREFIX = 'scim#';
export const profileKey = (userName: string): string => `${PROFILE_PREFIX}${digest(userName)}`;
const externalIdAlias = (externalId: string): string => `scim-external#${digest(externalId)}`;

/**
 * The resource id: the userName and the version of the add that created the resource, so a
 * user deleted and created again gets a new id and an id is never reused (RFC 7643 §3.1). The
 * userName is carried (base64url) so a GET finds the item without an index.
 */
export const resourceId = (userName: string, createdBy: string): string =>
  `${Buffer.from(userName, 'utf8').toString('base64url')}.${digest(createdBy).slice(0, 16)}`;

/** The userName an id carries; undefined for an id this endpoint never made. */
export const userNameOfId = (id: string): string | undefined => {
  const dot = id.lastIndexOf('.');
  if (dot <= 0 || !/^[A-Za-z0-9_-]+$/.test(id.slice(0, dot))) return undefined;
  const userName = Buffer.from(id.slice(0, dot), 'base64url').toString('utf8');
  return userName === '' ? undefined : userName;
};

/** Lists every stored profile item (a scan): the only way to page users, whose keys are hashes. */
export type ProfileLister = () => AsyncIterable<unknown>;

/** The profiles of an in-memory store (the local run, tests). */
export const inMemoryProfileLister = (store: {
  keys(): string[];
  read(key: string): Promise<unknown>;
}): ProfileLister =>
  async function* () {
    for (const key of store.keys().filter((k) => k.startsWith(PROFILE_PREFIX))) {
      yield await store.read(key);
    }
  };

/** One user's profile, held: only this request writes it until saved or released. */
export interface HeldProfile {
  readonly profile: ScimProfile | undefined;
  save(profile: ScimProfile, expiresAtSeconds?: number): Promise<void>;
  /**
   * Drops the hold. An item the claim made for a user with no profile (a refused POST) is
   * written empty with an expiry, so refused creates leave nothing behind for good.
   */
  release(expiresAtSeconds: number): Promise<void>;
}

/** Another request of the same user holds its item until its deadline. */
export class ScimBusyError extends SyncError<'SCIM_USER_BUSY'> {
  override readonly name = 'ScimBusyError';
  readonly code = 'SCIM_USER_BUSY';
  readonly category = 'retryable';
}

const BUSY_WAITS_MS = [50, 100, 200, 400, 800, 1600];
const LEASE_GRACE_MS = 5_000;

export class ScimProfiles {
  readonly #store: LedgerStore;
  readonly #list: ProfileLister;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: {
    readonly store: LedgerStore;
    readonly list: ProfileLister;
    readonly now?: () => number;
    readonly sleep?: (ms: number) => Promise<void>;
  }) {
    this.#store = options.store;
    this.#list = options.list;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async read(userName: string): Promise<ScimProfile | undefined> {
    return parseProfile(await this.#store.read(profileKey(userName)));
  }

  /** Holds the user's profile until `deadline`; throws `ScimBusyError` if another request holds it. */
  async hold(userName: string, requestId: string, deadline: number): Promise<HeldProfile> {
    const key = profileKey(userName);
    const token = `${requestId}:${this.#now()}`;
    const lease = { token, until: deadline + LEASE_GRACE_MS, eventKey: `scim@${requestId}` };
    let claim = await this.#store.claim(key, lease, this.#now());
    for (const wait of BUSY_WAITS_MS) {
      if (claim.kind === 'claimed' || this.#now() + wait >= deadline) break;
      await this.#sleep(wait);
      claim = await this.#store.claim(key, lease, this.#now());
    }
    if (claim.kind !== 'claimed')
      throw new ScimBusyError('another request of this user is running');
    const store = this.#store;
    const found = claim.doc;
    return {
      profile: parseProfile(found),
      save: (profile, expiresAt) => store.commit(key, token, profile, expiresAt),
      release: async (expiresAt) => {
        if (found !== undefined) return store.release(key, token);
        try {
          await store.commit(key, token, {}, expiresAt);
        } catch (error) {
          // Saved already (the lease went with the save): nothing to drop.
          if (!(error instanceof LeaseLostError)) throw error;
        }
      },
    };
  }

  /** Indexes the profile under its externalId (Entra ID and Okta may filter by it). */
  noteExternalId(externalId: string, userName: string, expiresAtSeconds: number): Promise<void> {
    return this.#store.writeAlias(externalIdAlias(externalId), userName, expiresAtSeconds);
  }

  async byExternalId(externalId: string): Promise<ScimProfile | undefined> {
    const userName = await this.#store.readAlias(externalIdAlias(externalId));
    if (userName === undefined) return undefined;
    const profile = await this.read(userName);
    return profile?.user.externalId === externalId ? profile : undefined;
  }

  async *all(): AsyncIterable<ScimProfile> {
    for await (const raw of this.#list()) {
      const profile = parseProfile(raw);
      if (profile !== undefined) yield profile;
    }
  }
}
