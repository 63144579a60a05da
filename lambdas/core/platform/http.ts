/**
 * A small JSON POST transport on `node:http` / `node:https`. It replaced Node's global `fetch`
 * (undici), whose Request, Headers, AbortSignal and web-stream machinery cost more CPU per
 * request than the rest of a message's processing (bench/README.md); it also spares a cold
 * start undici's lazy load. What goes on the wire and what comes back are the same as with fetch:
 *
 * - the request carries the headers fetch added by default (below), so the platform sees no change;
 * - keep-alive: one agent per scheme pools the sockets; a response is always read to its end,
 *   which hands the socket back to the pool before the caller's next request can start;
 * - redirects are not followed (node:http never does): a 3xx comes back as a response, so the
 *   API key header never goes to another host;
 * - the timeout covers the whole exchange, from connecting to the last byte of the body;
 * - gzip / deflate / br bodies are decoded as fetch decoded them;
 * - no proxy is taken from the environment (the agents have no `proxyEnv`).
 */
import {
  type AgentOptions,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import * as zlib from 'node:zlib';

export interface HttpRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Abort the request (including reading the body) after this long. */
  readonly timeoutMs: number;
}

export type HttpResult =
  | {
      readonly kind: 'response';
      readonly status: number;
      /** Response headers, names lower-cased. */
      readonly headers: Readonly<Record<string, string>>;
      readonly bodyText: string;
      /** The body parsed as JSON, when it is JSON; absent otherwise. */
      readonly json?: unknown;
    }
  | {
      readonly kind: 'network-error';
      readonly code: 'TIMEOUT' | 'NETWORK_ERROR';
      /** Operator-readable cause (error code and text); never contains request headers. */
      readonly message: string;
    };

/** Sends one request and never throws: the seam the platform clients (and their tests) use. */
export type HttpTransport = (request: HttpRequest) => Promise<HttpResult>;

/** Exported for the bench's bare node:http baseline, which must pool sockets the same way. */
export const AGENT_OPTIONS: AgentOptions = {
  keepAlive: true,
  // The most records a container processes at once (MAX_RECORD_CONCURRENCY ≤ 100), so a request
  // never waits for a socket, while a bug cannot open sockets without bound.
  maxSockets: 100,
  // The most recently used socket is the least likely to have been closed by the server.
  scheduling: 'lifo',
  // Idle sockets close after 4 s, as undici's did (a shorter `Keep-Alive: timeout` wins).
  timeout: 4000,
};
const AGENTS = {
  http: new HttpAgent(AGENT_OPTIONS),
  https: new HttpsAgent(AGENT_OPTIONS),
};

/** The headers fetch added to every request unless the caller set them (names lower-case). */
const FETCH_DEFAULT_HEADERS: readonly (readonly [string, string])[] = [
  ['content-type', 'text/plain;charset=UTF-8'],
  ['accept', '*/*'],
  ['accept-language', '*'],
  ['sec-fetch-mode', 'cors'],
  ['user-agent', 'node'],
];

/**
 * Operator-visible failure texts (logs, dead-letter reasons) keep the form they had with fetch:
 * `fetch failed: <code> <text>`.
 */
const FAILURE_PREFIX = 'fetch failed';

interface Target {
  readonly secure: boolean;
  readonly hostname: string;
  readonly port: string;
  readonly path: string;
}

/** Clients post to a handful of URLs; parsing each once keeps `new URL` off the hot path. */
const targets = new Map<string, Target>();
const MAX_CACHED_TARGETS = 256;

const targetOf = (url: string): Target => {
  const cached = targets.get(url);
  if (cached !== undefined) return cached;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`unsupported protocol ${parsed.protocol}`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    // fetch refuses credentials in a URL too; node:http would send them as Basic auth.
    throw new Error('URL contains credentials');
  }
  const target: Target = {
    secure: parsed.protocol === 'https:',
    // node:http wants an IPv6 literal without its brackets.
    hostname: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port,
    path: `${parsed.pathname}${parsed.search}`,
  };
  if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
  targets.set(url, target);
  return target;
};

const requestHeaders = (request: HttpRequest, target: Target): OutgoingHttpHeaders => {
  const headers: OutgoingHttpHeaders = {};
  const given = new Set<string>();
  for (const [name, value] of Object.entries(request.headers)) {
    headers[name] = value;
    given.add(name.toLowerCase());
  }
  for (const [name, value] of FETCH_DEFAULT_HEADERS) {
    if (!given.has(name)) headers[name] = value;
  }
  if (!given.has('accept-encoding')) {
    headers['accept-encoding'] = target.secure ? 'br, gzip, deflate' : 'gzip, deflate';
  }
  headers['content-length'] = Buffer.byteLength(request.body);
  return headers;
};

/** Names lower-cased; repeated headers joined with ", " (Set-Cookie: the last), as fetch's Headers. */
const responseHeaders = (raw: readonly string[]): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    headers[name] =
      Object.hasOwn(headers, name) && name !== 'set-cookie' ? `${headers[name]}, ${value}` : value;
  }
  return headers;
};

/** Statuses that have no body to decode (fetch's "null body status"). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Lenient like fetch (and curl): servers sometimes end a compressed stream slightly early. */
const ZLIB_FLUSH = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_FLUSH = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

/** The decoders fetch applied for `content-encoding`, outermost last; none for an unknown coding. */
const decodersFor = (contentEncoding: string | undefined): NodeJS.ReadWriteStream[] => {
  if (contentEncoding === undefined) return [];
  const decoders: NodeJS.ReadWriteStream[] = [];
  const codings = contentEncoding.toLowerCase().split(',');
  for (let i = codings.length - 1; i >= 0; i -= 1) {
    const coding = codings[i]?.trim();
    if (coding === 'gzip' || coding === 'x-gzip') decoders.push(zlib.createGunzip(ZLIB_FLUSH));
    else if (coding === 'deflate') decoders.push(zlib.createInflate(ZLIB_FLUSH));
    else if (coding === 'br') decoders.push(zlib.createBrotliDecompress(BROTLI_FLUSH));
    else return [];
  }
  return decoders;
};

const parseJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  if (text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
};

/** `fetch failed: <code> <message>` for the error and its causes. */
const describeError = (error: unknown): string => {
  const parts: string[] = [FAILURE_PREFIX];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    const text = typeof code === 'string' ? `${code} ${current.message}` : current.message;
    if (!parts.includes(text)) parts.push(text);
    current = current.cause;
  }
  if (parts.length === 1) parts.push(String(error));
  return parts.join(': ');
};

const abortedError = (): Error =>
  Object.assign(new Error('connection closed before the response ended'), { code: 'ECONNRESET' });

/** UTF-8 without a leading byte-order mark, as `Response.text()` decoded it. */
const decodeText = (chunks: readonly Buffer[]): string => {
  const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString(
    'utf8',
  );
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
};

/** POSTs `body` and reads the whole response; never throws for transport problems. */
export const postJson: HttpTransport = (request) =>
  new Promise<HttpResult>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (result: HttpResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const fail = (error: unknown): void =>
      settle({ kind: 'network-error', code: 'NETWORK_ERROR', message: describeError(error) });

    const onResponse = (response: IncomingMessage): void => {
      const status = response.statusCode ?? 0;
      const headers = responseHeaders(response.rawHeaders);
      const decoders = NULL_BODY_STATUSES.has(status)
        ? []
        : decodersFor(headers['content-encoding']);
      let body: Readable = response;
      if (decoders.length > 0) {
        const last = decoders[decoders.length - 1] as NodeJS.ReadWriteStream;
        pipeline([response, ...decoders], (error) => {
          if (error) fail(error);
        });
        body = last as unknown as Readable;
      }
      const chunks: Buffer[] = [];
      body.on('data', (chunk: Buffer) => chunks.push(chunk));
      body.on('end', () => {
        const bodyText = decodeText(chunks);
        const parsed = parseJson(bodyText);
        settle(
          parsed.ok
            ? { kind: 'response', status, headers, bodyText, json: parsed.value }
            : { kind: 'response', status, headers, bodyText },
        );
      });
      response.on('error', fail);
      response.on('close', () => {
        if (!response.complete) fail(abortedError());
      });
    };

    try {
      const target = targetOf(request.url);
      const send = target.secure ? httpsRequest : httpRequest;
      const outgoing = send(
        {
          agent: target.secure ? AGENTS.https : AGENTS.http,
          hostname: target.hostname,
          port: target.port,
          path: target.path,
          method: 'POST',
          headers: requestHeaders(request, target),
        },
        onResponse,
      );
      timer = setTimeout(
        () => {
          settle({
            kind: 'network-error',
            code: 'TIMEOUT',
            message: `no complete response within ${request.timeoutMs} ms`,
          });
          // The socket is in an unknown state mid-exchange: close it rather than reuse it.
          outgoing.destroy();
        },
        Math.max(1, Math.floor(request.timeoutMs)),
      );
      outgoing.on('error', fail);
      outgoing.end(request.body);
    } catch (error) {
      // Invalid URL or header value: nothing was sent.
      fail(error);
    }
  });
