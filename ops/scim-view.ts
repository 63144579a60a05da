import { parseProfile } from '../lambdas/scim/scim-profiles';

/**
 * What `ops trace` shows of a user's SCIM item (issue 33), when the IdP made the user: the
 * resource id it knows, what it last asked (active, deactivated, deleted), and a delete the
 * brake holds. Nothing when the user never came through SCIM.
 */
export const describeScimItem = (raw: unknown): string[] => {
  if (raw === undefined) return [];
  const profile = parseProfile(raw);
  if (profile === undefined) {
    return [
      'SCIM',
      '  an item this version cannot read (it is read as none: a POST makes it again)',
    ];
  }
  const asked =
    profile.deleted === true ? 'deleted' : profile.user.active ? 'active' : 'deactivated';
  return [
    'SCIM',
    `  resource id        ${profile.id}`,
    `  the IdP asked      ${asked} (${profile.lastModified}; created ${profile.created})`,
    ...(profile.heldDeleteUntil === undefined
      ? []
      : [
          `  held delete        parked by the mass-delete brake; the IdP's repeats are not parked again until ${new Date(profile.heldDeleteUntil).toISOString()}`,
        ]),
  ];
};
