/**
 * Deployment config: one JSON file per environment under `config/`, validated at synth time.
 * The same parsed config fills the CDK resources and the handler environment
 * (`handler-environment.ts`), so the two cannot disagree.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import {
  ACTIONS,
  type ActionName,
  actionDefinition,
  BRAKED_ACTIONS,
  RESULT_EVENT_SOURCE,
} from '../lambdas/actions';
import {
  DEFAULT_PLAN_MAX_AGE_HOURS,
  DEFAULT_RETRY_SCHEDULE,
  MAX_API_KEY_MAX_AGE_SECONDS,
  PLATFORM_REGIONS,
  type PlatformRegion,
  parseScopes,
  platformBaseUrl,
  type RetrySchedule,
  receivesWithinWindow,
  SQS_MAX_RECEIVE_COUNT,
  SQS_MAX_VISIBILITY_SECONDS,
  SyncError,
} from '../lambdas/deployment-contract';

/** Folder of the committed deployment configs. */
export const DEFAULT_CONFIG_DIR = fileURLToPath(new URL('../config/', import.meta.url));

/** Defaults of every action's settings (`actions.<action>.*`). */
export const ACTION_DEFAULTS = {
  enabled: true,
  batchSize: 10,
  maxBatchingWindowSeconds: 0,
  maxConcurrency: 5,
  timeoutSeconds: 30,
  memoryMiB: 256,
} as const;

/**
 * Request ceilings of the platform services. The specs do not show rate limits, so these are
 * conservative guesses a deployment can raise (docs/decisions.md).
 */
export const PLATFORM_RATE_DEFAULTS = { realtime: 50, provisioning: 10 } as const;

/**
 * The mass-delete brake of each destructive action (`deleteBrake.<action>.*`): on, and generous
 * enough that a normal day never meets it (docs/decisions.md).
 */
export const DELETE_BRAKE_DEFAULTS = { enabled: true, limit: 500, windowMinutes: 60 } as const;

/** Retention values CloudWatch Logs accepts. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
] as const;

/** Source queues keep messages 4 days (the SQS default); the age alarm must fire before that. */
export const SOURCE_QUEUE_RETENTION_SECONDS = 4 * 24 * 3600;

/** The retry window ends at least this long before the source queue would expire a message. */
const RETENTION_MARGIN_SECONDS = 24 * 3600;
/** The longest retention SQS allows. */
const SQS_MAX_RETENTION_SECONDS = 14 * 24 * 3600;
/** The DLQs keep a message SQS's longest: 14 days. */
export const DLQ_RETENTION_DAYS = 14;

/** Source queue retention: the SQS default 4 days, longer when the retry window needs it. */
export const sourceQueueRetentionSeconds = (windowHours: number): number =>
  Math.max(SOURCE_QUEUE_RETENTION_SECONDS, windowHours * 3600 + RETENTION_MARGIN_SECONDS);

const int = (min: number, max: number) =>
  z
    .int('must be an integer')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

const AWS_REGION = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;
const awsRegion = z.string().regex(AWS_REGION, 'must be an AWS region such as eu-central-1');

/** Sent as HTTP header values, so printable ASCII without spaces. */
const tenantValue = z
  .string()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces (it is sent as an HTTP header)');

/** Like the runtime's host rule (`lambdas/core/platform/base-url.ts`), but with at least one dot. */
const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const SECRET_ARN =
  /^arn:(aws|aws-cn|aws-us-gov):secretsmanager:([a-z0-9-]+):(\d{12}):secret:([A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6})$/;
const KMS_KEY_ARN = /^arn:(aws|aws-cn|aws-us-gov):kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/;
const SNS_TOPIC_ARN = /^arn:(aws|aws-cn|aws-us-gov):sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;
const EVENT_BUS_NAME = /^[A-Za-z0-9._/-]{1,256}$/;
const EVENT_BUS_ARN =
  /^arn:(aws|aws-cn|aws-us-gov):events:[a-z0-9-]+:\d{12}:event-bus\/([A-Za-z0-9._/-]{1,256})$/;

/** Parts of a complete secret ARN, or undefined for a secret name. */
export const parseSecretArn = (
  secretId: string,
): { partition: string; region: string; account: string; resource: string } | undefined => {
  const match = SECRET_ARN.exec(secretId);
  if (!match) return undefined;
  const [, partition = '', region = '', account = '', resource = ''] = match;
  return { partition, region, account, resource };
};

const platformRegion = z.enum(PLATFORM_REGIONS, `must be one of ${PLATFORM_REGIONS.join(', ')}`);

const eventSource = z
  .string()
  .min(1, 'must not be empty')
  .max(256, 'must be at most 256 characters')
  .regex(/^\S+$/, 'must not contain whitespace')
  .refine((s) => !s.startsWith('aws.'), 'must not start with "aws." (reserved for AWS services)')
  .refine(
    (s) => s !== RESULT_EVENT_SOURCE,
    `must not be "${RESULT_EVENT_SOURCE}" (the source of this integration's own result events)`,
  );

const uniqueSources = (sources: readonly string[], ctx: z.RefinementCtx): void => {
  sources.forEach((source, index) => {
    if (sources.indexOf(source) !== index) {
      ctx.addIssue({ code: 'custom', path: [index], message: `duplicate source "${source}"` });
    }
  });
};

/** A non-empty list of distinct event sources. */
const sourceList = z
  .array(eventSource, 'must be a list of event sources such as ["crm", "hr"]')
  .min(1, 'must list at least one source')
  .superRefine(uniqueSources);

const actionSettingsSchema = z
  .strictObject({
    enabled: z.boolean().default(ACTION_DEFAULTS.enabled),
    batchSize: int(1, 10_000).default(ACTION_DEFAULTS.batchSize),
    maxBatchingWindowSeconds: int(0, 300).default(ACTION_DEFAULTS.maxBatchingWindowSeconds),
    // Lambda rejects an SQS maximum concurrency outside 2..1000.
    maxConcurrency: int(2, 1000).default(ACTION_DEFAULTS.maxConcurrency),
    timeoutSeconds: int(1, 900).default(ACTION_DEFAULTS.timeoutSeconds),
    memoryMiB: int(128, 10_240).default(ACTION_DEFAULTS.memoryMiB),
    maxReceiveCount: z
      .undefined(
        'is derived from "retry" (the retry window and backoff); remove it and set retry.windowHours instead',
      )
      .optional(),
    /** Overrides the top-level `allowedSources` for this action's rule. */
    allowedSources: sourceList.optional(),
  })
  .superRefine((settings, ctx) => {
    // Lambda only accepts SQS batches above 10 with a batching window of at least 1 s.
    if (settings.batchSize > 10 && settings.maxBatchingWindowSeconds < 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['batchSize'],
        message: 'must be at most 10 unless maxBatchingWindowSeconds is at least 1',
      });
    }
  });

const brakeSettingsSchema = z.strictObject({
  /** false: the action's destructive messages are applied however many arrive. */
  enabled: z.boolean('must be true or false').default(DELETE_BRAKE_DEFAULTS.enabled),
  /** Destructive messages let through per rolling window before the brake trips. */
  limit: int(1, 1_000_000).default(DELETE_BRAKE_DEFAULTS.limit),
  /** The rolling window (at most 7 days). */
  windowMinutes: int(1, 7 * 24 * 60).default(DELETE_BRAKE_DEFAULTS.windowMinutes),
});

export type DeleteBrakeSettings = z.output<typeof brakeSettingsSchema>;

const deleteBrakeShape = Object.fromEntries(
  BRAKED_ACTIONS.map((action) => [action, brakeSettingsSchema.prefault({})]),
) as Partial<Record<ActionName, z.ZodPrefault<typeof brakeSettingsSchema>>>;

export type ActionSettings = Omit<z.output<typeof actionSettingsSchema>, 'maxReceiveCount'>;

/** The runtime's retry schedule from the config's `retry` block. */
export const scheduleOf = (retry: {
  readonly windowHours: number;
  readonly firstDelaySeconds: number;
  readonly maxDelaySeconds: number;
}): RetrySchedule => ({
  windowSeconds: retry.windowHours * 3600,
  firstDelaySeconds: retry.firstDelaySeconds,
  maxDelaySeconds: retry.maxDelaySeconds,
});

const actionsShape = Object.fromEntries(
  ACTIONS.map((action) => [action.name, actionSettingsSchema.prefault({})]),
) as Record<ActionName, z.ZodPrefault<typeof actionSettingsSchema>>;

export type EventBusConfig =
  | { readonly kind: 'create'; readonly name?: string | undefined }
  | { readonly kind: 'existing-name'; readonly name: string }
  | { readonly kind: 'existing-arn'; readonly arn: string; readonly name: string };

const eventBusSchema = z
  .strictObject({
    create: z.literal(true, 'must be true (omit it to use an existing bus)').optional(),
    name: z.string().regex(EVENT_BUS_NAME, 'must be a valid event bus name').optional(),
    existingBusName: z.string().regex(EVENT_BUS_NAME, 'must be a valid event bus name').optional(),
    existingBusArn: z
      .string()
      .regex(
        EVENT_BUS_ARN,
        'must be an event bus ARN (arn:aws:events:<region>:<account>:event-bus/<name>)',
      )
      .optional(),
  })
  .superRefine((bus, ctx) => {
    const modes = [bus.create, bus.existingBusName, bus.existingBusArn].filter(
      (mode) => mode !== undefined,
    );
    if (modes.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'give exactly one of "create": true, "existingBusName" or "existingBusArn"',
      });
    }
    if (bus.name !== undefined && bus.create === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['name'],
        message: 'only applies with "create": true',
      });
    }
    if (bus.create && bus.name === 'default') {
      ctx.addIssue({
        code: 'custom',
        path: ['name'],
        message: 'cannot create a bus named "default"; use "existingBusName": "default"',
      });
    }
  })
  .transform((bus): EventBusConfig => {
    if (bus.existingBusArn !== undefined) {
      const name = EVENT_BUS_ARN.exec(bus.existingBusArn)?.[2] ?? '';
      return { kind: 'existing-arn', arn: bus.existingBusArn, name };
    }
    if (bus.existingBusName !== undefined)
      return { kind: 'existing-name', name: bus.existingBusName };
    return { kind: 'create', name: bus.name };
  });

/** Defaults of the SCIM endpoint (`scim.*`); docs/decisions.md#scim says why. */
export const SCIM_DEFAULTS = {
  enabled: false,
  maxResults: 100,
  throttle: { rateLimit: 10, burstLimit: 20 },
  timeoutSeconds: 25,
  memoryMiB: 256,
} as const;

/** RFC 7644 §3.4.2.4 lets the service cap a page; Okta asks for pages of 100, so at least that. */
export const SCIM_MIN_MAX_RESULTS = 100;

/** Like `apiKey.secretId`: a secret name (the stack's account and region) or a complete ARN. */
const secretIdSchema = z
  .string('must be a secret name or ARN')
  .min(1, 'must not be empty')
  .refine(
    (id) => (id.startsWith('arn:') ? SECRET_ARN.test(id) : SECRET_NAME.test(id)),
    'must be a secret name or a complete secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>)',
  );

const scimSchema = z
  .strictObject({
    enabled: z.boolean('must be true or false').default(SCIM_DEFAULTS.enabled),
    /** The IdP's bearer token: its own secret (plain string), never the platform key's. */
    tokenSecretId: secretIdSchema.optional(),
    /** What a user gets when the IdP sends no extension attributes (it often cannot at first). */
    defaults: z
      .strictObject({
        userTemplateName: z
          .string('must be a string')
          .trim()
          .min(1, 'must not be empty')
          .max(256, 'must be at most 256 characters')
          .optional(),
        createInCloudConnect: z.boolean('must be true or false').default(false),
      })
      .prefault({}),
    /** Most users in one `GET /Users` page. */
    maxResults: int(SCIM_MIN_MAX_RESULTS, 1000).default(SCIM_DEFAULTS.maxResults),
    /** API Gateway stage throttling: the IdP backs off on 429. */
    throttle: z
      .strictObject({
        rateLimit: z
          .number('must be a number of requests per second')
          .positive('must be more than 0')
          .max(10_000, 'must be at most 10000')
          .default(SCIM_DEFAULTS.throttle.rateLimit),
        burstLimit: int(1, 5000).default(SCIM_DEFAULTS.throttle.burstLimit),
      })
      .prefault({}),
    /**
     * API Gateway writes access logs through one CloudWatch Logs role per account and region (its
     * account settings); true lets this stack set it, for an account where none is set yet.
     */
    createApiGatewayLogRole: z.boolean('must be true or false').default(false),
    /** Below API Gateway's 29 s integration limit, so the function answers before the gateway gives up. */
    timeoutSeconds: int(1, 28).default(SCIM_DEFAULTS.timeoutSeconds),
    memoryMiB: int(128, 10_240).default(SCIM_DEFAULTS.memoryMiB),
  })
  .superRefine((scim, ctx) => {
    if (!scim.enabled) return;
    if (scim.tokenSecretId === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['tokenSecretId'],
        message: 'is required when scim.enabled is true',
      });
    }
    if (scim.defaults.userTemplateName === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['defaults', 'userTemplateName'],
        message:
          'is required when scim.enabled is true (Entra ID and Okta often cannot send the extension)',
      });
    }
  });

/** The SCIM settings of an enabled endpoint (what the stack and the function environment use). */
export interface ScimSettings {
  readonly tokenSecretId: string;
  readonly defaults: { readonly userTemplateName: string; readonly createInCloudConnect: boolean };
  readonly maxResults: number;
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  readonly createApiGatewayLogRole: boolean;
  readonly timeoutSeconds: number;
  readonly memoryMiB: number;
}

const configSchema = z
  .strictObject({
    /** Overrides the stack name `ContactCenterSync-<environmentName>`. */
    stackName: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/, 'must be a CloudFormation stack name')
      .optional(),
    /** Pins the stack to an account/region; environment-agnostic when left out. */
    deployment: z
      .strictObject({
        account: z
          .string()
          .regex(/^\d{12}$/, 'must be a 12-digit AWS account id')
          .optional(),
        region: awsRegion.optional(),
      })
      .optional(),
    tenant: z.strictObject({
      platformCode: tenantValue,
      companyCode: tenantValue,
      environmentName: tenantValue,
    }),
    platform: z
      .strictObject({
        host: z
          .string()
          .regex(
            HOST_NAME,
            'must be a host name such as platform.example.com (no scheme, port or path)',
          )
          .optional(),
        region: platformRegion.optional(),
        baseUrlOverride: z
          .url({ protocol: /^https$/, error: 'must be an https URL' })
          .transform((url) => url.replace(/\/+$/, ''))
          .optional(),
      })
      .superRefine((platform, ctx) => {
        if (platform.baseUrlOverride !== undefined) {
          if (platform.host !== undefined) {
            ctx.addIssue({
              code: 'custom',
              path: ['host'],
              message: 'give either host (with region) or baseUrlOverride, not both',
            });
          }
          return;
        }
        if (platform.host === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['host'],
            message: 'is required unless baseUrlOverride is given',
          });
        }
        if (platform.region === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['region'],
            message: 'is required unless baseUrlOverride is given',
          });
        }
      }),
    /** Default `region` of realtime requests; defaults to platform.region. */
    campaignRegion: platformRegion.optional(),
    apiKey: z
      .strictObject({
        /** Secret name (same account as the stack) or the complete secret ARN. */
        secretId: z
          .string()
          .min(1, 'must not be empty')
          .refine(
            (id) => (id.startsWith('arn:') ? SECRET_ARN.test(id) : SECRET_NAME.test(id)),
            'must be a secret name or a complete secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>)',
          ),
        secretsRegion: awsRegion,
        // The specs forbid caching the key for longer than one hour.
        maxAgeSeconds: int(1, MAX_API_KEY_MAX_AGE_SECONDS).default(900),
        /** Customer-managed KMS key of the secret, when it is not encrypted with aws/secretsmanager. */
        kmsKeyArn: z.string().regex(KMS_KEY_ARN, 'must be a KMS key ARN').optional(),
      })
      .superRefine((apiKey, ctx) => {
        const arn = parseSecretArn(apiKey.secretId);
        if (arn && arn.region !== apiKey.secretsRegion) {
          ctx.addIssue({
            code: 'custom',
            path: ['secretsRegion'],
            message: `must be the region of the secret ARN in secretId (${arn.region})`,
          });
        }
      }),
    actions: z.strictObject(actionsShape).prefault({}),
    eventBus: eventBusSchema.prefault({ create: true }),
    /** Retry policy of every rule's SQS target. */
    eventDelivery: z
      .strictObject({
        retryAttempts: int(0, 185).default(185),
        maxEventAgeSeconds: int(60, 86_400).default(86_400),
      })
      .prefault({}),
    /**
     * How long a retryable failure is retried (from when the message was sent) and the backoff
     * between receives; the queues' `maxReceiveCount` is derived from it.
     */
    retry: z
      .strictObject({
        // SQS keeps a message 14 days at most, and the window must end a day before that.
        windowHours: int(1, (SQS_MAX_RETENTION_SECONDS - RETENTION_MARGIN_SECONDS) / 3600).default(
          DEFAULT_RETRY_SCHEDULE.windowSeconds / 3600,
        ),
        firstDelaySeconds: int(1, 900).default(DEFAULT_RETRY_SCHEDULE.firstDelaySeconds),
        maxDelaySeconds: int(1, SQS_MAX_VISIBILITY_SECONDS).default(
          DEFAULT_RETRY_SCHEDULE.maxDelaySeconds,
        ),
      })
      .superRefine((retry, ctx) => {
        if (retry.maxDelaySeconds < retry.firstDelaySeconds) {
          ctx.addIssue({
            code: 'custom',
            path: ['maxDelaySeconds'],
            message: `must be at least firstDelaySeconds (${retry.firstDelaySeconds})`,
          });
          return;
        }
        const receives = receivesWithinWindow(scheduleOf(retry));
        if (receives > SQS_MAX_RECEIVE_COUNT) {
          ctx.addIssue({
            code: 'custom',
            path: ['windowHours'],
            message: `cannot be given with this backoff: it needs ${receives} receives and SQS allows at most ${SQS_MAX_RECEIVE_COUNT}; raise maxDelaySeconds or shorten windowHours`,
          });
        }
      })
      .prefault({}),
    /** Most requests per second the whole deployment sends to each platform service. */
    platformRateLimits: z
      .strictObject({
        realtime: z
          .number('must be a number of requests per second')
          .positive('must be more than 0')
          .max(10_000, 'must be at most 10000')
          .default(PLATFORM_RATE_DEFAULTS.realtime),
        provisioning: z
          .number('must be a number of requests per second')
          .positive('must be more than 0')
          .max(10_000, 'must be at most 10000')
          .default(PLATFORM_RATE_DEFAULTS.provisioning),
      })
      .prefault({}),
    /** A brake per destructive action: more removals per rolling window are held, not applied. */
    deleteBrake: z.strictObject(deleteBrakeShape).prefault({}),
    /** EventBridge `source` values whose events are routed to the action queues. */
    allowedSources: sourceList,
    alarms: z
      .strictObject({
        topicArn: z
          .string()
          .regex(SNS_TOPIC_ARN, 'must be a standard (not FIFO) SNS topic ARN')
          .optional(),
        email: z.email('must be an e-mail address').optional(),
        oldestMessageAgeSeconds: int(60, SOURCE_QUEUE_RETENTION_SECONDS).default(900),
      })
      .prefault({}),
    /** The entity ledger that orders each entity's events. */
    ledger: z
      .strictObject({
        /**
         * Days a deleted entity's tombstone is kept, so a late older message is still known to
         * be stale: at least the retry window (1 day) plus the DLQ retention (14 days).
         */
        tombstoneDays: int(15, 365).default(15),
      })
      .prefault({}),
    /** Reconciliation of snapshot exports with the platform (docs/operations.md#reconcile). */
    reconcile: z
      .strictObject({
        /** `reconcile apply` refuses a plan older than this. */
        planMaxAgeHours: int(1, 720).default(DEFAULT_PLAN_MAX_AGE_HOURS),
        /** Repair messages the stack's run sends at once. */
        applyConcurrency: int(1, 1000).default(10),
        /** The part of a service's request ceiling a plan's reads may use (live traffic has the rest). */
        platformShare: z
          .number('must be a number')
          .min(0.05, 'must be at least 0.05')
          .max(1, 'must be at most 1')
          .default(0.5),
        scopes: z.record(z.string(), z.unknown()).default({}),
      })
      .transform((reconcile, ctx) => {
        const parsed = parseScopes(reconcile.scopes);
        if (parsed.success) return { ...reconcile, scopes: parsed.scopes };
        ctx.addIssue({ code: 'custom', path: ['scopes'], message: parsed.error });
        return z.NEVER;
      })
      .prefault({}),
    /** The SCIM 2.0 endpoint identity providers provision users through (docs/deploy.md#scim). */
    scim: scimSchema.prefault({}),
    logRetentionDays: z
      .int('must be an integer')
      .refine(
        (days) => (LOG_RETENTION_DAYS as readonly number[]).includes(days),
        `must be one of ${LOG_RETENTION_DAYS.join(', ')}`,
      )
      .default(30),
    logLevel: z
      .enum(['DEBUG', 'INFO', 'WARN', 'ERROR'], 'must be one of DEBUG, INFO, WARN, ERROR')
      .default('INFO'),
    /**
     * Stack traces in the logs point at the TypeScript sources (`NODE_OPTIONS=
     * --enable-source-maps`). The maps ship with every function either way; switching this on
     * costs each cold start ~15 ms (bench/README.md, docs/decisions.md).
     */
    sourceMapStackTraces: z.boolean('must be true or false').default(false),
  })
  .superRefine((config, ctx) => {
    if (config.eventBus.kind === 'existing-arn' && config.deployment !== undefined) {
      // EventBridge rules can only be created on a bus in the stack's own account and region.
      const [, , , region, account] = config.eventBus.arn.split(':');
      const { account: stackAccount, region: stackRegion } = config.deployment;
      if (
        (stackAccount !== undefined && account !== stackAccount) ||
        (stackRegion !== undefined && region !== stackRegion)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['eventBus', 'existingBusArn'],
          message:
            "must be a bus in the deployment account and region (rules cannot be added to another account's bus)",
        });
      }
    }
    // A redriven message may come back after the retry window and the DLQ's 14 days: its entity's
    // events must still be there, or it would be applied as new (docs/deploy.md).
    const neededDays = Math.ceil(config.retry.windowHours / 24) + DLQ_RETENTION_DAYS;
    if (config.ledger.tombstoneDays < neededDays) {
      ctx.addIssue({
        code: 'custom',
        path: ['ledger', 'tombstoneDays'],
        message: `must be at least ${neededDays}: the retry window (retry.windowHours ${config.retry.windowHours}) plus the DLQ's ${DLQ_RETENTION_DAYS} days`,
      });
    }
    for (const service of ['realtime', 'provisioning'] as const) {
      const instances = instancesCalling(config.actions, service);
      const share = config.platformRateLimits[service] / Math.max(1, instances);
      if (share < MIN_RATE_SHARE_PER_SECOND) {
        ctx.addIssue({
          code: 'custom',
          path: ['platformRateLimits', service],
          message: `gives each function instance ${share.toFixed(4)} requests/s (the ceiling ÷ ${instances}, the summed maxConcurrency of the enabled ${service} actions); at least ${MIN_RATE_SHARE_PER_SECOND}/s is needed: raise it or lower maxConcurrency`,
        });
      }
    }
    if (config.scim.enabled) {
      // SCIM writes run add-user's and delete-user's pipeline (ledger, brake, breaker) in-process.
      const off = (['add-user', 'delete-user'] as const).filter((a) => !config.actions[a].enabled);
      if (off.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['scim', 'enabled'],
          message: `needs ${off.join(' and ')} enabled in actions (SCIM writes are their events)`,
        });
      }
    }
    if (config.campaignRegion === undefined && config.platform.region === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['campaignRegion'],
        message: 'is required when platform.region is not given',
      });
    }
  })
  .transform((config) => {
    const { host, region, baseUrlOverride } = config.platform;
    // The refinements above guarantee host and region without an override; the runtime's own
    // builder (which also lower-cases the host) keeps the config and the handlers in step.
    const baseUrl = baseUrlOverride ?? platformBaseUrl(host ?? '', region ?? '');
    const maxReceiveCount = receivesWithinWindow(scheduleOf(config.retry));
    const actions = Object.fromEntries(
      ACTIONS.map(({ name }) => [name, { ...config.actions[name], maxReceiveCount }]),
    ) as { [A in ActionName]: ActionSettings & { readonly maxReceiveCount: number } };
    return {
      ...config,
      actions,
      platform: { ...config.platform, baseUrl },
      campaignRegion: (config.campaignRegion ?? region) as PlatformRegion,
    };
  });

/** What a config file may contain (defaults not yet applied). */
export type DeploymentConfigInput = z.input<typeof configSchema>;
/** A validated config with every default applied and the base URL resolved. */
export type DeploymentConfig = z.output<typeof configSchema>;

/** A config that failed validation; `message` names the file and every bad field. */
export class ConfigError extends SyncError<'CONFIG_INVALID'> {
  override readonly name = 'ConfigError';
  readonly code = 'CONFIG_INVALID';
  readonly category = 'operator';
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(problems.map((problem) => `${source}: ${problem}`).join('\n'));
  }
}

const formatPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    return text === '' ? String(segment) : `${text}.${String(segment)}`;
  }, '');

const TYPE_NAMES: Record<string, string> = {
  object: 'an object',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
};

const describeIssue = (issue: z.core.$ZodIssue): string => {
  const where = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => `"${key}"`).join(', ');
    return `${where === '' ? '' : `${where}: `}unknown field(s) ${keys}`;
  }
  let text = issue.message;
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) text = 'is required';
    // zod's own wording names the received value's type; ours says what is expected.
    else if (text.startsWith('Invalid input'))
      text = `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
  }
  return `${where === '' ? '(config)' : where}: ${text}`;
};

/** Validates an already JSON-decoded config; `source` names it in error messages. */
export const parseConfig = (input: unknown, source = 'config'): DeploymentConfig => {
  // `reportInput` tells a missing field from one of the wrong type; values are never printed.
  const result = configSchema.safeParse(input, { reportInput: true });
  if (!result.success) throw new ConfigError(source, result.error.issues.map(describeIssue));
  return result.data;
};

const CONFIG_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Reads and validates `<dir>/<name>.json`; errors name the file and every bad field. */
export const loadConfig = (name: string, dir: string = DEFAULT_CONFIG_DIR): DeploymentConfig => {
  const file = resolve(dir, `${name}.json`);
  const shown = relative(process.cwd(), file);
  const source = shown.startsWith('..') || isAbsolute(shown) ? file : shown;
  if (!CONFIG_NAME.test(name)) {
    throw new ConfigError(source, ['config name must be a file name without path or extension']);
  }
  if (!existsSync(file)) {
    const available = existsSync(dir)
      ? readdirSync(dir)
          .filter((entry) => entry.endsWith('.json'))
          .map((entry) => entry.slice(0, -'.json'.length))
      : [];
    throw new ConfigError(source, [
      `not found (available: ${available.length > 0 ? available.join(', ') : 'none'})`,
    ]);
  }
  let input: unknown;
  try {
    input = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(source, [`not valid JSON (${(error as Error).message})`]);
  }
  return parseConfig(input, source);
};

/** Stack name: the configured one, else `ContactCenterSync-<environmentName>` made CloudFormation-safe. */
export const stackNameFor = (config: DeploymentConfig): string =>
  config.stackName ??
  `ContactCenterSync-${config.tenant.environmentName.replace(/[^A-Za-z0-9-]+/g, '-')}`.slice(
    0,
    128,
  );

/** Name of the bus the stack creates when the config does not name one. */
export const defaultEventBusName = (config: DeploymentConfig): string =>
  `contact-center-sync-${config.tenant.environmentName.replace(/[^A-Za-z0-9._-]+/g, '-')}`.slice(
    0,
    256,
  );

/** `allowedSources` of one action: its own override, else the top-level list. */
export const allowedSourcesFor = (
  config: DeploymentConfig,
  action: ActionName,
): readonly string[] => config.actions[action].allowedSources ?? config.allowedSources;

/** The brake of an enabled destructive action; undefined for other actions or when switched off. */
export const deleteBrakeFor = (
  config: DeploymentConfig,
  action: ActionName,
): DeleteBrakeSettings | undefined => {
  const settings = (config.deleteBrake as Partial<Record<ActionName, DeleteBrakeSettings>>)[action];
  return settings?.enabled === true && config.actions[action].enabled ? settings : undefined;
};

/**
 * One function instance's share of its service's request ceiling: the ceiling split over the
 * most instances the enabled actions of that service can run at once, so all of them together
 * never exceed it.
 */
export const rateSharePerInstance = (config: DeploymentConfig, action: ActionName): number => {
  const service = actionDefinition(action).service;
  return (
    config.platformRateLimits[service] / Math.max(1, instancesCalling(config.actions, service))
  );
};

/** The most instances the enabled actions of one platform service can run at once. */
const instancesCalling = (
  actions: {
    readonly [A in ActionName]: { readonly enabled: boolean; readonly maxConcurrency: number };
  },
  service: 'realtime' | 'provisioning',
): number =>
  ACTIONS.filter((a) => a.service === service && actions[a.name].enabled).reduce(
    (sum, a) => sum + actions[a.name].maxConcurrency,
    0,
  );

/** The smallest per-instance request rate the runtime is given (its variable has 3 decimals). */
const MIN_RATE_SHARE_PER_SECOND = 0.01;

/** The SCIM settings when the endpoint is on; undefined when `scim.enabled` is false. */
export const scimSettingsOf = (config: DeploymentConfig): ScimSettings | undefined => {
  const { enabled, tokenSecretId, defaults, ...rest } = config.scim;
  const { userTemplateName } = defaults;
  // The schema requires both when enabled; checked again so the type needs no cast.
  if (!enabled || tokenSecretId === undefined || userTemplateName === undefined) return undefined;
  return { tokenSecretId, defaults: { ...defaults, userTemplateName }, ...rest };
};
