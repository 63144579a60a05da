import { describe, expect, it } from 'vitest';
import { accepted, itAccepts, itRefuses, validMessage, without } from './message-fixtures';

const ADD_USER_REQUIRED = ['loginUserId', 'firstName', 'lastName', 'userTemplateName'];

describe('add-user message', () => {
  const ACTION = 'add-user';

  itAccepts(ACTION, [
    [
      'accepts a full valid message unchanged',
      {
        ...validMessage(ACTION),
        primaryEmailAddr: 'ada.example@corp.example',
        secondaryEmailAddr: 'ada@private.example',
        createInCloudConnect: true,
      },
    ],
  ]);

  itRefuses(ACTION, [
    ...ADD_USER_REQUIRED.map(
      (field) =>
        [
          `requires ${field}`,
          without(validMessage(ACTION), field),
          `${field}: is required`,
        ] as const,
    ),
    ...ADD_USER_REQUIRED.map(
      (field) =>
        [
          `rejects an empty ${field}`,
          { ...validMessage(ACTION), [field]: '' },
          `${field}: must not be empty`,
        ] as const,
    ),
    [
      'reports every missing required field at once',
      { loginUserId: 'ada.example@corp.example' },
      'firstName: is required; lastName: is required; userTemplateName: is required',
    ],
    [
      'rejects createInCloudConnect as a string',
      { ...validMessage(ACTION), createInCloudConnect: 'true' },
      expect.stringMatching(/^createInCloudConnect: .*expected boolean, received string$/),
    ],
    [
      'rejects tenant (it comes from deployment config) by name',
      { ...validMessage(ACTION), tenant: { platform: 'P', companyCode: 'C', environment: 'E' } },
      'unknown field(s) "tenant"',
    ],
  ]);

  describe.each(['primaryEmailAddr', 'secondaryEmailAddr'])('%s', (field) => {
    it('is optional', () => {
      // Prepare
      const message = validMessage(ACTION);

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed).not.toHaveProperty(field);
    });

    itRefuses(
      ACTION,
      ['not-an-email', 'ada@', 'ada example@corp.example', ''].map((value) => [
        `rejects ${JSON.stringify(value)} without echoing it`,
        { ...validMessage(ACTION), [field]: value },
        `${field}: must be an e-mail address`,
      ]),
    );
  });
});

describe.each(['query-user-existence', 'delete-user'] as const)('%s message', (action) => {
  itAccepts(action, [
    ['accepts a valid message unchanged', { ...validMessage(action), correlationId: 'hr-42' }],
  ]);

  itRefuses(action, [
    ['requires loginUserId', {}, 'loginUserId: is required'],
    [
      'rejects fields that belong to add-user by name',
      { ...validMessage(action), firstName: 'Ada' },
      'unknown field(s) "firstName"',
    ],
  ]);
});
