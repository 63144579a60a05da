import { createHash } from 'node:crypto';

/**
 * Ledger keys of the entities. The ids are hashed: the ledger holds no login ids or client ids
 * (they can be e-mail addresses), and the keys are still stable, so tools can find an entity.
 */
const digest = (...parts: readonly string[]): string =>
  createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);

/** A campaign record: it is the same record in the same campaign of the same region. */
export const recordLocation = (region: string, campaignName: string, clientId: string): string =>
  `record#${digest(region, campaignName, clientId)}`;

/** A user: its login id, case-sensitive as the platform treats it. */
export const userLocation = (loginUserId: string): string => `user#${digest(loginUserId)}`;
