/** A users scope that reads absence from its roster as leaving, over the users `covers` matches. */
export const leavingRoster = (covers: {
  readonly loginUserIdDomains?: readonly string[];
  readonly userTemplateNames?: readonly string[];
}) => ({ kind: 'users', covers, absentMeansLeave: true }) as const;

/** Two users scopes on two domains (staff, vendor), each reading absence as leaving. */
export const STAFF_AND_VENDOR = {
  staff: leavingRoster({ loginUserIdDomains: ['corp.example'] }),
  vendor: leavingRoster({ loginUserIdDomains: ['vendor.example'] }),
} as const;
