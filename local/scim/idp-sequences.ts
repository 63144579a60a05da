/**
 * What Entra ID and Okta send over SCIM for one joiner's life, as their provisioning documents
 * show it: Entra ID looks the user up by userName, creates, PATCHes (op `Replace`, `active` as
 * the string "False"), reactivates with a path-less PATCH and deletes; Okta tests the connection
 * with a list, looks up, creates (with a password), PUTs the whole user and deactivates with a
 * PUT of `active: false`. Each step says what status it must get and whether the user must then
 * be on the platform.
 */

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export interface SequenceStep {
  readonly label: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Under the SCIM base URL; `{id}` is the id the create answered. */
  readonly path: string;
  readonly body?: unknown;
  readonly expectStatus: number;
  /** After this step the user must be on the platform (true) or not (false); unchecked if absent. */
  readonly onPlatform?: boolean;
  /** A list answer must hold this many resources. */
  readonly expectTotal?: number;
}

export interface IdpSequence {
  readonly idp: 'Entra ID' | 'Okta';
  readonly userName: string;
  readonly steps: readonly SequenceStep[];
}

const filterBy = (userName: string) =>
  `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`;

const entraUser = (userName: string) => ({
  schemas: [USER, ENTERPRISE],
  externalId: 'entra-0001',
  userName,
  active: true,
  displayName: 'Ada Lovelace',
  name: { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' },
  emails: [{ primary: true, type: 'work', value: userName }],
  title: 'Agent',
  [ENTERPRISE]: { employeeNumber: '1001', department: 'Service' },
});

/** Entra ID's provisioning cycle for one user (learn.microsoft.com, "Develop a SCIM endpoint"). */
export const entraIdSequence = (userName = 'ada.lovelace@examplecorp.com'): IdpSequence => ({
  idp: 'Entra ID',
  userName,
  steps: [
    {
      label: 'filter by userName',
      method: 'GET',
      path: filterBy(userName),
      expectStatus: 200,
      expectTotal: 0,
      onPlatform: false,
    },
    {
      label: 'create',
      method: 'POST',
      path: '/Users',
      body: entraUser(userName),
      expectStatus: 201,
      onPlatform: true,
    },
    {
      label: 'PATCH Replace displayName',
      method: 'PATCH',
      path: '/Users/{id}',
      body: {
        schemas: [PATCH_OP],
        Operations: [{ op: 'Replace', path: 'displayName', value: 'Ada King' }],
      },
      expectStatus: 200,
      onPlatform: true,
    },
    {
      label: 'soft delete (active "False")',
      method: 'PATCH',
      path: '/Users/{id}',
      body: {
        schemas: [PATCH_OP],
        Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      },
      expectStatus: 200,
      onPlatform: false,
    },
    {
      label: 'reactivate (no path)',
      method: 'PATCH',
      path: '/Users/{id}',
      body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] },
      expectStatus: 200,
      onPlatform: true,
    },
    {
      label: 'delete',
      method: 'DELETE',
      path: '/Users/{id}',
      expectStatus: 204,
      onPlatform: false,
    },
  ],
});

/** A User as Okta sends it (create, and the whole user on PUT). */
export const oktaUser = (userName: string, active: boolean) => ({
  schemas: [USER],
  userName,
  name: { givenName: 'Grace', familyName: 'Hopper' },
  emails: [{ primary: true, value: userName, type: 'work' }],
  displayName: 'Grace Hopper',
  locale: 'en-US',
  externalId: '00u1okta',
  groups: [],
  active,
});

/** Okta's provisioning cycle for one user (developer.okta.com, "SCIM 2.0 protocol reference"). */
export const oktaSequence = (userName = 'grace.hopper@examplecorp.com'): IdpSequence => ({
  idp: 'Okta',
  userName,
  steps: [
    {
      label: 'test connection (list)',
      method: 'GET',
      path: '/Users?startIndex=1&count=2',
      expectStatus: 200,
    },
    {
      label: 'filter by userName',
      method: 'GET',
      path: `${filterBy(userName)}&startIndex=1&count=100`,
      expectStatus: 200,
      expectTotal: 0,
      onPlatform: false,
    },
    {
      label: 'create (with a password)',
      method: 'POST',
      path: '/Users',
      body: { ...oktaUser(userName, true), password: 'Okta-sends-one-1!' },
      expectStatus: 201,
      onPlatform: true,
    },
    {
      label: 'PUT the whole user',
      method: 'PUT',
      path: '/Users/{id}',
      body: { ...oktaUser(userName, true), displayName: 'Rear Admiral Hopper' },
      expectStatus: 200,
      onPlatform: true,
    },
    {
      label: 'deactivate (PUT active false)',
      method: 'PUT',
      path: '/Users/{id}',
      body: oktaUser(userName, false),
      expectStatus: 200,
      onPlatform: false,
    },
  ],
});

export interface StepOutcome {
  readonly idp: string;
  readonly step: SequenceStep;
  readonly status: number;
  readonly problems: readonly string[];
}

export interface ReplayOptions {
  readonly baseUrl: string;
  readonly token: string;
  /** Whether the login is on the platform now (asked after the step's answer has arrived). */
  readonly onPlatform: (loginUserId: string) => boolean | Promise<boolean>;
  /** Told each step as it ends. */
  readonly onStep?: (outcome: StepOutcome) => void;
}

/** Sends a sequence's requests in order and checks each answer and the platform after it. */
export const replaySequence = async (
  sequence: IdpSequence,
  options: ReplayOptions,
): Promise<StepOutcome[]> => {
  const outcomes: StepOutcome[] = [];
  let id: string | undefined;
  for (const step of sequence.steps) {
    const problems: string[] = [];
    const path = step.path.replace('{id}', encodeURIComponent(id ?? 'no-id-yet'));
    const response = await fetch(`${options.baseUrl}${path}`, {
      method: step.method,
      headers: {
        Authorization: `Bearer ${options.token}`,
        Accept: 'application/scim+json',
        ...(step.body === undefined ? {} : { 'Content-Type': 'application/scim+json' }),
      },
      ...(step.body === undefined ? {} : { body: JSON.stringify(step.body) }),
    });
    const text = await response.text();
    const body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
    if (response.status !== step.expectStatus) {
      problems.push(
        `answered ${response.status}, expected ${step.expectStatus}${body?.detail === undefined ? '' : ` (${String(body.detail)})`}`,
      );
    }
    if (step.method === 'POST' && typeof body?.id === 'string') id = body.id;
    if (step.expectTotal !== undefined && body?.totalResults !== step.expectTotal) {
      problems.push(`listed ${String(body?.totalResults)} users, expected ${step.expectTotal}`);
    }
    if (step.method === 'POST' && body !== undefined && 'password' in body) {
      problems.push('the answer returned the password');
    }
    if (
      step.onPlatform !== undefined &&
      (await options.onPlatform(sequence.userName)) !== step.onPlatform
    ) {
      problems.push(
        step.onPlatform ? 'the user is not on the platform' : 'the user is still on the platform',
      );
    }
    const outcome = { idp: sequence.idp, step, status: response.status, problems };
    outcomes.push(outcome);
    options.onStep?.(outcome);
  }
  return outcomes;
};
