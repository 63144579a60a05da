/**
 * What a scope covers, and the scopes the config refuses: two records scopes with a campaign in
 * common, two users scopes whose rules can both match a user, a roster that reads absence as
 * leaving without saying which users it covers.
 */
import { describe, expect, it } from 'vitest';
import { rulesOverlap, userCoverage } from '../../../lambdas/reconcile/coverage';
import { parseScopes } from '../../../lambdas/reconcile/scope';
import { STAFF_AND_VENDOR } from './scope-fixtures';

describe('a users rule', () => {
  it.each([
    [{ loginUserIdDomains: ['corp.example'] }, { loginUserId: 'a@Corp.Example' }, 'yes'],
    [{ loginUserIdDomains: ['corp.example'] }, { loginUserId: 'a@sub.corp.example' }, 'no'],
    [{ loginUserIdDomains: ['corp.example'] }, { loginUserId: 'no-at-sign' }, 'no'],
    [{ userTemplateNames: ['Agent'] }, { loginUserId: 'a@x', userTemplateName: 'Agent' }, 'yes'],
    [{ userTemplateNames: ['Agent'] }, { loginUserId: 'a@x', userTemplateName: 'agent' }, 'no'],
    [{ userTemplateNames: ['Agent'] }, { loginUserId: 'a@x' }, 'unknown'],
    [
      { loginUserIdDomains: ['corp.example'], userTemplateNames: ['Agent'] },
      { loginUserId: 'a@other.example' },
      'no',
    ],
    [
      { loginUserIdDomains: ['corp.example'], userTemplateNames: ['Agent'] },
      { loginUserId: 'a@corp.example' },
      'unknown',
    ],
  ] as const)('%j matches %j: %s', (rule, user, expected) => {
    // Act / Assess
    expect(userCoverage(rule, user)).toBe(expected);
  });

  it.each([
    [{ loginUserIdDomains: ['a.example'] }, { loginUserIdDomains: ['b.example'] }, false],
    [{ loginUserIdDomains: ['a.example'] }, { loginUserIdDomains: ['A.example'] }, true],
    [{ loginUserIdDomains: ['a.example'] }, { userTemplateNames: ['Agent'] }, true],
    [
      { loginUserIdDomains: ['a.example'], userTemplateNames: ['Agent'] },
      { loginUserIdDomains: ['a.example'], userTemplateNames: ['Contractor'] },
      false,
    ],
  ])('%j and %j overlap: %s', (a, b, expected) => {
    // Act / Assess
    expect(rulesOverlap(a, b)).toBe(expected);
    expect(rulesOverlap(b, a)).toBe(expected);
  });
});

describe('scopes the config refuses, naming the field and both scopes', () => {
  it.each([
    [
      'two records scopes covering one campaign',
      {
        a: { kind: 'records', campaigns: ['Leads', 'Renewals'] },
        b: { kind: 'records', campaigns: ['Renewals'] },
      },
      'b.campaigns: "Renewals" is also covered by scope a',
    ],
    [
      'two users scopes whose rules can both match a user',
      {
        staff: { kind: 'users', covers: { loginUserIdDomains: ['corp.example'] } },
        agents: { kind: 'users', covers: { userTemplateNames: ['Agent'] } },
      },
      "agents.covers: can match the same users as scope staff's covers",
    ],
    [
      'absence read as leaving without a rule',
      { hr: { kind: 'users', absentMeansLeave: true } },
      'hr.covers: is required when absentMeansLeave is true',
    ],
    [
      'a rule without a clause',
      { hr: { kind: 'users', covers: {} } },
      'hr.covers: must give loginUserIdDomains, userTemplateNames or both',
    ],
    [
      'a domain with an @',
      { hr: { kind: 'users', covers: { loginUserIdDomains: ['@corp.example'] } } },
      'hr.covers.loginUserIdDomains[0]: must be a domain such as example.com',
    ],
  ])('%s', (_case, scopes, message) => {
    // Act
    const parsed = parseScopes(scopes);

    // Assess
    expect(parsed.success).toBe(false);
    expect(parsed.success ? '' : parsed.error).toContain(message);
  });

  it.each([
    [
      'records scopes on one campaign name in two regions',
      {
        eu: { kind: 'records', campaigns: ['Leads'], region: 'eu-central-1' },
        us: { kind: 'records', campaigns: ['Leads'], region: 'us-east-1' },
      },
    ],
    ['users scopes on two domains, each reading absence as leaving', STAFF_AND_VENDOR],
    [
      'a users scope without a rule that never reads absence as leaving',
      { hr: { kind: 'users' }, staff: { kind: 'users', covers: { userTemplateNames: ['A'] } } },
    ],
  ])('takes %s', (_case, scopes) => {
    // Act
    const parsed = parseScopes(scopes);

    // Assess
    expect(parsed.success ? '' : parsed.error).toBe('');
  });
});
