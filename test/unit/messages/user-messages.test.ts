import { describe, expect, it } from 'vitest';
import { accepted, rejected, validMessage, without } from './message-fixtures';

describe('add-user message', () => {
  const ACTION = 'add-user';

  it('accepts a full valid message unchanged', () => {
    // Prepare
    const message = {
      ...validMessage(ACTION),
      primaryEmailAddr: 'ada.example@corp.example',
      secondaryEmailAddr: 'ada@private.example',
      createInCloudConnect: true,
    };

    // Act
    const parsed = accepted(ACTION, message);

    // Assess
    expect(parsed).toEqual(message);
  });

  it.each(['loginUserId', 'firstName', 'lastName', 'userTemplateName'])('requires %s', (field) => {
    // Prepare
    const message = without(validMessage(ACTION), field);

    // Act
    const error = rejected(ACTION, message);

    // Assess
    expect(error).toBe(`${field}: is required`);
  });

  it.each(['loginUserId', 'firstName', 'lastName', 'userTemplateName'])(
    'rejects an empty %s',
    (field) => {
      // Prepare
      const message = { ...validMessage(ACTION), [field]: '' };

      // Act
      const error = rejected(ACTION, message);

      // Assess
      expect(error).toBe(`${field}: must not be empty`);
    },
  );

  it('reports every missing required field at once', () => {
    // Prepare
    const message = { loginUserId: 'ada.example@corp.example' };

    // Act
    const error = rejected(ACTION, message);

    // Assess
    expect(error.split('; ')).toEqual([
      'firstName: is required',
      'lastName: is required',
      'userTemplateName: is required',
    ]);
  });

  describe.each(['primaryEmailAddr', 'secondaryEmailAddr'])('%s', (field) => {
    it('is optional', () => {
      // Prepare
      const message = validMessage(ACTION);

      // Act
      const parsed = accepted(ACTION, message);

      // Assess
      expect(parsed).not.toHaveProperty(field);
    });

    it.each(['not-an-email', 'ada@', 'ada example@corp.example', ''])(
      'rejects %j without echoing it',
      (value) => {
        // Prepare
        const message = { ...validMessage(ACTION), [field]: value };

        // Act
        const error = rejected(ACTION, message);

        // Assess
        expect(error).toBe(`${field}: must be an e-mail address`);
      },
    );
  });

  it('rejects createInCloudConnect as a string', () => {
    // Prepare
    const message = { ...validMessage(ACTION), createInCloudConnect: 'true' };

    // Act
    const error = rejected(ACTION, message);

    // Assess
    expect(error).toMatch(/^createInCloudConnect: .*expected boolean, received string$/);
  });

  it('rejects tenant (it comes from deployment config) by name', () => {
    // Prepare
    const message = {
      ...validMessage(ACTION),
      tenant: { platform: 'P', companyCode: 'C', environment: 'E' },
    };

    // Act
    const error = rejected(ACTION, message);

    // Assess
    expect(error).toBe('unknown field(s) "tenant"');
  });
});

describe.each(['query-user-existence', 'delete-user'] as const)('%s message', (action) => {
  it('accepts a valid message unchanged', () => {
    // Prepare
    const message = { ...validMessage(action), correlationId: 'hr-42' };

    // Act
    const parsed = accepted(action, message);

    // Assess
    expect(parsed).toEqual(message);
  });

  it('requires loginUserId', () => {
    // Prepare
    const message = {};

    // Act
    const error = rejected(action, message);

    // Assess
    expect(error).toBe('loginUserId: is required');
  });

  it('rejects fields that belong to add-user by name', () => {
    // Prepare
    const message = { ...validMessage(action), firstName: 'Ada' };

    // Act
    const error = rejected(action, message);

    // Assess
    expect(error).toBe('unknown field(s) "firstName"');
  });
});
