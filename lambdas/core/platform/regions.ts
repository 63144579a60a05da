/**
 * Regions both specs list for the optional base-URL prefix. us-east-1 is the one
 * without a prefix (`https://<host>:9443`).
 */
export const PLATFORM_REGIONS = [
  'us-east-1',
  'us-west-2',
  'ca-central-1',
  'eu-west-2',
  'eu-central-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'ap-northeast-2',
  'af-south-1',
] as const;

export type PlatformRegion = (typeof PLATFORM_REGIONS)[number];

export const isPlatformRegion = (value: string): value is PlatformRegion =>
  (PLATFORM_REGIONS as readonly string[]).includes(value);
