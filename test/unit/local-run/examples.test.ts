/**
 * The example events of `npm start` are a contract with newcomers: each has an expected
 * outcome, validates against its action's schema unless it is one of the deliberately bad
 * ones, and uses fictional data only.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isActionName, parseMessage } from '../../../lambdas/actions';
import { declaredCorrelationId } from '../../../lambdas/core/entry/envelope';
import { routeEvent } from '../../../local/in-memory/event-rules';
import { loadScenario } from '../../../local/run/event-input';
import { loadRunSettings } from '../../../local/run/run-settings';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const scenario = loadScenario(path.join(ROOT, 'examples'), ROOT);
const settings = loadRunSettings(path.join(ROOT, 'config', 'example.json'));
const events = scenario.phases.flatMap((phase) => phase.events);
const expectations = scenario.expectations ?? new Map<string, string>();

const expectedOf = (detail: Readonly<Record<string, unknown>>): string | undefined => {
  const id = declaredCorrelationId(detail);
  return id === undefined ? undefined : expectations.get(id);
};

describe('examples/', () => {
  it('gives every event a unique correlation id with an expected outcome, and no more', () => {
    // Prepare
    const ids = events.map((e) => declaredCorrelationId(e.detail));

    // Act
    const missing = ids.filter((id) => id === undefined || !expectations.has(id));
    const unused = [...expectations.keys()].filter((id) => !ids.includes(id));

    // Assess
    expect(missing).toEqual([]);
    expect(unused).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('validates every routed event against its schema, except the ones expected INVALID_MESSAGE', () => {
    // Prepare
    const routed = events.filter((e) => routeEvent(e, settings.actions).routed);

    // Act
    const verdicts = routed.map((e) => {
      const action = e.detailType;
      if (!isActionName(action)) throw new Error(`routed to an unknown action ${action}`);
      const parsed = parseMessage(action, e.detail);
      return {
        id: declaredCorrelationId(e.detail),
        valid: parsed.success,
        expected: expectedOf(e.detail),
      };
    });

    // Assess
    for (const verdict of verdicts) {
      expect(verdict, String(verdict.id)).toMatchObject({
        valid: verdict.expected !== 'INVALID_MESSAGE',
      });
    }
  });

  it('routes nothing that is expected UNROUTED, and everything else', () => {
    // Prepare
    const decisions = events.map((e) => ({
      expected: expectedOf(e.detail),
      routed: routeEvent(e, settings.actions).routed,
    }));

    // Act
    const wrong = decisions.filter((d) => d.routed === (d.expected === 'UNROUTED'));

    // Assess
    expect(wrong).toEqual([]);
    expect(decisions.filter((d) => !d.routed).length).toBeGreaterThan(0);
  });

  it('covers the bad messages issue 5 asks for: no clientId, a non-E.164 phone, an Id key, an unknown zone', () => {
    // Prepare
    const errors = events.flatMap((e) => {
      if (expectedOf(e.detail) !== 'INVALID_MESSAGE' || !isActionName(e.detailType)) return [];
      const parsed = parseMessage(e.detailType, e.detail);
      return parsed.success ? [] : [parsed.error];
    });

    // Act
    const covered = {
      missingClientId: errors.some((m) => m.startsWith('clientId: is required')),
      phone: errors.some((m) => m.includes('E.164')),
      idKey: errors.some((m) => m.includes('data key "Id" is reserved')),
      timeZone: errors.some((m) => m.includes('"ItemTimeZone" must hold an IANA time zone')),
    };

    // Assess
    expect(covered).toEqual({ missingClientId: true, phone: true, idKey: true, timeZone: true });
  });

  it('covers a realistic day: every action, both campaigns, repeats, late and conflicting events', () => {
    // Prepare
    const actions = new Set(events.map((e) => e.detailType));
    const campaigns = new Set(events.map((e) => e.detail.campaignName).filter(Boolean));

    // Act
    const codes = new Set(expectations.values());

    // Assess
    for (const action of [
      'add-or-update-campaign-record',
      'search-campaign-records',
      'change-campaign-record-status',
      'transfer-campaign-record',
      'delete-campaign-record',
      'add-user',
      'query-user-existence',
      'delete-user',
    ]) {
      expect(actions, action).toContain(action);
    }
    expect(campaigns.size).toBeGreaterThanOrEqual(2);
    for (const code of [
      'ALREADY_ABSENT',
      'NO_EFFECT',
      'NOT_FOUND',
      'STALE_SKIPPED',
      'DUPLICATE',
      'USER_EXISTS_NOT_OURS',
    ]) {
      expect(codes, code).toContain(code);
    }
  });

  it('uses fictional data only: 555 phone numbers and example.com addresses', () => {
    // Prepare
    const text = JSON.stringify(events.map((e) => e.detail)) + JSON.stringify(scenario.seed);

    // Act
    const phones = [...text.matchAll(/\+\d{8,15}/g)].map((m) => m[0]);
    const emails = [...text.matchAll(/[\w.+-]+@[\w.-]+/g)].map((m) => m[0]);

    // Assess
    expect(phones.length).toBeGreaterThan(0);
    for (const phone of phones) expect(phone).toMatch(/^\+1\d{3}555\d{4}$/);
    for (const email of emails) expect(email).toMatch(/@(crm\.)?example\.com$/);
  });
});
