import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { type AddUserMessage, addUser } from '../actions/add-user';
import { type DeleteUserMessage, deleteUser } from '../actions/delete-user';
import type { AnyAction } from '../core/action';
import type { Disposition } from '../core/disposition';
import { userKey } from '../core/ledger/entity-key';
import { EntityLedger } from '../core/ledger/entity-ledger';
import { versionOf } from '../core/ledger/event-version';
import { parseLedgerDoc } from '../core/ledger/ledger-doc';
import type { LedgerStore } from '../core/ledger/ledger-store';
import type { MassDeleteBrake } from '../core/mass-delete-brake';
import { type ProcessorDependencies, processMessage } from '../core/message-pipeline';
import type { PlatformCaller } from '../core/platform-caller';
import type { ApiKeySource, HeldMessageSink } from '../core/ports';
import { user as userKind } from '../entities/user';
import { isUnsureUser, type KnownUser } from '../entities/user/known';
import { ScimAuthenticator } from './scim-auth';
import {
  LIST_SCHEMA,
  listOf,
  resourceTypes,
  schemas,
  serviceProviderConfig,
} from './scim-discovery';
import { badRequest, errorBody, notFound, ScimError } from './scim-error';
import { parseUserFilter } from './scim-filter';
import { applyPatch } from './scim-patch';
import {
  type HeldProfile,
  type ProfileLister,
  resourceId,
  ScimBusyError,
  type ScimProfile,
  ScimProfiles,
  userNameOfId,
} from './scim-profiles';
import {
  attr,
  changedImmutable,
  isObject,
  readScimUser,
  renderScimUser,
  SCIM_NAME_OF,
  type ScimDefaults,
  type ScimUser,
} from './scim-user';

/**
 * The SCIM 2.0 endpoint for /Users (RFC 7643, RFC 7644), as one function behind an API Gateway
 * proxy. Each write is an add-user or delete-user message of its user, run through the same
 * pipeline as the queue handlers (brake, breaker, ledger ordering, look before add), received
 * now and answered once its outcome is known: never a 2xx for a change that did not happen.
 * `lambdas/handlers/scim.ts` builds it from the environment; tests and the local run build it
 * with in-memory stores against the simulator.
 */
export interface ScimHandlerDependencies {
  /** The platform caller, as a queue handler's (key, guard, pacing, classification). */
  readonly platform: PlatformCaller;
  /** The entity ledger's store; SCIM's own items live there too (`scim-profiles.ts`). */
  readonly ledgerStore: LedgerStore;
  /** Lists SCIM's items in that store (a scan), for an unfiltered GET /Users. */
  readonly listProfiles: ProfileLister;
  /** Days a tombstone is kept (the ledger's). @default 15 */
  readonly tombstoneDays?: number;
  /** delete-user's brake and held queue, shared with the queue handler. @default no brake */
  readonly brake?: { readonly gate: MassDeleteBrake; readonly held: HeldMessageSink };
  /** The IdP's bearer token (its own secret). */
  readonly tokens: ApiKeySource;
  readonly defaults: ScimDefaults;
  /** Most resources per page (≥ 100). */
  readonly maxResults: number;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** The deployment's campaign region. @default the platform caller's */
  readonly campaignRegion?: string;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** What a request may spend, inside API Gateway's 29 s. @default 25000 */
  readonly budgetMs?: number;
  /**
   * Seconds an IdP's repeat of a delete the brake held is answered 503 without being held again,
   * and the Retry-After of that answer. @default 900
   */
  readonly heldDeleteSeconds?: number;
}

const JSON_TYPE = 'application/scim+json';
const DEFAULT_RETRY_AFTER_SECONDS = 30;
const DAY_SECONDS = 86_400;

/** The SCIM-facing name of each add-user field, for a refusal the admin can act on. */
const scimNames = (text: string): string =>
  text.replace(
    /\b(loginUserId|firstName|lastName|primaryEmailAddr|secondaryEmailAddr|userTemplateName|createInCloudConnect)\b/g,
    (field) => SCIM_NAME_OF[field as keyof AddUserMessage],
  );

const answer = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': JSON_TYPE, ...headers },
  body: body === undefined ? '' : JSON.stringify(body),
});

const errorAnswer = (error: ScimError): APIGatewayProxyResult =>
  answer(
    error.status,
    errorBody(error),
    error.retryAfterSeconds === undefined
      ? error.status === 401
        ? { 'WWW-Authenticate': 'Bearer realm="scim"' }
        : {}
      : { 'Retry-After': String(error.retryAfterSeconds) },
  );

const header = (event: APIGatewayProxyEvent, name: string): string | undefined => {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
};

/** The path below `/scim/v2`, split: `['Users', '<id>']`. */
const routeOf = (event: APIGatewayProxyEvent): string[] => {
  const proxy = event.pathParameters?.proxy;
  const path = proxy ?? event.path.replace(/^.*?\/scim\/v2(?=\/|$)/, '');
  return path
    .split('/')
    .filter((part) => part !== '')
    .map(decodeURIComponent);
};

/** The endpoint's base URL as the IdP called it, for `meta.location`. */
const baseUrlOf = (event: APIGatewayProxyEvent): string => {
  const host = header(event, 'host') ?? 'localhost';
  const proto = header(event, 'x-forwarded-proto') ?? 'https';
  const stage = event.requestContext?.stage;
  const prefix =
    stage !== undefined && stage !== '' && stage !== '$default' && proto === 'https'
      ? `/${stage}`
      : '';
  return `${proto}://${host}${prefix}/scim/v2`;
};

const bodyOf = (event: APIGatewayProxyEvent): unknown => {
  const raw =
    event.body === null || event.body === undefined
      ? ''
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  try {
    return JSON.parse(raw);
  } catch {
    throw badRequest('invalidSyntax', 'the body is not JSON');
  }
};

const integerParameter = (value: string | undefined, name: string): number | undefined => {
  if (value === undefined || value === '') return undefined;
  if (!/^-?\d+$/.test(value)) throw badRequest('invalidValue', `${name} must be an integer`);
  return Number(value);
};

/** Whether the ledger knows our user is on the platform; undefined while it cannot tell. */
const ledgerSaysThere = (raw: unknown): boolean | undefined => {
  const doc = parseLedgerDoc(raw, userKind.name, userKind.parts);
  const place = (doc?.known as KnownUser | undefined)?.place;
  if (place === undefined || isUnsureUser(place)) return undefined;
  return 'user' in place && place.user.born !== '';
};

export const createScimHandler = (deps: ScimHandlerDependencies) => {
  const now = deps.now ?? Date.now;
  const budgetMs = deps.budgetMs ?? 25_000;
  const heldDeleteSeconds = deps.heldDeleteSeconds ?? 900;
  const tombstoneSeconds = (deps.tombstoneDays ?? 15) * DAY_SECONDS;
  const auth = new ScimAuthenticator(deps.tokens, { now });
  const profiles = new ScimProfiles({
    store: deps.ledgerStore,
    list: deps.listProfiles,
    now,
    ...(deps.sleep === undefined ? {} : { sleep: deps.sleep }),
  });
  const processor: ProcessorDependencies = {
    platform: deps.platform,
    ledger: {
      ledger: new EntityLedger({
        store: deps.ledgerStore,
        tombstoneDays: deps.tombstoneDays ?? 15,
        now,
        ...(deps.sleep === undefined ? {} : { sleep: deps.sleep }),
      }),
      entity: userKind,
    },
    ...(deps.campaignRegion === undefined ? {} : { campaignRegion: deps.campaignRegion }),
    ...(deps.brake === undefined ? {} : { brake: deps.brake }),
    // A SCIM request answers its caller: nothing is ever dead-lettered.
    deadLetters: {
      send: async () => {
        throw new Error('a SCIM request is answered, never dead-lettered');
      },
    },
    logger: deps.logger,
    metrics: deps.metrics,
    now,
  };

  /** One request's context: when it was received, its id, its deadline, its base URL. */
  interface Request {
    readonly receivedAt: number;
    readonly requestId: string;
    readonly deadline: number;
    readonly baseUrl: string;
  }

  /** Sends one message through the pipeline, as the queue handler would, and reads its end. */
  const send = async (
    action: AnyAction,
    message: AddUserMessage | DeleteUserMessage,
    request: Request,
  ): Promise<Disposition> =>
    processMessage(
      action,
      {
        body: JSON.stringify(message),
        decoded: message,
        sourceMessageId: `scim-${request.requestId}`,
        receiveCount: 1,
        // The IdP retries what fails: the event leaves the ledger rather than wait for a
        // redelivery that never comes.
        isLastReceive: true,
        deadline: request.deadline,
        answersCaller: true,
        source: 'scim',
      },
      processor,
    );

  /** A delete the brake parked: never claimed done; the IdP retries after the operator decides. */
  const heldByBrake = () =>
    new ScimError(
      503,
      'the mass-delete brake holds this delete for an operator to release or discard; it is kept, not lost',
      undefined,
      heldDeleteSeconds,
    );

  /** Throws the SCIM answer of a message that did not end applied. */
  const mustApply = (disposition: Disposition): void => {
    const { outcome } = disposition;
    if (disposition.kind === 'applied') return;
    if (disposition.kind === 'held') throw heldByBrake();
    if (outcome.category === 'retryable') {
      throw new ScimError(
        503,
        `the platform cannot take this now (${outcome.code}); try again later`,
        undefined,
        Math.max(1, Math.ceil((outcome.retryAfterMs ?? DEFAULT_RETRY_AFTER_SECONDS * 1000) / 1000)),
      );
    }
    if (outcome.code === 'USER_EXISTS_NOT_OURS') {
      throw new ScimError(
        409,
        'userName: a user with this userName exists on the platform and was not created by this integration',
        'uniqueness',
      );
    }
    if (outcome.code === 'INVALID_MESSAGE') {
      throw badRequest('invalidValue', scimNames(outcome.message));
    }
    throw badRequest(
      'invalidValue',
      `the platform refused the user (${outcome.code}): ${scimNames(outcome.message)}`,
    );
  };

  const addMessage = (user: ScimUser, request: Request): AddUserMessage => ({
    correlationId: `scim-${request.requestId}`,
    occurredAt: new Date(request.receivedAt).toISOString(),
    loginUserId: user.userName,
    ...user.fields,
  });

  const deleteMessage = (userName: string, request: Request): DeleteUserMessage => ({
    correlationId: `scim-${request.requestId}`,
    occurredAt: new Date(request.receivedAt).toISOString(),
    loginUserId: userName,
  });

  const isThere = async (profile: ScimProfile): Promise<boolean> =>
    ledgerSaysThere(await deps.ledgerStore.read(userKey(profile.user.userName))) ??
    profile.user.active;

  const render = async (profile: ScimProfile, baseUrl: string) =>
    renderScimUser(
      { ...profile.user, active: await isThere(profile) },
      {
        id: profile.id,
        created: profile.created,
        lastModified: profile.lastModified,
        location: `${baseUrl}/Users/${profile.id}`,
      },
    );

  /** The user's profile, held for this request; 404 unless it is the live resource `id`. */
  const holdById = async (
    id: string,
    request: Request,
  ): Promise<HeldProfile & { profile: ScimProfile }> => {
    const userName = userNameOfId(id);
    if (userName === undefined) throw notFound(`no User with id ${id}`);
    const held = await hold(userName, request);
    const profile = held.profile;
    if (profile === undefined || profile.deleted === true || profile.id !== id) {
      await held.release();
      throw notFound(`no User with id ${id}`);
    }
    return { ...held, profile };
  };

  const hold = async (userName: string, request: Request): Promise<HeldProfile> => {
    try {
      return await profiles.hold(userName, request.requestId, request.deadline);
    } catch (error) {
      if (error instanceof ScimBusyError) {
        throw new ScimError(
          503,
          'another request for this user is running; try again',
          undefined,
          1,
        );
      }
      throw error;
    }
  };

  const expiry = (seconds: number) => Math.floor(now() / 1000) + seconds;

  const saveProfile = async (held: HeldProfile, profile: ScimProfile): Promise<void> => {
    await held.save(profile, profile.deleted === true ? expiry(tombstoneSeconds) : undefined);
    if (profile.deleted !== true && profile.user.externalId !== undefined) {
      await profiles.noteExternalId(
        profile.user.externalId,
        profile.user.userName,
        expiry(400 * DAY_SECONDS),
      );
    }
  };

  /** Brings the platform to `active` for the user, through the pipeline; throws what it cannot. */
  const makeActive = async (
    profile: ScimProfile,
    user: ScimUser,
    active: boolean,
    request: Request,
  ): Promise<ScimProfile> => {
    const there = await isThere(profile);
    if (active === there) return profile;
    if (active) {
      mustApply(await send(addUser, addMessage(user, request), request));
      return profile;
    }
    if ((profile.heldDeleteUntil ?? 0) > request.receivedAt) {
      // The IdP repeats a delete the brake holds: the held one stands; a second is not parked.
      throw new ScimError(
        503,
        'the mass-delete brake holds this delete for an operator to release or discard',
        undefined,
        Math.ceil(((profile.heldDeleteUntil ?? 0) - request.receivedAt) / 1000),
      );
    }
    const disposition = await send(deleteUser, deleteMessage(user.userName, request), request);
    if (disposition.kind === 'held') {
      return { ...profile, heldDeleteUntil: request.receivedAt + heldDeleteSeconds * 1000 };
    }
    mustApply(disposition);
    return profile;
  };

  const stamp = (request: Request) => new Date(request.receivedAt).toISOString();

  const createUser = async (event: APIGatewayProxyEvent, request: Request) => {
    const user = readScimUser(bodyOf(event), deps.defaults);
    const held = await hold(user.userName, request);
    try {
      if (held.profile !== undefined && held.profile.deleted !== true) {
        throw new ScimError(
          409,
          `userName: a User with this userName exists (id ${held.profile.id})`,
          'uniqueness',
        );
      }
      const message = addMessage(user, request);
      const createdBy = versionOf(
        addUser.ordering?.rank ?? 'create',
        addUser.ordering?.op(message),
        request.receivedAt,
      );
      if (user.active) mustApply(await send(addUser, message, request));
      const profile: ScimProfile = {
        schema: 1,
        id: resourceId(user.userName, createdBy),
        user,
        created: stamp(request),
        lastModified: stamp(request),
      };
      await saveProfile(held, profile);
      return answer(201, await render(profile, request.baseUrl), {
        Location: `${request.baseUrl}/Users/${profile.id}`,
      });
    } finally {
      await held.release();
    }
  };

  /** PUT and PATCH: the user as the request leaves it, immutable attributes unchanged. */
  const replaceUser = async (
    id: string,
    request: Request,
    next: (current: ScimUser & { readonly rendered: Record<string, unknown> }) => ScimUser,
  ) => {
    const held = await holdById(id, request);
    try {
      const current = held.profile;
      const rendered = await render(current, request.baseUrl);
      const wanted = next({ ...current.user, active: rendered.active, rendered });
      const changed = changedImmutable(current.user, wanted);
      if (changed !== undefined) {
        throw new ScimError(
          400,
          `${changed} is immutable: the platform has no call that changes a user once created`,
          'mutability',
        );
      }
      const settled = await makeActive(current, current.user, wanted.active, request);
      const profile: ScimProfile = {
        ...settled,
        user: { ...wanted, fields: current.user.fields },
        lastModified: stamp(request),
      };
      await saveProfile(held, profile);
      if (
        settled.heldDeleteUntil !== undefined &&
        settled.heldDeleteUntil !== current.heldDeleteUntil
      ) {
        throw heldByBrake();
      }
      return answer(200, await render(profile, request.baseUrl));
    } finally {
      await held.release();
    }
  };

  const putUser = (event: APIGatewayProxyEvent, id: string, request: Request) => {
    const body = bodyOf(event);
    return replaceUser(id, request, (current) => {
      // What a PUT leaves out of what cannot change anyway is kept, not cleared: IdPs that
      // cannot send the extension, or a second e-mail, would otherwise be refused.
      const defaults = {
        userTemplateName: current.fields.userTemplateName,
        createInCloudConnect: current.fields.createInCloudConnect ?? false,
      };
      const user = readScimUser(body, defaults);
      const withEmails =
        isObject(body) && attr(body, 'emails') === undefined
          ? {
              ...user,
              fields: {
                ...user.fields,
                ...(current.fields.primaryEmailAddr === undefined
                  ? {}
                  : { primaryEmailAddr: current.fields.primaryEmailAddr }),
                ...(current.fields.secondaryEmailAddr === undefined
                  ? {}
                  : { secondaryEmailAddr: current.fields.secondaryEmailAddr }),
              },
            }
          : user;
      return withEmails;
    });
  };

  const patchUser = (event: APIGatewayProxyEvent, id: string, request: Request) => {
    const body = bodyOf(event);
    return replaceUser(id, request, (current) =>
      readScimUser(applyPatch(current.rendered, body), {
        userTemplateName: current.fields.userTemplateName,
        createInCloudConnect: current.fields.createInCloudConnect ?? false,
      }),
    );
  };

  const deleteResource = async (id: string, request: Request) => {
    const held = await holdById(id, request);
    try {
      const settled = await makeActive(held.profile, held.profile.user, false, request);
      if (settled.heldDeleteUntil !== held.profile.heldDeleteUntil) {
        await saveProfile(held, settled);
        throw heldByBrake();
      }
      await saveProfile(held, { ...settled, deleted: true, lastModified: stamp(request) });
      return answer(204, undefined);
    } finally {
      await held.release();
    }
  };

  const getUser = async (id: string, request: Request) => {
    const userName = userNameOfId(id);
    const profile = userName === undefined ? undefined : await profiles.read(userName);
    if (profile === undefined || profile.deleted === true || profile.id !== id) {
      throw notFound(`no User with id ${id}`);
    }
    return answer(200, await render(profile, request.baseUrl));
  };

  const listUsers = async (event: APIGatewayProxyEvent, request: Request) => {
    const query = event.queryStringParameters ?? {};
    const count = integerParameter(query.count, 'count');
    if (count !== undefined && count > deps.maxResults) {
      throw badRequest(
        'invalidValue',
        `count ${count} is over this endpoint's maximum of ${deps.maxResults} (filter.maxResults)`,
      );
    }
    const startIndex = Math.max(1, integerParameter(query.startIndex, 'startIndex') ?? 1);
    const pageSize = Math.max(0, count ?? deps.maxResults);
    let found: ScimProfile[];
    if (query.filter !== undefined && query.filter !== '') {
      const filter = parseUserFilter(query.filter);
      const profile =
        filter.attribute === 'userName'
          ? await profiles.read(filter.value)
          : await profiles.byExternalId(filter.value);
      found = profile === undefined || profile.deleted === true ? [] : [profile];
    } else {
      found = [];
      for await (const profile of profiles.all()) {
        if (profile.deleted !== true) found.push(profile);
      }
      found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    }
    const page = found.slice(startIndex - 1, startIndex - 1 + pageSize);
    const resources = await Promise.all(page.map((p) => render(p, request.baseUrl)));
    return answer(200, {
      schemas: [LIST_SCHEMA],
      totalResults: found.length,
      startIndex,
      itemsPerPage: resources.length,
      Resources: resources,
    });
  };

  const route = async (event: APIGatewayProxyEvent, request: Request) => {
    const [resource, id, ...rest] = routeOf(event);
    const method = event.httpMethod.toUpperCase();
    const only = (allowed: string) => {
      if (method !== allowed) throw new ScimError(405, `${method} is not supported here`);
    };
    if (rest.length > 0) throw notFound('no such resource');
    switch (resource) {
      case 'ServiceProviderConfig':
        only('GET');
        return answer(200, serviceProviderConfig(request.baseUrl, deps.maxResults));
      case 'Schemas': {
        only('GET');
        const all = schemas(request.baseUrl);
        if (id === undefined) return answer(200, listOf(all));
        const one = all.find((s) => s.id === id);
        if (one === undefined) throw notFound(`no schema ${id}`);
        return answer(200, one);
      }
      case 'ResourceTypes': {
        only('GET');
        const all = resourceTypes(request.baseUrl);
        if (id === undefined) return answer(200, listOf(all));
        const one = all.find((r) => r.id === id);
        if (one === undefined)
          throw notFound(`no resource type ${id}: this endpoint serves User only`);
        return answer(200, one);
      }
      case 'Users':
        if (id === undefined) {
          if (method === 'GET') return listUsers(event, request);
          only('POST');
          return createUser(event, request);
        }
        switch (method) {
          case 'GET':
            return getUser(id, request);
          case 'PUT':
            return putUser(event, id, request);
          case 'PATCH':
            return patchUser(event, id, request);
          case 'DELETE':
            return deleteResource(id, request);
          default:
            throw new ScimError(405, `${method} is not supported on a User`);
        }
      default:
        throw notFound(
          resource === 'Groups'
            ? 'Groups are not served: the platform has no groups (see /ResourceTypes)'
            : `no resource ${resource ?? '(none)'}: this endpoint serves /Users and discovery`,
        );
    }
  };

  return async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const receivedAt = event.requestContext?.requestTimeEpoch ?? now();
    const request: Request = {
      receivedAt,
      requestId: event.requestContext?.requestId ?? context.awsRequestId,
      deadline: Math.min(
        now() + budgetMs,
        now() + Math.max(0, context.getRemainingTimeInMillis() - 1000),
      ),
      baseUrl: baseUrlOf(event),
    };
    try {
      await auth.check(header(event, 'authorization'));
      return await route(event, request);
    } catch (error) {
      if (error instanceof ScimError) return errorAnswer(error);
      // Its text may quote personal data: the log names only its kind and where it was thrown.
      deps.logger.error('SCIM request failed', {
        requestId: request.requestId,
        errorKind: error instanceof Error ? error.name : typeof error,
        stack: error instanceof Error ? error.stack?.split('\n').slice(1).join('\n') : undefined,
      });
      return errorAnswer(
        new ScimError(
          500,
          'the request failed; the function log names why (search for its requestId)',
        ),
      );
    } finally {
      deps.metrics.publishStoredMetrics();
    }
  };
};
