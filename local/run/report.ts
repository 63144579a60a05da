import { styleText } from 'node:util';
import { ACTION_NAMES } from '../../lambdas/actions';
import { isOwnCode, isSkip as isSkipCode } from '../../lambdas/core/pipeline/outcome';
import { counted } from '../../ops/counted';
import type { StateSnapshot, StatsSnapshot } from '../simulator';
import { WORKED_STATES } from '../simulator';
import type { Verdict } from './expectations';
import type { FateKind, MessageFate, PhaseInfo, RetryInfo } from './pipeline';

/** The output stays readable in a 100-column terminal. */
export const LINE_WIDTH = 100;

export interface Style {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly good: (text: string) => string;
  readonly bad: (text: string) => string;
  readonly warn: (text: string) => string;
}

const same = (text: string): string => text;

export const plainStyle: Style = { bold: same, dim: same, good: same, bad: same, warn: same };

/**
 * Colours only where the stream is a terminal (and NO_COLOR / FORCE_COLOR are respected):
 * `styleText` checks the stream itself.
 */
export const streamStyle = (stream: NodeJS.WriteStream): Style => {
  const paint =
    (format: Parameters<typeof styleText>[0]) =>
    (text: string): string =>
      styleText(format, text, { stream });
  return {
    bold: paint('bold'),
    dim: paint('dim'),
    good: paint('green'),
    bad: paint('red'),
    warn: paint('yellow'),
  };
};

const pad = (text: string, width: number): string => text.padEnd(width);
const right = (text: string | number, width: number): string => String(text).padStart(width);

/** Word-wraps `text` after `indent` to the line width; at most `maxLines` lines. */
export const wrap = (text: string, indent: number, maxLines = 3): string[] => {
  const width = LINE_WIDTH - indent;
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (candidate.length <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    line = word.length > width ? `${word.slice(0, width - 1)}…` : word;
  }
  if (line !== '') lines.push(line);
  if (lines.length > maxLines) {
    const kept = lines.slice(0, maxLines);
    const last = kept[maxLines - 1] ?? '';
    kept[maxLines - 1] = `${last.slice(0, width - 1)}…`;
    return kept.map((l) => `${' '.repeat(indent)}${l}`);
  }
  return lines.map((l) => `${' '.repeat(indent)}${l}`);
};

const FATE_LABEL: Readonly<Record<FateKind, string>> = {
  applied: 'applied',
  held: 'HELD',
  'dead-lettered': 'DLQ',
  redriven: 'REDRIVEN',
  unrouted: 'UNROUTED',
  lost: 'LOST',
};

/** Column widths of the per-message lines. */
const COLUMNS = { fate: 9, action: 31, correlationId: 25, code: 21 } as const;

export const messageHeader = (style: Style): string =>
  style.dim(
    `  ${pad('fate', COLUMNS.fate)}${pad('action', COLUMNS.action)}${pad('correlation id', COLUMNS.correlationId)}${pad('outcome', COLUMNS.code)}receives`,
  );

/** Cuts `text` to `width` characters, marking the cut with `…` (long generated ids). */
const cut = (text: string, width: number): string =>
  text.length <= width ? text : `${text.slice(0, width - 1)}…`;

const columns = (
  fate: string,
  action: string,
  correlationId: string,
  code: string,
  receives: string,
): string =>
  `  ${pad(fate, COLUMNS.fate - 1)} ${pad(cut(action, COLUMNS.action - 1), COLUMNS.action - 1)} ${pad(cut(correlationId, COLUMNS.correlationId - 1), COLUMNS.correlationId - 1)} ${pad(cut(code, COLUMNS.code - 1), COLUMNS.code - 1)} ${receives}`;

/**
 * One message's final fate: a fixed-column line (fate, action, correlation id, outcome code,
 * receives) and, indented below it, the DLQ / unrouted reason or a read's result.
 */
export const formatFate = (fate: MessageFate, style: Style): string[] => {
  const label = FATE_LABEL[fate.kind];
  const paint =
    fate.kind === 'applied'
      ? style.good
      : fate.kind === 'dead-lettered' || fate.kind === 'held'
        ? style.warn
        : style.bad;
  const lines = [
    columns(
      paint(pad(label, COLUMNS.fate - 1)),
      fate.action ?? fate.detailType,
      fate.correlationId,
      fate.code,
      String(fate.receives),
    ),
  ];
  if (fate.reason) {
    const category = fate.reason.category ? `${fate.reason.category} · ` : '';
    lines.push(...wrap(`reason: ${category}${fate.reason.message}`, 6).map(style.dim));
  }
  if (fate.result) lines.push(style.dim(`      result: ${fate.result}`));
  return lines;
};

/** A failed receive that SQS will redeliver after the visibility timeout. */
export const formatRetry = (info: RetryInfo, style: Style): string =>
  style.dim(
    columns(
      'retry',
      info.action,
      info.correlationId,
      info.code,
      `${info.receive}/${info.maxReceiveCount}`,
    ),
  );

export const formatPhase = (info: PhaseInfo, style: Style): string => {
  const unrouted = info.events - info.routed;
  const routing = `${counted(info.events, 'event')}, ${info.routed} routed${unrouted > 0 ? `, ${unrouted} unrouted` : ''}`;
  return style.bold(`Phase ${info.index}/${info.total}  ${info.file}  (${routing})`);
};

/** Outcomes of messages the ledger knowingly did not send (counted, never lost). */
const isSkip = (code: string): boolean => isOwnCode(code) && isSkipCode(code);

export interface ActionTotals {
  received: number;
  applied: number;
  already: number;
  /** Stale, duplicate or no effect: knowingly not sent (newer state already there, or no record at its time). */
  skipped: number;
  deadLettered: number;
  /** Parked by the mass-delete brake (not a column: shown in the verdict when any). */
  held: number;
  redriven: number;
  lost: number;
  retries: number;
}

const emptyTotals = (): ActionTotals => ({
  received: 0,
  applied: 0,
  already: 0,
  skipped: 0,
  deadLettered: 0,
  held: 0,
  redriven: 0,
  lost: 0,
  retries: 0,
});

/** Per-action counts of the messages that reached a queue. */
export const totalsByAction = (fates: readonly MessageFate[]): Map<string, ActionTotals> => {
  const totals = new Map<string, ActionTotals>();
  for (const fate of fates) {
    if (fate.kind === 'unrouted' || fate.action === undefined) continue;
    const row = totals.get(fate.action) ?? emptyTotals();
    row.received += 1;
    row.retries += Math.max(0, fate.receives - 1);
    if (fate.kind === 'applied') {
      if (fate.code.startsWith('ALREADY_')) row.already += 1;
      else if (isSkip(fate.code)) row.skipped += 1;
      else row.applied += 1;
    } else if (fate.kind === 'dead-lettered') row.deadLettered += 1;
    else if (fate.kind === 'held') row.held += 1;
    else if (fate.kind === 'redriven') row.redriven += 1;
    else row.lost += 1;
    totals.set(fate.action, row);
  }
  return totals;
};

const SUMMARY_COLUMNS: readonly [keyof ActionTotals, string][] = [
  ['received', 'received'],
  ['applied', 'applied'],
  ['already', 'already'],
  ['skipped', 'skipped'],
  ['deadLettered', 'DLQ'],
  ['redriven', 'redrive'],
  ['lost', 'lost'],
  ['retries', 'retries'],
];

/**
 * The table per action: received (reached the queue), applied, already (the desired state was
 * in place: ALREADY_*), skipped (stale, duplicate, or no effect at the event's time), DLQ
 * (dead-lettered with a reason), redrive (moved by the redrive policy, no reason), lost,
 * retries (SQS redeliveries). Below it, the handlers' own HTTP retries within one receive,
 * which the table's retries do not count.
 */
export const formatSummary = (
  fates: readonly MessageFate[],
  inProcessRetries: number | undefined,
  style: Style,
): string[] => {
  const totals = totalsByAction(fates);
  const row = (name: string, values: ActionTotals): string =>
    `  ${pad(name, 31)}${SUMMARY_COLUMNS.map(([key]) => right(values[key], 8)).join('')}`;
  const lines = [
    style.bold('Summary per action'),
    style.dim(
      `  ${pad('action', 31)}${SUMMARY_COLUMNS.map(([, title]) => right(title, 8)).join('')}`,
    ),
  ];
  const sum = emptyTotals();
  for (const action of ACTION_NAMES) {
    const values = totals.get(action) ?? emptyTotals();
    for (const [key] of SUMMARY_COLUMNS) sum[key] += values[key];
    lines.push(row(action, values));
  }
  lines.push(style.bold(row('total', sum)));
  const unrouted = fates.filter((f) => f.kind === 'unrouted').length;
  lines.push(
    unrouted === 0
      ? '  unrouted events: 0'
      : style.warn(
          `  unrouted events: ${unrouted} (no rule matched; EventBridge would drop them silently)`,
        ),
    inProcessRetries === undefined
      ? '  in-process HTTP retries: not observed (the deployed functions count them in EMF metrics only)'
      : `  in-process HTTP retries: ${inProcessRetries} (within a receive; the retries column counts SQS redeliveries)`,
  );
  return lines;
};

export interface PlatformReport {
  readonly state: StateSnapshot;
  readonly stats: StatsSnapshot;
  readonly secretReads: number | undefined;
  readonly resultEvents: number;
  readonly keyRotations: number;
}

/**
 * The simulator's final state: records per campaign and state, users. Users are counted, not
 * listed: login ids and names are personal data.
 */
export const formatPlatform = (report: PlatformReport, style: Style): string[] => {
  const { state, stats } = report;
  const lines = [
    style.bold('Platform simulator, final state'),
    style.dim(
      `  ${pad('campaign', 31)}${WORKED_STATES.map((s) => right(s, 11)).join('')}${right('total', 8)}`,
    ),
  ];
  if (state.campaigns.length === 0) lines.push('  (no campaigns)');
  for (const campaign of state.campaigns) {
    const counts = WORKED_STATES.map(
      (s) => campaign.records.filter((record) => record.workedState === s).length,
    );
    lines.push(
      `  ${pad(campaign.name, 31)}${counts.map((c) => right(c, 11)).join('')}${right(campaign.records.length, 8)}`,
    );
  }
  const templates = new Map<string, number>();
  for (const user of state.users) {
    templates.set(user.userTemplateName, (templates.get(user.userTemplateName) ?? 0) + 1);
  }
  const inInstance = state.users.filter((u) => u.inCloudConnect).length;
  const byTemplate = [...templates.entries()].map(([name, n]) => `${name}: ${n}`).join(', ');
  lines.push(
    ...wrap(
      `users: ${state.users.length}${byTemplate ? ` (template ${byTemplate})` : ''}, ${inInstance} also in the contact-center instance`,
      2,
    ),
  );
  const faults = Object.values(stats.faults).reduce((a, b) => a + b, 0);
  lines.push(
    `  platform requests: ${stats.requests} (HTTP 401: ${stats.unauthorized}, faults injected: ${faults})`,
    `  API key reads: ${report.secretReads ?? 'n/a'}, key rotations: ${report.keyRotations}, result events published: ${report.resultEvents}`,
  );
  return lines;
};

/** The closing verdict: counts by fate, expectations, and every problem that fails the run. */
export const formatVerdict = (
  fates: readonly MessageFate[],
  verdict: Verdict,
  expectationsUsed: boolean,
  style: Style,
): string[] => {
  const count = (kind: FateKind): number => fates.filter((f) => f.kind === kind).length;
  const already = fates.filter((f) => f.kind === 'applied' && f.code.startsWith('ALREADY_')).length;
  const skipped = fates.filter((f) => f.kind === 'applied' && isSkip(f.code)).length;
  const parts = [
    counted(fates.length, 'event'),
    `${count('applied')} applied (${already} already in place, ${skipped} skipped as stale, duplicate or without effect)`,
    `${count('dead-lettered')} dead-lettered with a reason`,
    ...(count('held') > 0 ? [`${count('held')} held by the mass-delete brake`] : []),
    `${count('unrouted')} unrouted`,
    `${count('redriven')} in a DLQ without a reason`,
    `${count('lost')} lost`,
  ];
  const lines: string[] = [];
  for (const warning of verdict.warnings)
    lines.push(...wrap(`note: ${warning}`, 2).map(style.warn));
  const expectations = expectationsUsed
    ? `expectations met: ${verdict.met}/${verdict.checked}`
    : 'no expectations (nothing lost, every message applied or dead-lettered with a reason)';
  if (verdict.ok) {
    lines.push(
      style.good(style.bold('Result: OK')),
      ...wrap(`${parts.join(', ')}; ${expectations}`, 2),
    );
  } else {
    lines.push(
      style.bad(style.bold(`Result: FAILED — ${counted(verdict.problems.length, 'problem')}`)),
      ...wrap(`${parts.join(', ')}; ${expectations}`, 2),
    );
    for (const problem of verdict.problems) lines.push(...wrap(`✘ ${problem}`, 2).map(style.bad));
  }
  return lines;
};
