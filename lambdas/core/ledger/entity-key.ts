import { createHash } from 'node:crypto';

/**
 * The ledger keys of entities, derived here once (the batch harness groups a batch's messages by
 * the same key). Ids are hashed, so a key holds no login or client id, yet a tool that knows the
 * id finds the entity by hashing it the same way.
 */
const digest = (...parts: readonly string[]): string =>
  createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);

/** A record family: every record carrying one clientId in one region, whatever its campaign. */
export const familyKey = (region: string, clientId: string): string =>
  `family#${digest(region, clientId)}`;

/** A user: its login id, case-sensitive as the platform treats it. */
export const userKey = (loginUserId: string): string => `user#${digest(loginUserId)}`;

/** The alias item that names the family of a previewRecordId the ledger has seen. */
export const recordIdAlias = (region: string, previewRecordId: string): string =>
  `record-id#${digest(region, previewRecordId)}`;

/** The fields of a message that name its entity (read before validation, so all unknown). */
export interface EntityAddress {
  readonly region?: unknown;
  readonly clientId?: unknown;
  readonly loginUserId?: unknown;
}

/** The key of the entity a message names; undefined when it names none (a previewRecordId only). */
export const entityKeyOf = (address: EntityAddress, campaignRegion: string): string | undefined => {
  if (typeof address.loginUserId === 'string') return userKey(address.loginUserId);
  if (typeof address.clientId !== 'string') return undefined;
  const region = typeof address.region === 'string' ? address.region : campaignRegion;
  return familyKey(region, address.clientId);
};
