import { existsSync, readFileSync } from 'node:fs';
import * as z from 'zod';
import { ACTION_NAMES, type ActionName } from '../../lambdas/actions';
import { MAX_API_KEY_MAX_AGE_SECONDS } from '../../lambdas/core/entry/ports';
import {
  DEFAULT_RETRY_SCHEDULE,
  type RetrySchedule,
  receivesWithinWindow,
} from '../../lambdas/core/entry/retry-schedule';
import { SyncError } from '../../lambdas/core/errors';
import type { PlatformSettings } from '../../lambdas/core/platform/platform-settings';
import { PLATFORM_REGIONS, type PlatformRegion } from '../../lambdas/core/platform/regions';
import { ACTION_DEFAULTS } from '../../lib/config';
import { DEFAULT_API_KEY_MAX_AGE_SECONDS } from '../../testkit';
import type { SimulatorOptions } from '../simulator';

/**
 * The queue, function and rule settings the local run copies from a deployment config
 * (`config/example.json`), so the run behaves like that deployment. Only the fields used here
 * are read; the full validation is `cdk synth`'s job. The per-action defaults are the
 * deployment's own (`ACTION_DEFAULTS`); the rest stand in for fields a deployment must set.
 */
export const RUN_DEFAULTS = {
  enabled: ACTION_DEFAULTS.enabled,
  batchSize: ACTION_DEFAULTS.batchSize,
  timeoutSeconds: ACTION_DEFAULTS.timeoutSeconds,
  allowedSources: ['crm', 'hr'],
  apiKeyMaxAgeSeconds: DEFAULT_API_KEY_MAX_AGE_SECONDS,
  campaignRegion: 'eu-central-1',
  secretsRegion: 'eu-central-1',
  tenant: { platformCode: 'LOCALPLATFORM', companyCode: 'localco', environmentName: 'local' },
} as const;

/** The SQS visibility timeout is 6 × the function timeout (AWS's advice for SQS → Lambda). */
export const VISIBILITY_TIMEOUT_FACTOR = 6;

export interface ActionRunSettings {
  /** False when the config disables the action: no rule, no queue, its events are unrouted. */
  readonly enabled: boolean;
  readonly batchSize: number;
  readonly timeoutSeconds: number;
  readonly visibilityTimeoutSeconds: number;
  readonly maxReceiveCount: number;
  /** EventBridge `source` values the action's rule accepts. */
  readonly allowedSources: readonly string[];
}

export interface RunSettings {
  /** Where the settings came from, for the run's header. */
  readonly origin: string;
  /** The deployment's retry window and backoff (config `retry`). */
  readonly retry: RetrySchedule;
  readonly actions: Readonly<Record<ActionName, ActionRunSettings>>;
  readonly apiKeyMaxAgeSeconds: number;
  readonly campaignRegion: PlatformRegion;
  readonly secretsRegion: string;
  readonly tenant: {
    readonly platformCode: string;
    readonly companyCode: string;
    readonly environmentName: string;
  };
}

const sources = z.array(z.string().min(1)).min(1);

const actionSchema = z.looseObject({
  enabled: z.boolean().optional(),
  batchSize: z.int().min(1).max(10_000).optional(),
  timeoutSeconds: z.int().min(1).max(900).optional(),
  maxReceiveCount: z.int().min(1).max(1000).optional(),
  allowedSources: sources.optional(),
});

const configSchema = z.looseObject({
  tenant: z
    .looseObject({
      platformCode: z.string().min(1),
      companyCode: z.string().min(1),
      environmentName: z.string().min(1),
    })
    .optional(),
  platform: z.looseObject({ region: z.enum(PLATFORM_REGIONS).optional() }).optional(),
  campaignRegion: z.enum(PLATFORM_REGIONS).optional(),
  apiKey: z
    .looseObject({
      maxAgeSeconds: z.int().min(1).max(MAX_API_KEY_MAX_AGE_SECONDS).optional(),
      secretsRegion: z.string().min(1).optional(),
    })
    .optional(),
  allowedSources: sources.optional(),
  retry: z
    .looseObject({
      windowHours: z.int().min(1).optional(),
      firstDelaySeconds: z.int().min(1).optional(),
      maxDelaySeconds: z.int().min(1).optional(),
    })
    .optional(),
  actions: z
    .partialRecord(z.enum(ACTION_NAMES as [ActionName, ...ActionName[]]), actionSchema)
    .optional(),
});

/** The config file exists but cannot be used. */
export class RunSettingsError extends SyncError<'RUN_SETTINGS_INVALID'> {
  override readonly name = 'RunSettingsError';
  readonly code = 'RUN_SETTINGS_INVALID';
  readonly category = 'usage';
}

/** Settings from a config object (already JSON-decoded); `origin` names it in errors. */
export const runSettingsFrom = (input: unknown, origin: string): RunSettings => {
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.join('.') || '(config)'}: ${i.message}`,
    );
    throw new RunSettingsError(`${origin}: ${problems.join('; ')}`);
  }
  const config = parsed.data;
  const allowed = config.allowedSources ?? [...RUN_DEFAULTS.allowedSources];
  const retry: RetrySchedule = {
    windowSeconds:
      config.retry?.windowHours === undefined
        ? DEFAULT_RETRY_SCHEDULE.windowSeconds
        : config.retry.windowHours * 3600,
    firstDelaySeconds: config.retry?.firstDelaySeconds ?? DEFAULT_RETRY_SCHEDULE.firstDelaySeconds,
    maxDelaySeconds: config.retry?.maxDelaySeconds ?? DEFAULT_RETRY_SCHEDULE.maxDelaySeconds,
  };
  const actions = Object.fromEntries(
    ACTION_NAMES.map((name): [ActionName, ActionRunSettings] => {
      const own = config.actions?.[name] ?? {};
      const timeoutSeconds = own.timeoutSeconds ?? RUN_DEFAULTS.timeoutSeconds;
      return [
        name,
        {
          enabled: own.enabled ?? RUN_DEFAULTS.enabled,
          batchSize: own.batchSize ?? RUN_DEFAULTS.batchSize,
          timeoutSeconds,
          visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_FACTOR * timeoutSeconds,
          maxReceiveCount: own.maxReceiveCount ?? receivesWithinWindow(retry),
          allowedSources: own.allowedSources ?? allowed,
        },
      ];
    }),
  ) as Record<ActionName, ActionRunSettings>;
  return {
    origin,
    retry,
    actions,
    apiKeyMaxAgeSeconds: config.apiKey?.maxAgeSeconds ?? RUN_DEFAULTS.apiKeyMaxAgeSeconds,
    campaignRegion: config.campaignRegion ?? config.platform?.region ?? RUN_DEFAULTS.campaignRegion,
    secretsRegion: config.apiKey?.secretsRegion ?? RUN_DEFAULTS.secretsRegion,
    tenant: config.tenant
      ? {
          platformCode: config.tenant.platformCode,
          companyCode: config.tenant.companyCode,
          environmentName: config.tenant.environmentName,
        }
      : { ...RUN_DEFAULTS.tenant },
  };
};

/** Reads `file` when it exists, else the built-in defaults. */
export const loadRunSettings = (file: string, shownAs: string = file): RunSettings => {
  if (!existsSync(file)) return runSettingsFrom({}, 'built-in defaults');
  let input: unknown;
  try {
    input = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new RunSettingsError(`${shownAs}: not valid JSON (${(error as Error).message})`);
  }
  return runSettingsFrom(input, shownAs);
};

/** The settings with another retry schedule, and each queue's receive count derived from it. */
export const withRetrySchedule = (settings: RunSettings, retry: RetrySchedule): RunSettings => ({
  ...settings,
  retry,
  actions: Object.fromEntries(
    ACTION_NAMES.map((name) => [
      name,
      { ...settings.actions[name], maxReceiveCount: receivesWithinWindow(retry) },
    ]),
  ) as Record<ActionName, ActionRunSettings>,
});

/** The platform the run's handlers call, but for its base URL: the run's tenant and regions. */
export const runPlatformOf = (settings: RunSettings): Omit<PlatformSettings, 'baseUrl'> => ({
  ...settings.tenant,
  campaignRegion: settings.campaignRegion,
  secretsRegion: settings.secretsRegion,
});

/** What a simulator of the run's tenant starts with, to accept `apiKey` (the fault seed its default). */
export const runSimulatorOptions = (settings: RunSettings, apiKey: string): SimulatorOptions => ({
  apiKey,
  ...settings.tenant,
  secretsRegion: settings.secretsRegion,
});
