/**
 * Platform data the handler tests seed straight into the simulator (no request, not counted
 * as applied): a user, and a campaign record. The values are fixed test data.
 */
import type { Harness } from './handler-harness';

/** A user in the platform (and in the backing instance when `inCloudConnect`). */
export const seedUser = (
  { sim }: Pick<Harness, 'sim'>,
  loginUserId: string,
  inCloudConnect?: boolean,
) =>
  sim.state.addUser({
    loginUserId,
    firstName: 'Grace',
    lastName: 'Hopper',
    userTemplateName: 'Agent',
    inCloudConnect,
  });

/** A record in `campaignName` with a `Name` data item, then `more`. */
export const seedRecord = (
  { sim }: Pick<Harness, 'sim'>,
  clientId: string,
  campaignName = 'Leads',
  more: readonly { readonly key: string; readonly value: string }[] = [],
) =>
  sim.state.putRecord({
    campaignName,
    clientId,
    previewRecordData: [{ key: 'Name', value: 'Grace Hopper' }, ...more],
  });

/** A record in `Leads` whose `City` is `city` (what a search by city finds). */
export const seedCitizen = (harness: Pick<Harness, 'sim'>, clientId: string, city = 'Berlin') =>
  seedRecord(harness, clientId, 'Leads', [{ key: 'City', value: city }]);
