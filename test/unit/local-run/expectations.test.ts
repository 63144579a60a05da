import { describe, expect, it } from 'vitest';
import { evaluateRun } from '../../../local/run/expectations';
import type { MessageFate } from '../../../local/run/pipeline';

const fate = (correlationId: string, kind: MessageFate['kind'], code: string): MessageFate => ({
  sequence: 0,
  phase: 1,
  file: 'f.json',
  action: 'add-user',
  detailType: 'add-user',
  correlationId,
  kind,
  code,
  receives: kind === 'unrouted' ? 0 : 1,
});

/** The expected end code of each correlation id, as a run's expectations file gives them. */
const expecting = (codes: Record<string, string>) => new Map(Object.entries(codes));

describe('evaluateRun', () => {
  it('passes when every message ends with its expected code', () => {
    // Prepare
    const fates = [fate('a', 'applied', 'SUCCESS'), fate('b', 'dead-lettered', 'INVALID_MESSAGE')];
    const expected = expecting({ a: 'SUCCESS', b: 'INVALID_MESSAGE' });

    // Act
    const verdict = evaluateRun(fates, expected, { faults: false });

    // Assess
    expect(verdict).toEqual({ ok: true, problems: [], warnings: [], checked: 2, met: 2 });
  });

  it('fails on a different code, a message without expectation and an expectation without message', () => {
    // Prepare
    const fates = [fate('a', 'applied', 'ALREADY_EXISTS'), fate('x', 'applied', 'SUCCESS')];
    const expected = expecting({ a: 'SUCCESS', gone: 'SUCCESS' });

    // Act
    const verdict = evaluateRun(fates, expected, { faults: false });

    // Assess
    expect(verdict.ok).toBe(false);
    expect(verdict.problems).toEqual([
      'add-user a: expected SUCCESS, got ALREADY_EXISTS',
      'add-user x ended SUCCESS but has no expected outcome',
      'expected outcome for gone, but no message has that correlation id',
    ]);
  });

  it('under --faults turns code differences into warnings, but not routing differences', () => {
    // Prepare
    const fates = [fate('a', 'applied', 'ALREADY_EXISTS'), fate('u', 'applied', 'SUCCESS')];
    const expected = expecting({ a: 'SUCCESS', u: 'UNROUTED' });

    // Act
    const verdict = evaluateRun(fates, expected, { faults: true });

    // Assess
    expect(verdict.warnings).toEqual([
      'add-user a: expected SUCCESS, got ALREADY_EXISTS (under --faults)',
    ]);
    expect(verdict.problems).toEqual(['add-user u: expected UNROUTED, got SUCCESS']);
  });

  it('under --outage turns code differences into warnings that say why, but not routing differences', () => {
    // Prepare
    const fates = [fate('a', 'applied', 'ALREADY_EXISTS'), fate('u', 'applied', 'SUCCESS')];
    const expected = expecting({ a: 'USER_EXISTS_NOT_OURS', u: 'UNROUTED' });

    // Act
    const verdict = evaluateRun(fates, expected, { faults: false, outage: true });

    // Assess
    expect(verdict.warnings).toEqual([
      'add-user a: expected USER_EXISTS_NOT_OURS, got ALREADY_EXISTS (under --outage: a request answered 5xx may have been applied)',
    ]);
    expect(verdict.problems).toEqual(['add-user u: expected UNROUTED, got SUCCESS']);
  });

  it('always fails for a lost message or a dead letter without a reason, even under --faults', () => {
    // Prepare
    const fates = [fate('l', 'lost', 'LOST'), fate('r', 'redriven', 'REDRIVEN')];

    // Act
    const verdict = evaluateRun(fates, undefined, { faults: true });

    // Assess
    expect(verdict.ok).toBe(false);
    expect(verdict.problems).toHaveLength(2);
  });

  it('without expectations fails for an unrouted event: EventBridge would drop it', () => {
    // Prepare
    const fates = [
      fate('u', 'unrouted', 'UNROUTED'),
      fate('d', 'dead-lettered', 'INVALID_MESSAGE'),
    ];

    // Act
    const verdict = evaluateRun(fates, undefined, { faults: false });

    // Assess
    expect(verdict.ok).toBe(false);
    expect(verdict.problems).toEqual([expect.stringMatching(/^add-user u matched no rule/)]);
  });
});
