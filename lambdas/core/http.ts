/**
 * A small JSON POST transport on Node's global `fetch`. Node's fetch (undici) keeps
 * connections alive by default through its global dispatcher, which is what makes warm
 * Lambda invocations cheap; nothing here sets `Connection: close` or a custom dispatcher,
 * and every response body is read to the end so its socket goes back to the pool.
 * Redirects are not followed (a 3xx comes back as a response).
 */

export type FetchFn = typeof fetch;

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

const parseJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  if (text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
};

/** undici reports `TypeError: fetch failed` and puts the real reason (ECONNRESET, …) in `cause`. */
const describeError = (error: unknown): string => {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    const text = typeof code === 'string' ? `${code} ${current.message}` : current.message;
    if (!parts.includes(text)) parts.push(text);
    current = current.cause;
  }
  return parts.length > 0 ? parts.join(': ') : String(error);
};

const isTimeout = (error: unknown, signal: AbortSignal): boolean =>
  (error instanceof Error && error.name === 'TimeoutError') ||
  (signal.aborted && signal.reason instanceof Error && signal.reason.name === 'TimeoutError');

/** POSTs `body` and reads the whole response; never throws for transport problems. */
export const postJson = async (
  request: HttpRequest,
  fetchFn: FetchFn = fetch,
): Promise<HttpResult> => {
  const signal = AbortSignal.timeout(Math.max(1, Math.floor(request.timeoutMs)));
  try {
    const response = await fetchFn(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      // A redirect would carry the API key header to wherever it points; report it instead.
      redirect: 'manual',
      signal,
    });
    const bodyText = await response.text();
    // undici hands the socket back to its pool just after the body promise settles; yielding
    // once lets an immediate next request (a retry, the next record) reuse it instead of
    // opening (and TLS-handshaking) a second connection.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const parsed = parseJson(bodyText);
    return parsed.ok
      ? { kind: 'response', status: response.status, headers, bodyText, json: parsed.value }
      : { kind: 'response', status: response.status, headers, bodyText };
  } catch (error) {
    if (isTimeout(error, signal)) {
      return {
        kind: 'network-error',
        code: 'TIMEOUT',
        message: `no complete response within ${request.timeoutMs} ms`,
      };
    }
    return { kind: 'network-error', code: 'NETWORK_ERROR', message: describeError(error) };
  }
};
