import { type MessageFate, UNROUTED } from './pipeline';

export interface Verdict {
  /** Every message ended where it should: exit code 0. */
  readonly ok: boolean;
  /** What makes the run fail, one line each. */
  readonly problems: readonly string[];
  /** Differences that do not fail the run (expectations under `--faults` or `--outage`). */
  readonly warnings: readonly string[];
  /** Messages compared with an expectation, and how many matched. */
  readonly checked: number;
  readonly met: number;
}

const describe = (fate: MessageFate): string =>
  `${fate.action ?? fate.detailType} ${fate.correlationId}`;

/**
 * Decides the exit code.
 *
 * Always a problem: a message lost, or moved to a DLQ by the redrive policy (no reason for an
 * operator). With expectations: every message needs one and must end with exactly that code,
 * and every expectation must match a message — except under `--faults`, where retries, lost
 * responses and exhausted receives legitimately change codes (SUCCESS → ALREADY_EXISTS, or a
 * dead letter after the last receive), and under `--outage`, whose 5xx answers may have been
 * applied (docs/decisions.md), so a call they met stays in doubt and an add of a user that was
 * already there counts as ours; differences are then warnings. Routing depends on neither, so an
 * UNROUTED mismatch stays a problem. Without expectations an unrouted event is a problem:
 * EventBridge would drop it.
 */
export const evaluateRun = (
  fates: readonly MessageFate[],
  expectations: ReadonlyMap<string, string> | undefined,
  options: { readonly faults: boolean; readonly outage?: boolean },
): Verdict => {
  const tolerance = options.faults
    ? '(under --faults)'
    : options.outage === true
      ? '(under --outage: a request answered 5xx may have been applied)'
      : undefined;
  const problems: string[] = [];
  const warnings: string[] = [];
  let checked = 0;
  let met = 0;

  for (const fate of fates) {
    if (fate.kind === 'lost')
      problems.push(`${describe(fate)} was lost: ${fate.reason?.message ?? ''}`);
    if (fate.kind === 'redriven') {
      problems.push(
        `${describe(fate)} is in the DLQ without a reason (moved by the redrive policy)`,
      );
    }
  }

  if (expectations === undefined) {
    for (const fate of fates) {
      if (fate.kind === 'unrouted') {
        problems.push(`${describe(fate)} matched no rule: ${fate.reason?.message ?? ''}`);
      }
    }
  } else {
    const seen = new Map<string, number>();
    for (const fate of fates) seen.set(fate.correlationId, (seen.get(fate.correlationId) ?? 0) + 1);
    for (const [id, count] of seen) {
      if (count > 1 && expectations.has(id)) {
        problems.push(
          `correlation id ${id} is used by ${count} messages; expectations need unique ids`,
        );
      }
    }
    for (const fate of fates) {
      const expected = expectations.get(fate.correlationId);
      if (expected === undefined) {
        problems.push(`${describe(fate)} ended ${fate.code} but has no expected outcome`);
        continue;
      }
      checked += 1;
      if (expected === fate.code) {
        met += 1;
        continue;
      }
      const text = `${describe(fate)}: expected ${expected}, got ${fate.code}`;
      const routingMismatch = expected === UNROUTED || fate.code === UNROUTED;
      if (tolerance !== undefined && !routingMismatch) warnings.push(`${text} ${tolerance}`);
      else problems.push(text);
    }
    const ids = new Set(fates.map((f) => f.correlationId));
    for (const id of expectations.keys()) {
      if (!ids.has(id))
        problems.push(`expected outcome for ${id}, but no message has that correlation id`);
    }
  }

  return { ok: problems.length === 0, problems, warnings, checked, met };
};
