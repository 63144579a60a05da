/**
 * `npm start`: the whole integration on one machine. See docs/local-run.md.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isErrorOf } from '../lambdas/core/errors';
import { PythonToolsUnavailableError } from './backends';
import { executeReconcileRun } from './run/reconcile';
import { plainStyle, streamStyle } from './run/report';
import { EXIT, executeRun } from './run/run';
import { executeScimRun } from './run/scim';

const ROOT = path.resolve(import.meta.dirname, '..');

export const USAGE = `Usage: npm start [-- <options>]

Runs the whole integration locally: the platform simulator, the example CRM and HR events in
examples/, the real handlers over SQS semantics (batches, partial batch failures, redelivery
after the visibility timeout, maxReceiveCount, DLQ). Prints one line per message, a summary
per action and the simulator's final state.

Options:
  --events <file-or-folder>  run these events instead of examples/ (.json array or .jsonl;
                             a folder runs its files in name order, one phase each)
  --faults                   simulator faults (5xx, 429 + Retry-After, resets, lost responses,
                             latency), one API key rotation and one failed DLQ send
  --chaos [seed]             the events as real traffic delivers them: shuffled, some twice,
                             all queues at once, with faults; then checks every record and
                             user against the same events applied once each, in order, to
                             a second simulator (seed: 1)
  --outage <duration>        the platform is down for this long from the start (e.g. 6h, 90m,
                             45s), in virtual time: messages wait, the circuit breaker opens,
                             probes, closes, and the backlog drains with no dead letters
  --aws-emulator             the same run through moto server (SQS, EventBridge rules,
                             Secrets Manager, DynamoDB); needs Python 3 with venv and pip
  --deployed                 deploys config/example.json's stack into MiniStack (an emulated
                             account, IAM enforced) and sends the events to its bus: its
                             rules, queues, mappings and bundled functions run them; fates
                             read from the function logs, DLQs and result events (about a
                             minute; Python 3 as for --aws-emulator; takes --events only)
  --reconcile                reconciliation instead of the example day: seeds drift (a leaver
                             still provisioned, an unmanaged user, a record missing, one
                             edited, one extra, a campaign of 1200 records), plans, applies
                             through the real handlers, and plans again (no changes)
  --scim                     the SCIM 2.0 endpoint instead: serves /scim/v2 on loopback
                             against the simulator, prints its URL, bearer token and the
                             simulator's URL, then replays Entra ID's and Okta's requests
                             for one joiner and checks the platform after each
  --serve                    with --scim: keep serving after the replay until Ctrl+C, for
                             an IdP-like client (curl, scim2-cli, a conformance tester)
  -h, --help                 show this help

Exit codes: 0 every message ended where it should, 1 some did not (listed at the end),
2 the run could not start (bad input, or Python missing for --aws-emulator or --deployed).`;

/** "6h", "90m", "45s" (or a sum such as "1h30m") in ms; null when it is not one. */
export const parseDuration = (text: string): number | null => {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text.trim());
  if (!match || text.trim() === '') return null;
  const [, h = '0', m = '0', s = '0'] = match;
  const ms = (Number(h) * 3600 + Number(m) * 60 + Number(s)) * 1000;
  return ms > 0 ? ms : null;
};

const fail = (message: string): number => {
  process.stderr.write(`${message}\n`);
  return EXIT.cannotRun;
};

const main = async (argv: readonly string[]): Promise<number> => {
  let values: {
    events?: string;
    faults?: boolean;
    chaos?: boolean;
    outage?: string;
    'aws-emulator'?: boolean;
    deployed?: boolean;
    reconcile?: boolean;
    scim?: boolean;
    serve?: boolean;
    help?: boolean;
  };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: {
        events: { type: 'string' },
        faults: { type: 'boolean', default: false },
        chaos: { type: 'boolean', default: false },
        outage: { type: 'string' },
        'aws-emulator': { type: 'boolean', default: false },
        deployed: { type: 'boolean', default: false },
        reconcile: { type: 'boolean', default: false },
        scim: { type: 'boolean', default: false },
        serve: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      // Only the seed of --chaos.
      allowPositionals: true,
    }));
  } catch (error) {
    return fail(`${(error as Error).message}\n\n${USAGE}`);
  }
  const [seedText, ...extra] = positionals;
  const seed = seedText === undefined ? 1 : Number(seedText);
  if (extra.length > 0 || (seedText !== undefined && !values.chaos)) {
    return fail(`Unexpected argument "${extra[0] ?? seedText}"\n\n${USAGE}`);
  }
  if (!Number.isSafeInteger(seed) || seed < 0) {
    return fail(`--chaos takes a whole number as its seed, got "${seedText}"\n\n${USAGE}`);
  }
  const outageMs = values.outage === undefined ? undefined : parseDuration(values.outage);
  if (outageMs === null) {
    return fail(
      `--outage takes a duration such as 6h, 90m or 45s, got "${values.outage}"\n\n${USAGE}`,
    );
  }
  if (outageMs !== undefined && values['aws-emulator']) {
    return fail(
      `--outage runs in virtual time and cannot be combined with --aws-emulator (real time)\n\n${USAGE}`,
    );
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }

  if (
    values.deployed &&
    (values.faults ||
      values.chaos ||
      outageMs !== undefined ||
      values['aws-emulator'] ||
      values.reconcile ||
      values.scim)
  ) {
    return fail(
      `--deployed runs the events through the deployed stack; it takes only --events\n\n${USAGE}`,
    );
  }
  const out = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  if (
    values.reconcile &&
    (values.events !== undefined || values.faults || values.chaos || outageMs !== undefined)
  ) {
    return fail(`--reconcile runs its own drift; it takes only --aws-emulator\n\n${USAGE}`);
  }
  if (values.serve && !values.scim) {
    return fail(`--serve only applies with --scim\n\n${USAGE}`);
  }
  if (
    values.scim &&
    (values.reconcile ||
      values['aws-emulator'] ||
      values.events !== undefined ||
      values.faults ||
      values.chaos ||
      outageMs !== undefined)
  ) {
    return fail(`--scim runs its own requests; it takes only --serve\n\n${USAGE}`);
  }
  try {
    if (values.scim) {
      return await executeScimRun({
        root: ROOT,
        out,
        style: process.stdout.isTTY ? streamStyle(process.stdout) : plainStyle,
        serve: values.serve === true,
      });
    }
    if (values.reconcile) {
      return await executeReconcileRun({
        root: ROOT,
        out,
        progressOut: process.stderr,
        style: process.stdout.isTTY ? streamStyle(process.stdout) : plainStyle,
        ...(values['aws-emulator'] ? { backend: 'aws-emulator' as const } : {}),
      });
    }
    return await executeRun({
      root: ROOT,
      // npm runs scripts from the package root; INIT_CWD is where the user typed the command.
      cwd: process.env.INIT_CWD ?? process.cwd(),
      ...(values.events === undefined ? {} : { events: values.events }),
      faults: values.faults === true,
      ...(values.chaos ? { chaos: seed } : {}),
      ...(outageMs === undefined ? {} : { outageMs }),
      out,
      progressOut: process.stderr,
      style: process.stdout.isTTY ? streamStyle(process.stdout) : plainStyle,
      ...(values['aws-emulator'] ? { backend: 'aws-emulator' as const } : {}),
      ...(values.deployed ? { backend: 'deployed' as const } : {}),
    });
  } catch (error) {
    if (error instanceof PythonToolsUnavailableError) {
      return fail(
        `--${values.deployed ? 'deployed' : 'aws-emulator'} cannot run: ${error.message}`,
      );
    }
    if (isErrorOf(error, 'usage')) return fail(error.message);
    throw error;
  }
};

process.exitCode = await main(process.argv.slice(2));
