/**
 * `npm run ops -- <command>`: operator commands for a deployed stack. This file parses the
 * command line and dispatches; `runOps` is the whole CLI as a function, for tests.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ACTION_NAMES, type ActionName, BRAKED_ACTIONS, isActionName } from '../lambdas/actions';
import { formatOf, INPUT_FORMATS, isInputFormat } from '../lambdas/input/input-format';
import { CATEGORIES, categoryHelp } from '../lambdas/reconcile/categories';
import { DEFAULT_RELEASE_RATE, runBrakeDiscard, runBrakeRelease, runBrakeStatus } from './brake';
import { BULK_OPTIONS, DEFAULT_PARALLEL, MAX_PARALLEL, runBulkSend } from './bulk/bulk-send';
import { DEFAULT_LIST_MAX, runExport, runList } from './dead-letters';
import { type Deployment, openDeployment } from './deployment';
import { describeError, exitCodeOf, UsageError } from './errors';
import { type OpsIo, writeLine } from './io';
import { RECONCILE_EXIT } from './reconcile/exit-codes';
import { runReconcileApply } from './reconcile/reconcile-apply';
import { runReconcilePlan } from './reconcile/reconcile-plan';
import { runRedrive } from './redrive';
import { runSend } from './send';
import { runTrace } from './trace';

/** Options of one type, by name: parseArgs's table without the same entry spelled per option. */
const typed = <T extends 'string' | 'boolean', N extends string>(type: T, names: readonly N[]) =>
  Object.fromEntries(names.map((name) => [name, { type }])) as Record<N, { readonly type: T }>;

const OPTIONS = {
  ...typed('string', [
    'config',
    'stack',
    'outputs-file',
    'region',
    'source',
    'max',
    'campaign',
    'campaign-region',
    'rate',
    'format',
    'skip-invalid',
    'checkpoint',
    'parallel',
    'exported-at',
    'out',
    'platform-url',
    'allow-deletes',
  ]),
  ...typed('boolean', ['event-bus', 'show-body', 'per-message', 'force', 'keep-tripped', 'bulk']),
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = keyof typeof OPTIONS;

const COMMON_OPTIONS: readonly OptionName[] = ['config', 'stack', 'outputs-file', 'region', 'help'];

export type CommandName =
  | 'send'
  | 'dlq list'
  | 'dlq redrive'
  | 'dlq export'
  | 'trace'
  | 'brake status'
  | 'brake release'
  | 'brake discard'
  | ReconcileCommand;

/** The commands that take no action: their positionals are files. */
type ReconcileCommand = 'reconcile plan' | 'reconcile apply';

const isReconcile = (name: CommandName): name is ReconcileCommand =>
  name === 'reconcile plan' || name === 'reconcile apply';

export interface CommandSpec {
  readonly usage: string;
  readonly summary: string;
  /** Positionals after the command words. */
  readonly arguments: readonly string[];
  /** The action may be left out (the command then covers every action it applies to). */
  readonly actionOptional?: boolean;
  readonly options: readonly OptionName[];
  readonly help: string;
}

const COMMON_HELP = `Environment options:
  --config <name>        deployment config config/<name>.json (default: example)
  --stack <name>         stack name (default: the config's stack name)
  --outputs-file <file>  read the stack outputs from the file \`cdk deploy --outputs-file\` wrote,
                         instead of calling CloudFormation DescribeStacks
  --region <region>      AWS region of the stack (default: the config's deployment.region, else
                         the SDK's: AWS_REGION or the profile's region)
  -h, --help             this help

AWS access uses the standard SDK configuration: AWS_PROFILE or AWS_ACCESS_KEY_ID /
AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL_<SERVICE>.

Actions: ${ACTION_NAMES.join(', ')}`;

/** Every command with its usage, options and help (exported for the help-coverage test). */
export const COMMANDS: Record<CommandName, CommandSpec> = {
  send: {
    usage:
      'send <action> <file|-> [--bulk] [--format json|jsonl|csv] [--skip-invalid <file>] [--checkpoint <file>] [--parallel N] [--exported-at <time>] [--event-bus [--source <source>]]',
    summary: "validate messages and send them to the action's queue (or bus)",
    arguments: ['action', 'file|-'],
    options: [
      'event-bus',
      'source',
      'bulk',
      'format',
      'skip-invalid',
      'checkpoint',
      'parallel',
      'exported-at',
    ],
    help: `Validates every message in the file (- reads stdin) with the action's schema. If any is
invalid, prints every problem (line or message number and field, never a value) and sends
nothing (exit 1).

A JSON file (one message or an array) is sent as written, one message at a time, printing each
message id. A bulk load (--bulk; implied by a .jsonl, .ndjson or .csv file, by --format jsonl
or csv, and by any option below but --event-bus and --source) reads a file, stamps each message
with a correlation id derived from the file and line (unless it has one) and an occurredAt
(unless it has one: --exported-at, else the file's modification time), sends ten a call,
${DEFAULT_PARALLEL} calls in flight, retries rejected entries, shows progress (count, rate, ETA)
and records every acknowledged message in a checkpoint: rerunning the same command sends only
what is missing. CSV header mapping: docs/operations.md.

Options:
  --bulk                 load the file in batches with a checkpoint (see above)
  --format <format>      ${INPUT_FORMATS.join(', ')} (default: from the extension; .csv, .jsonl/.ndjson, else json)
  --skip-invalid <file>  send the valid messages and write the invalid ones (line, reason) to
                         the file as JSON lines
  --checkpoint <file>    the checkpoint (default: <file>.checkpoint.json)
  --parallel N           batches in flight at once, 1 to ${MAX_PARALLEL} (default ${DEFAULT_PARALLEL})
  --exported-at <time>   occurredAt for messages without one (default: the file's modification
                         time; a resumed load keeps the checkpoint's)
  --event-bus            put EventBridge events on the stack's bus instead (detail-type = action)
  --source <source>      event source with --event-bus (default: the action's first allowed source
                         in the config; must be one of its allowed sources)`,
  },
  'dlq list': {
    usage: 'dlq list <action> [--max N] [--show-body]',
    summary: 'show dead letters with their reasons, without consuming them',
    arguments: ['action'],
    options: ['max', 'show-body'],
    help: `Shows the action's dead letters with their reason attributes (action, errorCategory,
errorCode, errorMessage, sourceMessageId, correlationId) and send / first-receive times. They
stay in the DLQ: each is received, held invisible while listing, then made visible again.
Bodies may hold personal data: only a redacted preview is shown unless --show-body.

Options:
  --max N        show at most N dead letters (default ${DEFAULT_LIST_MAX})
  --show-body    print each body whole`,
  },
  'dlq redrive': {
    usage: 'dlq redrive <action> [--max N] [--per-message]',
    summary: "move dead letters back to the action's queue",
    arguments: ['action'],
    options: ['max', 'per-message'],
    help: `Moves the action's dead letters back to its source queue. Without --max, uses an SQS
message move task when the DLQ is the source queue's redrive DLQ; otherwise (or when SQS refuses
the task) moves them one by one: receive, send a copy without the reason attributes, then delete
the original. A message is never deleted before its copy was sent: a failed send leaves it in
the DLQ (reported), so nothing is lost; at worst a message is duplicated. Exit 1 if any failed.

Options:
  --max N          move at most N dead letters (always message by message)
  --per-message    move message by message even where a move task applies (strips the reason
                   attributes, which a move task keeps)`,
  },
  trace: {
    usage: 'trace <action> <clientId|loginUserId> [--campaign <name>] [--show-body]',
    summary: 'why a record or user is as it is: ledger, dead letters, waiting, log query',
    arguments: ['action', 'clientId|loginUserId'],
    options: ['campaign', 'campaign-region', 'show-body'],
    help: `Shows what the integration knows of one record family (clientId in every campaign; any
record action names the kind) or user (loginUserId; add-user, delete-user or query-user-existence): from the entity
ledger, its events in version order with each one's outcome, the state they replay to, and the
platform state the ledger knows (confirmed, or in doubt after an unanswered call); its dead
letters in the DLQ of every write action of its kind with their reasons (left in place), whether
the source queues still hold messages, and a Logs Insights query for its log lines. Bodies are
redacted unless --show-body.

Options:
  --campaign <name>          only the dead letters of this campaign (the ledger shows them all)
  --campaign-region <region> the record's region (default: the config's campaignRegion)
  --show-body                print dead-letter bodies whole`,
  },
  'brake status': {
    usage: 'brake status [action]',
    summary: 'what the mass-delete brakes count and hold',
    arguments: ['action'],
    actionOptional: true,
    options: [],
    help: `Shows, for each action with a mass-delete brake (${BRAKED_ACTIONS.join(', ')}; only
change-status to REMOVED counts for change-campaign-record-status), or for the one named: its
limit (deleteBrake.<action> in the config), how many destructive messages the rolling window
counted, whether it is tripped and since when, and how many messages its held queue holds
(ApproximateNumberOfMessages). Reads only; changes nothing.`,
  },
  'brake release': {
    usage: 'brake release <action> [--rate N] [--max N]',
    summary: 'let held messages through, at a rate',
    arguments: ['action'],
    options: ['rate', 'max'],
    help: `Re-arms the action's brake with a fresh window, then moves its held messages back to the
action's source queue, body and producer attributes unchanged, marked as released (attribute
brakeReleasedAt) so the brake neither counts nor holds them again. The entity ledger still
orders them: a held delete older than a later re-add of the same user or record is skipped as
stale (STALE_SKIPPED). A message is deleted from the held queue only after its copy was sent;
a failed send leaves it held. Exit 1 if any failed.

Options:
  --rate N    messages per second sent back, at most (default ${DEFAULT_RELEASE_RATE}; N or N/s)
  --max N     release at most N messages (the rest stay held)`,
  },
  'brake discard': {
    usage: 'brake discard <action> [--max N] [--keep-tripped]',
    summary: "move held messages to the action's DLQ (DISCARDED_BY_OPERATOR)",
    arguments: ['action'],
    options: ['max', 'keep-tripped'],
    help: `Re-arms the action's brake with a fresh window, then moves its held messages to the
action's dead-letter queue with the reason attributes every dead letter carries: errorCode
DISCARDED_BY_OPERATOR, errorMessage saying when and why the brake held it. They are not applied;
\`dlq list\` shows them and \`dlq redrive\` could still apply them later. A message is deleted
from the held queue only after its copy was sent. Exit 1 if any failed.

Options:
  --max N           discard at most N messages (the rest stay held)
  --keep-tripped    leave the brake tripped (the source is still sending wrong deletes): new
                    destructive messages keep being held`,
  },
  'reconcile plan': {
    usage: 'reconcile plan <manifest> [--out <plan>] [--platform-url <url>]',
    summary: 'compare a snapshot export with the platform and write the plan (changes nothing)',
    arguments: ['manifest'],
    options: ['out', 'platform-url'],
    help: `Reads the manifest (a local file or s3://bucket/key) and the export beside it, checks them
(exportedAt, row count, SHA-256, no empty file, no duplicate keys, no rows outside the scope),
reads what the platform holds within the scope (criteria searches per campaign, split until no
slice is full; query-existence for each user candidate), and writes the plan, each entity in one
of its categories:
${CATEGORIES.map(categoryHelp).join(', ')}.
Deletes beyond max(N, p %) of the scope, or after the export shrank beyond the guard, are held
whole. Writes a JSON Lines report without data values beside the plan. Exit 0: no changes;
2: changes; 1: refused or failed. Scopes and gates: reconcile.scopes in the config
(docs/operations.md).

Options:
  --out <plan>           where to write the plan (default: <manifest>.plan.jsonl beside it)
  --platform-url <url>   the platform's base URL instead of the config's (a proxy, a simulator)`,
  },
  'reconcile apply': {
    usage: 'reconcile apply <plan> [--allow-deletes <count>] [--parallel N] [--platform-url <url>]',
    summary: "send exactly a plan's repairs to the action queues",
    arguments: ['plan'],
    options: ['allow-deletes', 'parallel', 'platform-url'],
    help: `Sends the plan's repair messages (stamped occurredAt = the export's time, correlation ids
from the snapshot and row) through the bulk sender to the action queues, creates before deletes,
each action's messages checkpointed beside the plan: a second apply sends nothing. The handlers
order them against live events (a newer event wins; tombstones keep deleted entities away) and
the mass-delete brake still applies. Refuses a plan older than reconcile.planMaxAgeHours, one
whose scope has planned or applied a newer snapshot since, and a plan file changed since it was
written or never noted in this deployment's run history (edit nothing in a plan: plan again). Held deletes are sent only when
--allow-deletes names their exact count; the rest of the plan goes either way. Just before
record deletes go, this machine searches each record to delete again on the platform (reading
the API key secret): if an agent has worked one since the plan (WORKED_BY_AGENT), every delete
is held and the plan must be made again; if the platform cannot be read, no delete is sent and
apply exits 1, saying how many repairs went before (a rerun does not send them again).
Exit 0: every repair sent; 3: the rest sent, the deletes held for a person (the last line says
what and the command that releases them); 1: refused or failed, a wrong command line included.

Options:
  --allow-deletes <count>  send the plan's held deletes: the count the plan shows, no other
  --parallel N             batches in flight at once, 1 to ${MAX_PARALLEL} (default ${DEFAULT_PARALLEL})
  --platform-url <url>     the platform's base URL instead of the config's (a proxy, a simulator)`,
  },
  'dlq export': {
    usage: 'dlq export <action> <file|-> [--force]',
    summary: 'save dead letters as JSON lines, without consuming them',
    arguments: ['action', 'file|-'],
    options: ['force'],
    help: `Writes every dead letter of the action as one JSON line (messageId, sentAt,
firstReceivedAt, reason, deliveryFailure, messageAttributes, attributes, body) to the file
(created with mode 0600: bodies may hold personal data; - writes to stdout). The messages stay
in the DLQ.

Options:
  --force    overwrite the file if it exists`,
  },
};

const generalHelp = (): string => {
  const width = Math.max(
    ...Object.values(COMMANDS).map((c) => c.usage.split(' [')[0]?.length ?? 0),
  );
  const lines = Object.values(COMMANDS).map(
    (c) => `  ${(c.usage.split(' [')[0] ?? '').padEnd(width)}  ${c.summary}`,
  );
  return `Usage: npm run ops -- <command> [options]

Operator commands for a deployed contact-center-sync stack.

Commands:
${lines.join('\n')}

${COMMON_HELP}

\`npm run ops -- <command> --help\` shows a command's own options.`;
};

const commandHelp = (name: CommandName): string => {
  const spec = COMMANDS[name];
  return `Usage: npm run ops -- ${spec.usage} [environment options]

${spec.help}

${COMMON_HELP}`;
};

/** Commands of a group (`dlq`, `brake`), listed when the group is named without one of them. */
const groupHelp = (group: string): string | undefined => {
  const members = Object.entries(COMMANDS)
    .filter(([name]) => name.startsWith(`${group} `))
    .map(([, spec]) => spec);
  if (members.length === 0) return undefined;
  const width = Math.max(...members.map((c) => c.usage.split(' [')[0]?.length ?? 0));
  const lines = members.map(
    (c) => `  ${(c.usage.split(' [')[0] ?? '').padEnd(width)}  ${c.summary}`,
  );
  return `Usage: npm run ops -- ${group} <subcommand> [options]

Subcommands:
${lines.join('\n')}

\`npm run ops -- ${group} <subcommand> --help\` shows a subcommand's own options.`;
};

/** The command the positionals name, and the positionals after it. */
const findCommand = (
  positionals: readonly string[],
): { name: CommandName; rest: readonly string[] } | undefined => {
  const [first, second, ...tail] = positionals;
  if (first === 'send') return { name: 'send', rest: positionals.slice(1) };
  if (first === 'trace') return { name: 'trace', rest: positionals.slice(1) };
  if ((first === 'dlq' || first === 'brake' || first === 'reconcile') && second !== undefined) {
    const name = `${first} ${second}`;
    if (name in COMMANDS) return { name: name as CommandName, rest: tail };
  }
  return undefined;
};

const parseAction = (value: string): ActionName => {
  if (!isActionName(value)) {
    throw new UsageError(`Unknown action "${value}". Valid actions: ${ACTION_NAMES.join(', ')}`);
  }
  return value;
};

const parseRate = (value: string | undefined): number => {
  if (value === undefined) return DEFAULT_RELEASE_RATE;
  const match = /^(\d{1,4}(?:\.\d{1,3})?)(?:\/s)?$/.exec(value);
  const rate = match ? Number(match[1]) : Number.NaN;
  if (!(rate > 0 && rate <= 1000)) {
    throw new UsageError(
      `--rate must be messages per second from 0.001 to 1000 (e.g. 5 or 5/s), got "${value}"`,
    );
  }
  return rate;
};

const parseParallel = (value: string | undefined): number => {
  if (value === undefined) return DEFAULT_PARALLEL;
  const parallel = /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!(parallel >= 1 && parallel <= MAX_PARALLEL)) {
    throw new UsageError(
      `--parallel must be a whole number from 1 to ${MAX_PARALLEL}, got "${value}"`,
    );
  }
  return parallel;
};

const parseFormat = (value: string | undefined) => {
  if (value === undefined || isInputFormat(value)) return value;
  throw new UsageError(`--format must be one of ${INPUT_FORMATS.join(', ')}, got "${value}"`);
};

const parseMax = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const max = /^[1-9]\d{0,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(max)) {
    throw new UsageError(`--max must be a whole number from 1 to 9999999, got "${value}"`);
  }
  return max;
};

type ParsedValues = { [name in OptionName]?: string | boolean | undefined };

const stringOption = (values: ParsedValues, name: OptionName): string | undefined => {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
};

const parseAllowDeletes = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) {
    throw new UsageError(
      `--allow-deletes must be the number of deletes the plan holds, got "${value}"`,
    );
  }
  return Number(value);
};

const deploymentOf = (values: ParsedValues, io: OpsIo) =>
  openDeployment(
    {
      configName: stringOption(values, 'config') ?? 'example',
      stackName: stringOption(values, 'stack'),
      outputsFile: stringOption(values, 'outputs-file'),
      region: stringOption(values, 'region'),
    },
    io.clients,
  );

/** The options that choose the deployment: a command printed for the operator repeats them. */
const ENVIRONMENT_OPTIONS = ['config', 'stack', 'outputs-file', 'region'] as const;

const flag = (values: ParsedValues, name: OptionName): boolean => values[name] === true;

/** A command line, checked: what a command's run reads of it. */
interface CommandLine {
  readonly deployment: Deployment;
  /** The action named; `brake status` alone may leave it out, and a reconcile command names none. */
  readonly chosen: ActionName | undefined;
  /** `chosen`, for the commands that must have one (the check before has made sure). */
  readonly action: ActionName;
  /** The positional after the action (a reconcile command's first): a file, `-`, or an id. */
  readonly file: string;
  readonly max: number | undefined;
  readonly values: ParsedValues;
}

/** Each command's run, given its checked command line. */
const RUNS: {
  readonly [N in CommandName]: (line: CommandLine, io: OpsIo) => Promise<number>;
} = {
  send: ({ deployment, action, file, values }, io) => {
    const format = parseFormat(stringOption(values, 'format'));
    const send = {
      action,
      input: file,
      eventBus: flag(values, 'event-bus'),
      source: stringOption(values, 'source'),
    };
    const bulk =
      flag(values, 'bulk') ||
      (format ?? formatOf(file)) !== 'json' ||
      BULK_OPTIONS.some((name) => values[name] !== undefined);
    if (!bulk) return runSend(deployment, send, io);
    return runBulkSend(
      deployment,
      {
        ...send,
        format,
        skipInvalid: stringOption(values, 'skip-invalid'),
        checkpoint: stringOption(values, 'checkpoint'),
        parallel: parseParallel(stringOption(values, 'parallel')),
        exportedAt: stringOption(values, 'exported-at'),
      },
      io,
    );
  },
  'dlq list': ({ deployment, action, max, values }, io) =>
    runList(
      deployment,
      { action, max: max ?? DEFAULT_LIST_MAX, showBody: flag(values, 'show-body') },
      io,
    ),
  'dlq redrive': ({ deployment, action, max, values }, io) =>
    runRedrive(deployment, { action, max, perMessage: flag(values, 'per-message') }, io),
  'dlq export': ({ deployment, action, file, values }, io) =>
    runExport(deployment, { action, file, force: flag(values, 'force') }, io),
  'brake status': ({ deployment, chosen }, io) =>
    runBrakeStatus(deployment, { action: chosen }, io),
  'brake release': ({ deployment, action, max, values }, io) =>
    runBrakeRelease(
      deployment,
      { action, ratePerSecond: parseRate(stringOption(values, 'rate')), max },
      io,
    ),
  'brake discard': ({ deployment, action, max, values }, io) =>
    runBrakeDiscard(deployment, { action, max, keepTripped: flag(values, 'keep-tripped') }, io),
  trace: ({ deployment, action, file, values }, io) =>
    runTrace(
      deployment,
      {
        action,
        id: file,
        campaign: stringOption(values, 'campaign'),
        region: stringOption(values, 'campaign-region'),
        showBody: flag(values, 'show-body'),
      },
      io,
    ),
  'reconcile plan': ({ deployment, file, values }, io) =>
    runReconcilePlan(
      deployment,
      {
        manifest: file,
        out: stringOption(values, 'out'),
        platformUrl: stringOption(values, 'platform-url'),
      },
      io,
    ),
  'reconcile apply': ({ deployment, file, values }, io) =>
    runReconcileApply(
      deployment,
      {
        plan: file,
        platformUrl: stringOption(values, 'platform-url'),
        allowDeletes: parseAllowDeletes(stringOption(values, 'allow-deletes')),
        parallel: parseParallel(stringOption(values, 'parallel')),
        environment: ENVIRONMENT_OPTIONS.flatMap((option) => {
          const value = stringOption(values, option);
          return value === undefined ? [] : [`--${option}`, value];
        }),
      },
      io,
    ),
};

type CommandArguments = Pick<CommandLine, 'chosen' | 'file'>;

/** A reconcile command's positionals: its one file, and no action. */
const fileArgument = (spec: CommandSpec, rest: readonly string[]): CommandArguments => {
  if (rest.length !== spec.arguments.length) {
    throw new UsageError(`Usage: npm run ops -- ${spec.usage}`);
  }
  return { chosen: undefined, file: rest[0] ?? '' };
};

/** The action and the positional after it (`-`, stdin, when none is given). */
const actionArguments = (spec: CommandSpec, rest: readonly string[]): CommandArguments => {
  const [actionArgument, ...extra] = rest;
  if (actionArgument === undefined && spec.actionOptional !== true) {
    throw new UsageError(
      `Usage: npm run ops -- ${spec.usage}\nValid actions: ${ACTION_NAMES.join(', ')}`,
    );
  }
  const chosen = actionArgument === undefined ? undefined : parseAction(actionArgument);
  if (chosen !== undefined && extra.length !== spec.arguments.length - 1) {
    throw new UsageError(`Usage: npm run ops -- ${spec.usage}`);
  }
  return { chosen, file: extra[0] ?? '-' };
};

/**
 * The command line names a `reconcile` command: its errors are all 1, a wrong command line
 * included, because 2 means "changes" to a script that runs `reconcile plan` (as Terraform's
 * detailed exit code does). Read leniently, so that an unknown option still shows the command.
 */
const isReconcileLine = (argv: readonly string[]): boolean => {
  try {
    const { positionals } = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: false,
    });
    return positionals[0] === 'reconcile';
  } catch {
    return false;
  }
};

const run = async (argv: readonly string[], io: OpsIo): Promise<number> => {
  let parsed: { values: ParsedValues; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nRun \`npm run ops -- --help\` for usage.`);
  }
  const { values, positionals } = parsed;
  const command = findCommand(positionals);

  if (positionals.length === 0 || positionals[0] === 'help') {
    const topic = findCommand(positionals.slice(1));
    writeLine(io.stdout, topic === undefined ? generalHelp() : commandHelp(topic.name));
    return 0;
  }
  if (command === undefined) {
    const group = positionals.length === 1 ? groupHelp(positionals[0] ?? '') : undefined;
    if (group !== undefined && values.help) {
      writeLine(io.stdout, group);
      return 0;
    }
    if (group !== undefined) throw new UsageError(group);
    const known = Object.keys(COMMANDS).join(', ');
    throw new UsageError(
      `Unknown command "${positionals.slice(0, 2).join(' ')}". Commands: ${known}. Run \`npm run ops -- --help\` for usage.`,
    );
  }
  if (values.help) {
    writeLine(io.stdout, commandHelp(command.name));
    return 0;
  }
  const spec = COMMANDS[command.name];
  const allowed = new Set<string>([...COMMON_OPTIONS, ...spec.options]);
  for (const name of Object.keys(values)) {
    if (!allowed.has(name)) {
      throw new UsageError(
        `--${name} does not apply to ${command.name} (see \`npm run ops -- ${command.name} --help\`)`,
      );
    }
  }
  const { chosen, file } = isReconcile(command.name)
    ? fileArgument(spec, command.rest)
    : actionArguments(spec, command.rest);
  const max = parseMax(stringOption(values, 'max'));
  if (values.source !== undefined && !values['event-bus']) {
    throw new UsageError('--source only applies with --event-bus');
  }
  return RUNS[command.name](
    {
      deployment: deploymentOf(values, io),
      chosen,
      // Only `brake status` may name no action; the reconcile commands' runs read none.
      action: chosen ?? ('' as ActionName),
      file,
      max,
      values,
    },
    io,
  );
};

/**
 * Runs one operator command; resolves to the exit code (0 ok, 1 failed, 2 usage error,
 * 130 interrupted; `reconcile`: ops/reconcile/exit-codes.ts). Errors are written to `io.stderr` as one clear message, never thrown.
 */
export const runOps = async (argv: readonly string[], io: OpsIo): Promise<number> => {
  try {
    return await run(argv, io);
  } catch (error) {
    writeLine(io.stderr, `Error: ${describeError(error)}`);
    return isReconcileLine(argv) ? RECONCILE_EXIT.error : exitCodeOf(error);
  }
};

/** True when run as the program (`tsx ops/main.ts`), false when imported (tests). */
const isEntryPoint = (): boolean => {
  // `import.meta.main` needs Node 22.18+/24.2+; the path comparison covers older runtimes.
  if (typeof import.meta.main === 'boolean') return import.meta.main;
  const entry = process.argv[1];
  return entry !== undefined && path.resolve(entry) === fileURLToPath(import.meta.url);
};

if (isEntryPoint()) {
  const controller = new AbortController();
  process.on('SIGINT', () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write(
      '\nStopping (held messages are released)… Ctrl-C again to quit at once.\n',
    );
    controller.abort();
  });
  process.exitCode = await runOps(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    signal: controller.signal,
  });
}
