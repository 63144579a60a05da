import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { ApiKeySource, HeldMessageSink } from '../core/entry/ports';
import { EntityLedger } from '../core/ledger/entity-ledger';
import type { LedgerStore } from '../core/ledger/ledger-store';
import type { PlatformCaller } from '../core/platform/platform-caller';
import type { MassDeleteBrake } from '../core/resilience/mass-delete-brake';
import { user as userKind } from '../entities/user';
import { ScimAuthenticator } from './scim-auth';
import { listOf, resourceTypes, schemas, serviceProviderConfig } from './scim-discovery';
import { notFound, ScimError } from './scim-error';
import { answer, errorAnswer, header, requestOf, routeOf, type ScimRequest } from './scim-http';
import { type ProfileLister, ScimProfiles } from './scim-profiles';
import type { ScimDefaults } from './scim-user';
import { UsersResource } from './scim-users';
import { ScimWrites } from './scim-writes';

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
  /** Publishes the breaker state after each request (PlatformUnavailable). @default none */
  readonly availability?: { publish(): void };
}

const DAY_SECONDS = 86_400;

export const createScimHandler = (deps: ScimHandlerDependencies) => {
  const now = deps.now ?? Date.now;
  const budgetMs = deps.budgetMs ?? 25_000;
  const heldDeleteSeconds = deps.heldDeleteSeconds ?? 900;
  const tombstoneDays = deps.tombstoneDays ?? 15;
  const sleep = deps.sleep === undefined ? {} : { sleep: deps.sleep };
  const auth = new ScimAuthenticator(deps.tokens, { now });
  const writes = new ScimWrites({
    processor: {
      platform: deps.platform,
      ledger: {
        ledger: new EntityLedger({ store: deps.ledgerStore, tombstoneDays, now, ...sleep }),
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
    },
    store: deps.ledgerStore,
    heldDeleteSeconds,
  });
  const users = new UsersResource({
    profiles: new ScimProfiles({ store: deps.ledgerStore, list: deps.listProfiles, now, ...sleep }),
    writes,
    defaults: deps.defaults,
    maxResults: deps.maxResults,
    tombstoneSeconds: tombstoneDays * DAY_SECONDS,
    heldDeleteSeconds,
    now,
  });

  const route = async (event: APIGatewayProxyEvent, request: ScimRequest) => {
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
          if (method === 'GET') return users.list(event, request);
          only('POST');
          return users.create(event, request);
        }
        switch (method) {
          case 'GET':
            return users.get(event, id, request);
          case 'PUT':
            return users.put(event, id, request);
          case 'PATCH':
            return users.patch(event, id, request);
          case 'DELETE':
            return users.delete(id, request);
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

  /** One line per request without personal data: the path's template, never its id or query. */
  const logAnswer = (
    event: APIGatewayProxyEvent,
    request: ScimRequest,
    answered: APIGatewayProxyResult,
    error?: ScimError,
  ): APIGatewayProxyResult => {
    const [resource, id] = routeOf(event);
    const fields = {
      requestId: request.requestId,
      method: event.httpMethod,
      resource: `/${resource ?? ''}${id === undefined ? '' : '/{id}'}`,
      status: answered.statusCode,
      ...(error?.scimType === undefined ? {} : { scimType: error.scimType }),
      latencyMs: now() - request.startedAt,
    };
    if (answered.statusCode >= 500) deps.logger.warn('SCIM request answered', fields);
    else deps.logger.info('SCIM request answered', fields);
    // Every request counts (a read alone would otherwise publish no metric, and warn so).
    deps.metrics.addMetric('ScimRequests', MetricUnit.Count, 1);
    if (answered.statusCode >= 500) deps.metrics.addMetric('ScimServerErrors', MetricUnit.Count, 1);
    else if (answered.statusCode >= 400) {
      deps.metrics.addMetric('ScimClientErrors', MetricUnit.Count, 1);
    }
    return answered;
  };

  return async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const request = requestOf(event, context, now, budgetMs);
    try {
      await auth.check(header(event, 'authorization'));
      return logAnswer(event, request, await route(event, request));
    } catch (error) {
      if (error instanceof ScimError) return logAnswer(event, request, errorAnswer(error), error);
      // Its text may quote personal data: the log names only its kind and where it was thrown.
      deps.logger.error('SCIM request failed', {
        requestId: request.requestId,
        errorKind: error instanceof Error ? error.name : typeof error,
        stack: error instanceof Error ? error.stack?.split('\n').slice(1).join('\n') : undefined,
      });
      const failed = new ScimError(
        500,
        'the request failed; the function log names why (search for its requestId)',
      );
      return logAnswer(event, request, errorAnswer(failed), failed);
    } finally {
      deps.availability?.publish();
      deps.metrics.publishStoredMetrics();
    }
  };
};
