/**
 * RFC 7644's PATCH operations (§3.5.2) on a User as this endpoint renders it, and the filters it
 * serves (§3.4.2.2), each form alone.
 */
import { describe, expect, it } from 'vitest';
import { parseUserFilter } from '../../../lambdas/scim/scim-filter';
import { applyPatch } from '../../../lambdas/scim/scim-patch';
import { EXTENSION, patch, USER_SCHEMA } from './scim-fixture';

const USER = {
  schemas: [USER_SCHEMA, EXTENSION],
  userName: 'ada@example.com',
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
  active: true,
  [EXTENSION]: { userTemplateName: 'Agent', createInCloudConnect: false },
};

describe('applyPatch', () => {
  it.each([
    [
      'add to a multi-valued attribute appends',
      { op: 'add', path: 'emails', value: [{ value: 'a@home.example', type: 'home' }] },
      { emails: [USER.emails[0], { value: 'a@home.example', type: 'home' }] },
    ],
    [
      'replace of a multi-valued attribute replaces it',
      { op: 'replace', path: 'emails', value: [{ value: 'a@home.example', type: 'home' }] },
      { emails: [{ value: 'a@home.example', type: 'home' }] },
    ],
    [
      'replace of a complex attribute keeps the sub-attributes it leaves out',
      { op: 'replace', path: 'name', value: { formatted: 'Ada Lovelace' } },
      { name: { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' } },
    ],
    [
      'a value filter selects the element, and a missing one is added',
      { op: 'add', path: 'emails[type eq "home"].value', value: 'a@home.example' },
      { emails: [USER.emails[0], { type: 'home', value: 'a@home.example' }] },
    ],
    [
      'remove with a value filter removes the matching element (the last one: the attribute)',
      { op: 'remove', path: 'emails[type eq "work"]' },
      { emails: undefined },
    ],
    [
      'an extension attribute under its schema URN',
      { op: 'replace', path: `${EXTENSION}:userTemplateName`, value: 'Supervisor' },
      { [EXTENSION]: { userTemplateName: 'Supervisor', createInCloudConnect: false } },
    ],
    [
      'no path: the keys of the value, dotted paths included, op in any case',
      { op: 'Replace', value: { 'name.givenName': 'Augusta', active: 'False' } },
      { name: { givenName: 'Augusta', familyName: 'Lovelace' }, active: 'False' },
    ],
  ])('%s', (_name, operation, expected) => {
    // Act
    const result = applyPatch(USER, patch(operation));

    // Assess
    expect(result).toEqual({ ...USER, ...expected });
  });

  it.each([
    ['remove without a path', { op: 'remove' }, 'noTarget'],
    [
      'remove of active, which would read as active again',
      { op: 'Remove', path: 'active' },
      'mutability',
    ],
    ['a path of no attribute', { op: 'replace', path: 'colour', value: 'green' }, 'invalidPath'],
    ['add without a value', { op: 'add', path: 'displayName' }, 'invalidValue'],
    ['a value that is not an object without a path', { op: 'replace', value: 'x' }, 'invalidValue'],
  ])('refuses %s', (_name, operation, scimType) => {
    // Act
    const act = () => applyPatch(USER, patch(operation));

    // Assess
    expect(act).toThrow(expect.objectContaining({ status: 400, scimType }));
  });
});

describe('parseUserFilter', () => {
  it.each([
    ['userName eq "ada@example.com"', { attribute: 'userName', value: 'ada@example.com' }],
    ['externalId EQ "e-1"', { attribute: 'externalId', value: 'e-1' }],
    [`${USER_SCHEMA}:userName eq "a\\"b"`, { attribute: 'userName', value: 'a"b' }],
  ])('reads %s', (text, expected) => {
    // Assess
    expect(parseUserFilter(text)).toEqual(expected);
  });

  it.each([
    ['userName sw "ada"', /operator sw is not supported/],
    ['userName pr', /operator pr is not supported/],
    ['userName eq "a" and active eq true', /and is not supported/],
    ['emails[type eq "work"]', /\[\] is not supported/],
    ['displayName eq "Ada"', /displayName cannot be filtered on/],
    ['userName eq 5', /compared with a string/],
    ['userName like "a"', /not a SCIM filter/],
  ])('refuses %s as invalidFilter', (text, detail) => {
    // Act
    const act = () => parseUserFilter(text);

    // Assess
    expect(act).toThrow(
      expect.objectContaining({
        status: 400,
        scimType: 'invalidFilter',
        detail: expect.stringMatching(detail),
      }),
    );
  });
});
