import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultInjector, type FaultKind, type FaultSettings, validateFaultSettings } from './faults';
import {
  handleProvisioning,
  isProvisioningEndpoint,
  PROVISIONING_PATH_PREFIX,
  type ProvisioningEndpoint,
  failure as provisioningFailure,
  type UserDirectory,
} from './provisioning-service';
import {
  handleRealtime,
  isRealtimeEndpoint,
  REALTIME_PATH_PREFIX,
  type RealtimeEndpoint,
  realtimeEnvelope,
  type Tenant,
} from './realtime-service';
import { isJsonObject, type JsonObject } from './request-fields';
import { SimulatorState } from './state';
import { SimulatorStats } from './stats';

export type { FaultKind, FaultSettings } from './faults';
export { FAULT_KINDS, validateFaultSettings } from './faults';
export type {
  ProvisioningEndpoint,
  ProvisioningResponse,
  UserDirectory,
} from './provisioning-service';
export { PROVISIONING_ENDPOINTS, PROVISIONING_PATH_PREFIX } from './provisioning-service';
export type { RealtimeEndpoint, RealtimeResponse } from './realtime-service';
export { DEFAULT_MAX_RECORDS, REALTIME_ENDPOINTS, REALTIME_PATH_PREFIX } from './realtime-service';
export type {
  AddUserInput,
  AppliedOperation,
  CampaignDefaults,
  CampaignRecordResponse,
  PutRecordInput,
  RecordLocator,
  RecordView,
  StateSnapshot,
  StoredDataItem,
  UserView,
  WorkCode,
  WorkedState,
} from './state';
export { DEFAULT_SKILL_QUEUE, DEFAULT_TIME_ZONE, SimulatorState, WORKED_STATES } from './state';
export type { EndpointStats, StatsSnapshot } from './stats';
export { SimulatorStats } from './stats';
export { formatPlatformTime } from './time-format';

export interface SimulatorOptions {
  /** 0 / undefined = ephemeral port. */
  readonly port?: number;
  /** @default 127.0.0.1 */
  readonly host?: string;
  readonly apiKey: string;
  readonly platformCode: string;
  readonly companyCode: string;
  readonly environmentName: string;
  /** When given, `X-sc-secrets-region` must equal it; otherwise any well-formed AWS region name. */
  readonly secretsRegion?: string;
  readonly faults?: FaultSettings;
  /** Clock for createdTime, lastUpdatedTime etc. @default Date.now */
  readonly now?: () => number;
  /** Seed of the fault RNG. @default 1 */
  readonly seed?: number;
  /**
   * When given, exactly these campaigns exist and no other is created on demand (writes and
   * reads naming another answer FAILED "campaign not found"). By default any campaign name
   * exists: empty until the first add or transfer into it.
   */
  readonly campaigns?: readonly string[];
  /** How the environment authenticates users (provisioning). @default 'saml' */
  readonly userDirectory?: UserDirectory;
  /** Bodies above this size get HTTP 413. @default 1 MiB */
  readonly maxBodyBytes?: number;
}

export interface RunningSimulator {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  readonly port: number;
  /** Simulates rotation: the old key gets 401 from now on. */
  setApiKey(key: string): void;
  /** Replaces all fault settings (omitted ones switch off); throws on invalid settings. */
  setFaults(faults: FaultSettings): void;
  /** Current fault settings. */
  readonly faults: FaultSettings;
  /** Read and seed the in-memory platform directly. */
  readonly state: SimulatorState;
  readonly stats: SimulatorStats;
  /** Clears data, stats and faults, and restores the API key given at start. */
  reset(): void;
  close(): Promise<void>;
}

type Route =
  | { readonly service: 'realtime'; readonly endpoint: RealtimeEndpoint }
  | { readonly service: 'provisioning'; readonly endpoint: ProvisioningEndpoint };

const HEADERS = {
  platform: 'x-sc-platform-code',
  company: 'x-sc-company-code',
  environment: 'x-sc-company-environment',
  secretsRegion: 'x-sc-secrets-region',
  apiKey: 'x-sc-company-api-key',
} as const;

/** Canonical spelling for messages (Node lower-cases incoming header names). */
const HEADER_LABEL: Readonly<Record<string, string>> = {
  [HEADERS.platform]: 'X-sc-platform-code',
  [HEADERS.company]: 'X-sc-company-code',
  [HEADERS.environment]: 'X-sc-company-environment',
  [HEADERS.secretsRegion]: 'X-sc-secrets-region',
  [HEADERS.apiKey]: 'X-sc-company-api-key',
};

const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

const HTML_ERROR_PAGE =
  '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>' +
  '<body><h1>502 Bad Gateway</h1><p>The upstream server returned an invalid response.</p></body></html>';

const SERVER_ERROR_TEXT: Readonly<Record<number, string>> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

const resolveRoute = (pathname: string): Route | undefined => {
  if (pathname.startsWith(REALTIME_PATH_PREFIX)) {
    const endpoint = pathname.slice(REALTIME_PATH_PREFIX.length);
    return isRealtimeEndpoint(endpoint) ? { service: 'realtime', endpoint } : undefined;
  }
  if (pathname.startsWith(PROVISIONING_PATH_PREFIX)) {
    const endpoint = pathname.slice(PROVISIONING_PATH_PREFIX.length);
    return isProvisioningEndpoint(endpoint) ? { service: 'provisioning', endpoint } : undefined;
  }
  return undefined;
};

const isJsonContentType = (value: string | undefined): boolean =>
  value?.split(';')[0]?.trim().toLowerCase() === 'application/json';

class BodyTooLarge extends Error {}

const readBody = (req: IncomingMessage, limit: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () =>
      tooLarge ? reject(new BodyTooLarge()) : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });

const sendJson = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
};

const requireNonEmpty = (value: string, name: string): string => {
  if (typeof value !== 'string' || value.length === 0) {
    throw new Error(`simulator option ${name} must be a non-empty string`);
  }
  return value;
};

/** Starts the platform simulator (both services, in memory) on a loopback port. */
export const startSimulator = async (options: SimulatorOptions): Promise<RunningSimulator> => {
  const initialApiKey = requireNonEmpty(options.apiKey, 'apiKey');
  const tenant: Tenant = {
    platformCode: requireNonEmpty(options.platformCode, 'platformCode'),
    companyCode: requireNonEmpty(options.companyCode, 'companyCode'),
    environmentName: requireNonEmpty(options.environmentName, 'environmentName'),
  };
  const userDirectory = options.userDirectory ?? 'saml';
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const state = new SimulatorState({
    now: options.now ?? Date.now,
    autoCreateCampaigns: options.campaigns === undefined,
    ...(options.campaigns ? { campaigns: options.campaigns } : {}),
  });
  const stats = new SimulatorStats();
  const faults = new FaultInjector(options.faults ?? {}, options.seed ?? 1);
  const pendingTimers = new Set<NodeJS.Timeout>();
  let apiKey = initialApiKey;

  const delay = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        pendingTimers.delete(timer);
        resolve();
      }, ms);
      pendingTimers.add(timer);
    });

  /** Why the headers are rejected, or undefined when they are fine. Never echoes values. */
  const authProblem = (req: IncomingMessage): string | undefined => {
    const expected: readonly [string, (value: string) => boolean][] = [
      [HEADERS.platform, (v) => v === tenant.platformCode],
      [HEADERS.company, (v) => v === tenant.companyCode],
      [HEADERS.environment, (v) => v === tenant.environmentName],
      [
        HEADERS.secretsRegion,
        (v) =>
          options.secretsRegion === undefined ? AWS_REGION.test(v) : v === options.secretsRegion,
      ],
      [HEADERS.apiKey, (v) => v === apiKey],
    ];
    for (const [name, accepts] of expected) {
      const value = req.headers[name];
      if (typeof value !== 'string' || value.length === 0)
        return `missing header ${HEADER_LABEL[name]}`;
      if (!accepts(value)) return `invalid header ${HEADER_LABEL[name]}`;
    }
    return undefined;
  };

  const answer = (
    res: ServerResponse,
    route: Route,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void => {
    const result = isJsonObject(body)
      ? isJsonObject(body.previewResult)
        ? body.previewResult.previewResultStatus
        : body.result
      : undefined;
    stats.countAnswer(route.endpoint, status, typeof result === 'string' ? result : undefined);
    sendJson(res, status, body, headers);
  };

  const failedStatusBody = (route: Route, body: JsonObject): unknown =>
    route.service === 'realtime'
      ? realtimeEnvelope(route.endpoint, body, 'FAILED', 'simulated failure, please retry')
      : provisioningFailure(route.endpoint, 'FAIL', 'simulated failure, please retry');

  const handleSpec = async (req: IncomingMessage, res: ServerResponse, route: Route) => {
    stats.countRequest(route.endpoint);
    let bodyText: string;
    try {
      bodyText = await readBody(req, maxBodyBytes);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      answer(res, route, 413, { message: 'request body too large' }, { Connection: 'close' });
      return;
    }
    if (req.method !== 'POST') {
      answer(res, route, 405, { message: 'method not allowed' }, { Allow: 'POST' });
      return;
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      answer(res, route, 415, { message: 'Content-Type must be application/json' });
      return;
    }

    // Decided before anything is applied, so a fault (other than a lost response) leaves the
    // platform unchanged.
    const fault: FaultKind | undefined = faults.decide(route.endpoint);
    if (faults.latencyMs > 0) {
      stats.countDelay();
      await delay(faults.latencyMs);
    }
    if (fault !== undefined) stats.countFault(route.endpoint, fault);
    switch (fault) {
      case 'connectionReset':
        req.socket.destroy();
        return;
      case 'hang':
        // Never answered; the socket closes when the client gives up or the simulator stops.
        return;
      case 'serverError': {
        const status = faults.serverErrorStatus();
        answer(res, route, status, { message: SERVER_ERROR_TEXT[status] ?? 'Server Error' });
        return;
      }
      case 'throttle': {
        const retryAfter = faults.retryAfterSeconds;
        answer(
          res,
          route,
          429,
          { message: 'Too Many Requests' },
          retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) },
        );
        return;
      }
      case 'malformedBody':
        stats.countAnswer(route.endpoint, 200);
        res.writeHead(200, {
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Length': Buffer.byteLength(HTML_ERROR_PAGE),
        });
        res.end(HTML_ERROR_PAGE);
        return;
      default:
        break;
    }

    const problem = authProblem(req);
    if (problem !== undefined) {
      answer(res, route, 401, { result: 'UNAUTHORIZED', message: problem });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      answer(res, route, 400, { message: 'request body is not valid JSON' });
      return;
    }
    if (!isJsonObject(body)) {
      answer(res, route, 400, { message: 'request body must be a JSON object' });
      return;
    }
    if (fault === 'failedStatus') {
      answer(res, route, 200, failedStatusBody(route, body));
      return;
    }
    const response =
      route.service === 'realtime'
        ? handleRealtime(route.endpoint, body, state, tenant)
        : handleProvisioning(route.endpoint, body, state, tenant, userDirectory);
    if (fault === 'lostResponse') {
      // Applied above; the client never learns the outcome.
      req.socket.destroy();
      return;
    }
    answer(res, route, 200, response);
  };

  const handleAdmin = async (req: IncomingMessage, res: ServerResponse, pathname: string) => {
    const bodyText = await readBody(req, maxBodyBytes);
    if (!LOOPBACK.has(req.socket.remoteAddress ?? '')) {
      sendJson(res, 403, { message: 'the admin endpoint answers loopback clients only' });
      return;
    }
    const readJson = (): unknown => {
      try {
        return JSON.parse(bodyText || '{}');
      } catch {
        return undefined;
      }
    };
    const route = `${req.method ?? ''} ${pathname}`;
    switch (route) {
      case 'GET /__admin/state':
        sendJson(res, 200, state.snapshot());
        return;
      case 'GET /__admin/stats':
        sendJson(res, 200, stats.snapshot());
        return;
      case 'GET /__admin/faults':
        sendJson(res, 200, faults.current);
        return;
      case 'POST /__admin/faults': {
        try {
          faults.set(validateFaultSettings(readJson()));
        } catch (error) {
          sendJson(res, 400, { message: error instanceof Error ? error.message : String(error) });
          return;
        }
        sendJson(res, 200, faults.current);
        return;
      }
      case 'POST /__admin/api-key': {
        const body = readJson();
        if (!isJsonObject(body) || typeof body.apiKey !== 'string' || body.apiKey === '') {
          sendJson(res, 400, { message: 'body must be {"apiKey": "<non-empty string>"}' });
          return;
        }
        apiKey = body.apiKey;
        sendJson(res, 200, { message: 'api key replaced; the previous key now gets 401' });
        return;
      }
      case 'POST /__admin/reset':
        reset();
        sendJson(res, 200, {
          message: 'state, stats and faults cleared; initial api key restored',
        });
        return;
      default: {
        const known = [
          '/__admin/state',
          '/__admin/stats',
          '/__admin/faults',
          '/__admin/api-key',
          '/__admin/reset',
        ];
        sendJson(res, known.includes(pathname) ? 405 : 404, { message: `no admin route ${route}` });
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const pathname = (req.url ?? '/').split('?')[0] ?? '/';
    if (pathname.startsWith('/__admin/')) return handleAdmin(req, res, pathname);
    const route = resolveRoute(pathname);
    if (route) return handleSpec(req, res, route);
    await readBody(req, maxBodyBytes).catch(() => '');
    if (pathname.startsWith('/platform-admin/')) {
      // The provisioning spec: "HTTP 401 means the endpoint address is wrong, or …".
      sendJson(res, 401, { result: 'UNAUTHORIZED', message: 'unknown endpoint' });
      return;
    }
    sendJson(res, 404, { message: 'not found' });
  };

  const reset = (): void => {
    state.clear();
    stats.reset();
    faults.set({});
    apiKey = initialApiKey;
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { message: 'simulator error' });
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : address;
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    baseUrl,
    port,
    state,
    stats,
    get faults() {
      return faults.current;
    },
    setApiKey(key: string) {
      apiKey = requireNonEmpty(key, 'apiKey');
    },
    setFaults(settings: FaultSettings) {
      faults.set(settings);
    },
    reset,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of pendingTimers) clearTimeout(timer);
        pendingTimers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
};
