/**
 * `npm run simulator -- --port 4010 --api-key <key> ...`: runs the platform simulator until
 * SIGINT/SIGTERM. Prints exactly one line, `simulator listening on <baseUrl>`, once listening.
 */
import { parseArgs } from 'node:util';
import { type FaultSettings, validateFaultSettings } from './faults';
import { startSimulator } from './index';
import { npmAncestor, whenGone } from './launcher-watch';
import type { UserDirectory } from './provisioning-service';

export const CLI_DEFAULTS = {
  port: '4010',
  host: '127.0.0.1',
  apiKey: 'local-api-key',
  platformCode: 'CCPLATFORM',
  companyCode: 'acme',
  environment: 'dev',
} as const;

const USAGE = `Usage: npm run simulator -- [options]
  --port <n>                 listen port (0 = any free port)           default ${CLI_DEFAULTS.port}
  --host <addr>              listen address                              default ${CLI_DEFAULTS.host}
  --api-key <key>            accepted X-sc-company-api-key               default ${CLI_DEFAULTS.apiKey}
  --platform-code <code>     <PLATFORM_CODE>                             default ${CLI_DEFAULTS.platformCode}
  --company-code <code>      <COMPANY_ALIAS>                             default ${CLI_DEFAULTS.companyCode}
  --environment <name>       <ENVIRONMENT_NAME>                          default ${CLI_DEFAULTS.environment}
  --secrets-region <region>  required X-sc-secrets-region (default: any AWS region name)
  --campaigns <a,b,...>      only these campaigns exist (default: any name, created on demand)
  --user-directory <kind>    saml | directory | internal                 default saml
  --latency-ms <ms>          added to every spec request
  --error-rate <0..1>        share answered HTTP 500/502/503
  --throttle-rate <0..1>     share answered HTTP 429
  --retry-after <seconds>    Retry-After on 429 answers
  --rate-limit <n>           spec requests per second before HTTP 429 (Retry-After 1)
  --reset-rate <0..1>        share whose connection is reset
  --failed-rate <0..1>       share answered 200 FAILED / FAIL (not applied)
  --malformed-rate <0..1>    share answered 200 with an HTML page
  --hang-rate <0..1>         share never answered
  --lost-response-rate <0..1> share applied, then the connection is reset
  --seed <n>                 fault RNG seed                              default 1
  --help`;

const number = (name: string, raw: string | undefined): number | undefined => {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw new Error(`--${name} must be a number`);
  return value;
};

const USER_DIRECTORIES: readonly UserDirectory[] = ['saml', 'directory', 'internal'];

const main = async (): Promise<void> => {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: CLI_DEFAULTS.port },
      host: { type: 'string', default: CLI_DEFAULTS.host },
      'api-key': { type: 'string', default: CLI_DEFAULTS.apiKey },
      'platform-code': { type: 'string', default: CLI_DEFAULTS.platformCode },
      'company-code': { type: 'string', default: CLI_DEFAULTS.companyCode },
      environment: { type: 'string', default: CLI_DEFAULTS.environment },
      'secrets-region': { type: 'string' },
      campaigns: { type: 'string' },
      'user-directory': { type: 'string', default: 'saml' },
      'latency-ms': { type: 'string' },
      'error-rate': { type: 'string' },
      'throttle-rate': { type: 'string' },
      'retry-after': { type: 'string' },
      'rate-limit': { type: 'string' },
      'reset-rate': { type: 'string' },
      'failed-rate': { type: 'string' },
      'malformed-rate': { type: 'string' },
      'hang-rate': { type: 'string' },
      'lost-response-rate': { type: 'string' },
      seed: { type: 'string', default: '1' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const userDirectory = values['user-directory'] as UserDirectory;
  if (!USER_DIRECTORIES.includes(userDirectory)) {
    throw new Error(`--user-directory must be one of ${USER_DIRECTORIES.join(', ')}`);
  }
  const faultFlags: readonly [keyof FaultSettings, string][] = [
    ['latencyMs', 'latency-ms'],
    ['serverErrorRate', 'error-rate'],
    ['throttleRate', 'throttle-rate'],
    ['retryAfterSeconds', 'retry-after'],
    ['rateLimitPerSecond', 'rate-limit'],
    ['connectionResetRate', 'reset-rate'],
    ['failedStatusRate', 'failed-rate'],
    ['malformedBodyRate', 'malformed-rate'],
    ['hangRate', 'hang-rate'],
    ['lostResponseRate', 'lost-response-rate'],
  ];
  const faults: Record<string, number> = {};
  for (const [setting, flag] of faultFlags) {
    const value = number(flag, values[flag as keyof typeof values] as string | undefined);
    if (value !== undefined) faults[setting] = value;
  }
  try {
    validateFaultSettings(faults);
  } catch (error) {
    // Name the flag the user typed, not the setting behind it.
    let message = (error as Error).message;
    for (const [setting, flag] of faultFlags) {
      message = message.replace(`fault setting "${setting}"`, `--${flag}`);
    }
    throw new Error(message.replace('fault rates', 'the --*-rate flags'));
  }
  const campaigns = values.campaigns
    ?.split(',')
    .map((c) => c.trim())
    .filter((c) => c.length > 0);

  const simulator = await startSimulator({
    port: number('port', values.port) ?? 0,
    host: values.host,
    apiKey: values['api-key'],
    platformCode: values['platform-code'],
    companyCode: values['company-code'],
    environmentName: values.environment,
    ...(values['secrets-region'] ? { secretsRegion: values['secrets-region'] } : {}),
    ...(campaigns ? { campaigns } : {}),
    userDirectory,
    faults,
    seed: number('seed', values.seed) ?? 1,
  });
  console.log(`simulator listening on ${simulator.baseUrl}`);

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    simulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const launcher = npmAncestor();
  if (launcher !== undefined) whenGone(launcher, stop);
};

main().catch((error: unknown) => {
  console.error(`simulator: ${error instanceof Error ? error.message : String(error)}`);
  console.error(USAGE);
  process.exit(2);
});
