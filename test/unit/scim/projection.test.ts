/** `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5) on a rendered User. */
import { describe, expect, it } from 'vitest';
import { project } from '../../../lambdas/scim/scim-projection';
import { EXTENSION, USER_SCHEMA } from './scim-fixture';

const USER = {
  schemas: [USER_SCHEMA, EXTENSION],
  id: 'abc.123',
  userName: 'ada@example.com',
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  displayName: 'Ada',
  emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
  active: true,
  [EXTENSION]: { userTemplateName: 'Agent', createInCloudConnect: false },
  meta: { resourceType: 'User' },
};

describe('project', () => {
  it.each([
    ['nothing asked', {}, USER],
    [
      'attributes=userName',
      { attributes: 'userName' },
      { schemas: USER.schemas, id: USER.id, userName: USER.userName },
    ],
    [
      'attributes with a sub-attribute, the core URN and any case',
      { attributes: `${USER_SCHEMA}:NAME.givenName, emails.value` },
      {
        schemas: USER.schemas,
        id: USER.id,
        name: { givenName: 'Ada' },
        emails: [{ value: 'ada@example.com' }],
      },
    ],
    [
      "attributes naming an extension's attribute",
      { attributes: `${EXTENSION}:userTemplateName` },
      { schemas: USER.schemas, id: USER.id, [EXTENSION]: { userTemplateName: 'Agent' } },
    ],
    [
      'excludedAttributes, the extension whole and a sub-attribute; id never',
      { excludedAttributes: `displayName,${EXTENSION},name.familyName,id` },
      (({ displayName: _d, [EXTENSION]: _e, ...rest }) => ({
        ...rest,
        name: { givenName: 'Ada' },
      }))(USER),
    ],
  ])('%s', (_name, query, expected) => {
    // Assess
    expect(project(USER, query)).toEqual(expected);
  });
});
