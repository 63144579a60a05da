import type { EntityName } from '../core/pipeline/action';
import { agentValue } from '../core/platform/platform-responses';
import type { Routing } from '../entities/record-family/model';

/**
 * What the four campaign-record writes share: how a message names its record family, and the
 * routing fields it sets.
 */

interface Addressed {
  readonly campaignName: string;
  readonly region?: string | undefined;
  readonly clientId?: string | undefined;
  readonly previewRecordId?: string | undefined;
}

/** The family a message names: by clientId, or (previewRecordId only) what finds it. */
export const recordName = (message: Addressed, campaignRegion: string): EntityName => {
  const region = message.region ?? campaignRegion;
  if (message.clientId !== undefined) return { id: { region, clientId: message.clientId } };
  return {
    lookup: {
      region,
      campaignName: message.campaignName,
      // The schemas require one of the two ids.
      previewRecordId: message.previewRecordId ?? '',
    },
  };
};

/** The optional routing fields of a status change or transfer. */
export const routingOf = (message: {
  readonly skillQueue?: string | undefined;
  readonly preferredAgent?: string | undefined;
  readonly nextEarliestWorkTimeUTC?: number | undefined;
  readonly timeZone?: string | undefined;
}): Routing => ({
  ...(message.skillQueue === undefined ? {} : { skillQueue: message.skillQueue }),
  ...(message.preferredAgent === undefined ? {} : { agent: agentValue(message.preferredAgent) }),
  ...(message.nextEarliestWorkTimeUTC === undefined
    ? {}
    : { nextWork: message.nextEarliestWorkTimeUTC }),
  ...(message.timeZone === undefined ? {} : { timeZone: message.timeZone }),
});
