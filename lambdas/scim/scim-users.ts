import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Whose } from '../entities/user/known';
import { LIST_SCHEMA, PLATFORM_EXTENSION } from './scim-discovery';
import { badRequest, notFound, ScimError } from './scim-error';
import { parseUserFilter } from './scim-filter';
import { answer, bodyOf, integerParameter, type ScimRequest } from './scim-http';
import { applyPatch } from './scim-patch';
import {
  type HeldProfile,
  resourceId,
  ScimBusyError,
  type ScimProfile,
  type ScimProfiles,
  userNameOfId,
} from './scim-profiles';
import { project } from './scim-projection';
import {
  attr,
  changedImmutable,
  isObject,
  readScimUser,
  renderScimUser,
  type ScimDefaults,
  type ScimUser,
} from './scim-user';
import { addMessage, addVersion, type ScimWrites } from './scim-writes';

/**
 * The /Users resource (RFC 7644 §3.3-§3.6): POST, GET by id and by filter with paging, PUT,
 * PATCH and DELETE. Each request holds its user's SCIM item (`scim-profiles.ts`) while it runs;
 * what changes the platform goes through `ScimWrites`; `active` is answered from the ledger.
 */
const DAY_SECONDS = 86_400;

/** Attributes a PUT that leaves them out keeps as they are. */
const KEPT_BY_PUT = ['name', 'emails', 'active', PLATFORM_EXTENSION] as const;

export interface UsersOptions {
  readonly profiles: ScimProfiles;
  readonly writes: ScimWrites;
  readonly defaults: ScimDefaults;
  readonly maxResults: number;
  readonly tombstoneSeconds: number;
  /** Seconds an IdP's repeat of a delete the brake held is not parked again. */
  readonly heldDeleteSeconds: number;
  readonly now: () => number;
}

export class UsersResource {
  readonly #o: UsersOptions;

  constructor(options: UsersOptions) {
    this.#o = options;
  }

  async create(event: APIGatewayProxyEvent, received: ScimRequest): Promise<APIGatewayProxyResult> {
    const user = readScimUser(bodyOf(event), this.#o.defaults);
    const held = await this.#hold(user.userName, received);
    const { request } = held;
    try {
      if (held.profile !== undefined && held.profile.deleted !== true) {
        throw new ScimError(
          409,
          `userName: a User with this userName exists (id ${held.profile.id})`,
          'uniqueness',
        );
      }
      if (user.active) await this.#o.writes.add(user, request);
      const profile: ScimProfile = {
        schema: 1,
        id: resourceId(user.userName, addVersion(addMessage(user, request), request.receivedAt)),
        user,
        created: stamp(request),
        lastModified: stamp(request),
      };
      await this.#save(held, profile);
      return answer(201, await this.#render(profile, request.baseUrl), {
        Location: `${request.baseUrl}/Users/${profile.id}`,
      });
    } finally {
      await held.release(this.#expiry(this.#o.tombstoneSeconds));
    }
  }

  async get(
    event: APIGatewayProxyEvent,
    id: string,
    request: ScimRequest,
  ): Promise<APIGatewayProxyResult> {
    const userName = userNameOfId(id);
    const profile = userName === undefined ? undefined : await this.#o.profiles.read(userName);
    if (profile === undefined || profile.deleted === true || profile.id !== id) {
      throw notFound(`no User with id ${id}`);
    }
    return answer(
      200,
      project(await this.#render(profile, request.baseUrl), event.queryStringParameters ?? {}),
    );
  }

  async list(event: APIGatewayProxyEvent, request: ScimRequest): Promise<APIGatewayProxyResult> {
    const query = event.queryStringParameters ?? {};
    const { maxResults } = this.#o;
    const count = integerParameter(query.count, 'count');
    if (count !== undefined && count > maxResults) {
      throw badRequest(
        'invalidValue',
        `count ${count} is over this endpoint's maximum of ${maxResults} (filter.maxResults)`,
      );
    }
    // RFC 7644 §3.4.2.4: a startIndex below 1 is 1, a negative count is 0.
    const startIndex = Math.max(1, integerParameter(query.startIndex, 'startIndex') ?? 1);
    const pageSize = Math.max(0, count ?? maxResults);
    let found: ScimProfile[];
    if (query.filter !== undefined && query.filter !== '') {
      const filter = parseUserFilter(query.filter);
      const profile =
        filter.attribute === 'userName'
          ? await this.#o.profiles.read(filter.value)
          : await this.#o.profiles.byExternalId(filter.value);
      found = profile === undefined || profile.deleted === true ? [] : [profile];
    } else {
      found = [];
      for await (const profile of this.#o.profiles.all()) {
        if (profile.deleted !== true) found.push(profile);
      }
      found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    }
    const page = found.slice(startIndex - 1, startIndex - 1 + pageSize);
    const resources = await Promise.all(
      page.map(async (p) => project(await this.#render(p, request.baseUrl), query)),
    );
    return answer(200, {
      schemas: [LIST_SCHEMA],
      totalResults: found.length,
      startIndex,
      itemsPerPage: resources.length,
      Resources: resources,
    });
  }

  put(event: APIGatewayProxyEvent, id: string, request: ScimRequest) {
    const body = bodyOf(event);
    return this.#replace(id, request, (current, rendered) => {
      if (!isObject(body)) return readScimUser(body, extensionOf(current));
      // What a PUT leaves out of what cannot change (names, e-mails, the extension) is kept, not
      // cleared, and so is `active`: IdPs that cannot send the extension or a second e-mail are
      // not refused, and a PUT without `active` does not reactivate a deactivated user.
      const filled = { ...body };
      for (const name of KEPT_BY_PUT) {
        if (attr(body, name) === undefined && rendered[name] !== undefined)
          filled[name] = rendered[name];
      }
      return readScimUser(filled, extensionOf(current));
    });
  }

  patch(event: APIGatewayProxyEvent, id: string, request: ScimRequest) {
    const body = bodyOf(event);
    return this.#replace(id, request, (current, rendered) => {
      const patched = applyPatch(rendered, body);
      // A removed extension attribute would read as the deployment's default: a change.
      const before = rendered[PLATFORM_EXTENSION];
      const after = attr(patched, PLATFORM_EXTENSION);
      for (const name of Object.keys(isObject(before) ? before : {})) {
        if (!isObject(after) || attr(after, name) === undefined) {
          throw immutable(`${PLATFORM_EXTENSION}:${name}`);
        }
      }
      return readScimUser(patched, extensionOf(current));
    });
  }

  async delete(id: string, received: ScimRequest): Promise<APIGatewayProxyResult> {
    const held = await this.#holdById(id, received);
    const { request } = held;
    try {
      const settled = await this.#makeActive(held.profile, false, request, true);
      if (settled.heldDeleteUntil !== held.profile.heldDeleteUntil) {
        await this.#save(held, settled);
        throw this.#o.writes.heldByBrake();
      }
      await this.#save(held, { ...settled, deleted: true, lastModified: stamp(request) });
      return answer(204, undefined);
    } finally {
      await held.release(this.#expiry(this.#o.tombstoneSeconds));
    }
  }

  /** PUT and PATCH: the user as the request leaves it, immutable attributes unchanged. */
  async #replace(
    id: string,
    received: ScimRequest,
    next: (current: ScimUser, rendered: Record<string, unknown>) => ScimUser,
  ): Promise<APIGatewayProxyResult> {
    const held = await this.#holdById(id, received);
    const { request } = held;
    try {
      const current = held.profile;
      const rendered = await this.#render(current, request.baseUrl);
      const wanted = next({ ...current.user, active: rendered.active }, rendered);
      const changed = changedImmutable(current.user, wanted);
      if (changed !== undefined) throw immutable(changed);
      const settled = await this.#makeActive(current, wanted.active, request);
      const profile: ScimProfile = {
        ...settled,
        user: { ...wanted, fields: current.user.fields },
        lastModified: stamp(request),
      };
      await this.#save(held, profile);
      if (settled.heldDeleteUntil !== current.heldDeleteUntil) throw this.#o.writes.heldByBrake();
      return answer(200, await this.#render(profile, request.baseUrl));
    } finally {
      await held.release(this.#expiry(this.#o.tombstoneSeconds));
    }
  }

  /**
   * Brings the platform to `active` for the user. An event is sent whenever the request changes
   * the IdP's view (the item's `active`) or the ledger's, and for every DELETE (`always`), so a
   * queue message that arrives late is ordered against it. A delete of a user the ledger knows is
   * gone removes nothing (a late older add is then skipped as stale): the brake does not count it.
   * A user the ledger finds someone else's is never sent a delete.
   */
  async #makeActive(
    profile: ScimProfile,
    active: boolean,
    request: ScimRequest,
    always = false,
  ): Promise<ScimProfile> {
    const { writes } = this.#o;
    const { user } = profile;
    const place = await writes.ledgerPlace(user.userName);
    if (active) {
      if (isThere(place, user.active) && user.active) return profile;
      await writes.add(user, request);
      return profile;
    }
    if (place === 'theirs') return profile;
    if (place === 'absent') {
      if (always || user.active) await writes.remove(user.userName, request, true);
      return profile;
    }
    const heldUntil = profile.heldDeleteUntil ?? 0;
    if (heldUntil > request.receivedAt) {
      // The IdP repeats a delete the brake holds: the held one stands; a second is not parked.
      throw writes.heldByBrake(Math.ceil((heldUntil - request.receivedAt) / 1000));
    }
    if ((await writes.remove(user.userName, request, false)) === 'held') {
      return { ...profile, heldDeleteUntil: request.receivedAt + this.#o.heldDeleteSeconds * 1000 };
    }
    return profile;
  }

  async #render(profile: ScimProfile, baseUrl: string) {
    const place = await this.#o.writes.ledgerPlace(profile.user.userName);
    return renderScimUser(
      { ...profile.user, active: isThere(place, profile.user.active) },
      {
        id: profile.id,
        created: profile.created,
        lastModified: profile.lastModified,
        location: `${baseUrl}/Users/${profile.id}`,
      },
    );
  }

  /**
   * The user's item, held for this request, and the request as its user's next event. The hold
   * runs one user's requests one at a time; each must also be ordered after the one before when
   * both arrived within the same millisecond (an event's version orders by its time first: a
   * reactivation would otherwise sort before the deactivation it follows, and be skipped).
   */
  async #hold(
    userName: string,
    request: ScimRequest,
  ): Promise<HeldProfile & { readonly request: ScimRequest }> {
    try {
      const held = await this.#o.profiles.hold(userName, request.requestId, request.deadline);
      const last = held.profile === undefined ? undefined : Date.parse(held.profile.lastModified);
      return {
        ...held,
        request:
          last === undefined || request.receivedAt > last
            ? request
            : { ...request, receivedAt: last + 1 },
      };
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
  }

  /** The user's item, held for this request; 404 unless it is the live resource `id`. */
  async #holdById(
    id: string,
    request: ScimRequest,
  ): Promise<HeldProfile & { profile: ScimProfile; request: ScimRequest }> {
    const userName = userNameOfId(id);
    if (userName === undefined) throw notFound(`no User with id ${id}`);
    const held = await this.#hold(userName, request);
    const profile = held.profile;
    if (profile === undefined || profile.deleted === true || profile.id !== id) {
      await held.release(this.#expiry(this.#o.tombstoneSeconds));
      throw notFound(`no User with id ${id}`);
    }
    return { ...held, profile };
  }

  #expiry(seconds: number): number {
    return Math.floor(this.#o.now() / 1000) + seconds;
  }

  async #save(held: HeldProfile, profile: ScimProfile): Promise<void> {
    const expiry = (seconds: number) => this.#expiry(seconds);
    await held.save(
      profile,
      profile.deleted === true ? expiry(this.#o.tombstoneSeconds) : undefined,
    );
    if (profile.deleted !== true && profile.user.externalId !== undefined) {
      await this.#o.profiles.noteExternalId(
        profile.user.externalId,
        profile.user.userName,
        expiry(400 * DAY_SECONDS),
      );
    }
  }
}

/** Our user is on the platform, as the ledger knows; what the IdP asked while it cannot tell. */
const isThere = (place: Whose | undefined, asked: boolean): boolean =>
  place === undefined ? asked : place === 'ours';

const immutable = (name: string): ScimError =>
  new ScimError(
    400,
    `${name} is immutable: the platform has no call that changes a user once created`,
    'mutability',
  );

const stamp = (request: ScimRequest) => new Date(request.receivedAt).toISOString();

/** The extension's values a request without the extension keeps. */
const extensionOf = (user: ScimUser): ScimDefaults => ({
  userTemplateName: user.fields.userTemplateName,
  createInCloudConnect: user.fields.createInCloudConnect ?? false,
});
