import { ApiError, NetworkError, SessionEndedError, readProblem } from "./errors.js";
import { MemoryEtagStore, type EtagStore } from "./etags.js";
import { randomId, sleep } from "./random.js";
import type { components } from "./schema.js";
import type { Answer, CallOptions, Method, Operation, PathsFor, Session, User } from "./types.js";

/** The tokens of a session, as kept between runs of the app. */
export interface Tokens {
  access_token: string;
  refresh_token: string;
  /** When the access token expires, in ms since the epoch (this device's clock). */
  access_expires_at: number;
  /** The access token's lifetime when issued, in ms. */
  access_ttl?: number;
  user?: User;
}

/** Where the tokens live between runs (localStorage, AsyncStorage, Keychain…). */
export interface TokenStore {
  load(): Tokens | null | Promise<Tokens | null>;
  save(tokens: Tokens | null): void | Promise<void>;
}

export class MemoryTokenStore implements TokenStore {
  private tokens: Tokens | null = null;
  load() {
    return this.tokens;
  }
  save(t: Tokens | null) {
    this.tokens = t;
  }
}

export interface ClientOptions {
  /** The API's origin, e.g. https://api.example.com (no trailing /v1). */
  baseUrl: string;
  /** fetch to use (the global one by default). */
  fetch?: typeof fetch;
  tokens?: TokenStore;
  /** Where answers with an ETag are kept for 304s; false keeps none. */
  etags?: EtagStore | false;
  /** Called once when the session ends for good (revoked, refresh refused). */
  onSessionEnded?: (reason: ApiError | undefined) => void;
  /** Retries of a request that got no answer or a 503, when it is safe to repeat. Default 2. */
  retries?: number;
  /** Refresh this long before the access token expires (ms). Default 30 s. */
  refreshAhead?: number;
}

/** The routes that must never carry a bearer: a stale one must not decide their answer. */
const noBearer = new Set(["/v1/auth/signup", "/v1/auth/login", "/v1/auth/guest", "/v1/auth/refresh"]);
/** Public routes whose answer is the same for everyone: without a bearer they stay cacheable. */
const anonymous = new Set(["/v1/guides/clusters", "/v1/tiles/{z}/{x}/{y}.mvt", ...noBearer]);
/** Routes whose 2xx answer is a new session. */
const sessionRoutes = new Set([...noBearer, "/v1/auth/password", "/v1/auth/upgrade"]);
/** POSTs that create something take an Idempotency-Key, which makes them safe to retry. */
const keyedPosts = new Set(["/v1/media", "/v1/uploads", "/v1/guides"]);

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  /** JSON (serialised here), FormData, a Blob or a string, sent as they are. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** false: send no bearer even when signed in. */
  auth?: boolean;
}

export interface RawAnswer<T = unknown> {
  status: number;
  data: T;
  headers: Headers;
  fromCache: boolean;
}

/**
 * A guidepost API client: typed calls from the API document, tokens kept
 * fresh (one refresh at a time however many requests need it), safe
 * retries, and 304s answered from the ETag store.
 */
export class GuidepostClient {
  readonly baseUrl: string;
  private readonly fetchFn: typeof fetch;
  private readonly store: TokenStore;
  private readonly etags: EtagStore | undefined;
  private readonly retries: number;
  private readonly refreshAhead: number;
  private readonly onSessionEnded: ((reason: ApiError | undefined) => void) | undefined;
  private tokens: Tokens | null | undefined; // undefined: not loaded yet
  private refreshing: Promise<void> | undefined;
  /** How many refreshes this client has sent (one per rotation, however many callers waited on it). */
  refreshCount = 0;

  constructor(opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.fetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.store = opts.tokens ?? new MemoryTokenStore();
    this.etags = opts.etags === false ? undefined : (opts.etags ?? new MemoryEtagStore());
    this.retries = opts.retries ?? 2;
    this.refreshAhead = opts.refreshAhead ?? 30_000;
    this.onSessionEnded = opts.onSessionEnded;
  }

  /**
   * A typed call of the operation at (method, path); throws ApiError for
   * an error answer, NetworkError when none came.
   *
   *   const { data } = await api.call("get", "/v1/guides/nearby", { query: { lat, lng } });
   */
  call<M extends Method, P extends PathsFor<M>>(
    method: M,
    path: P,
    ...[opts]: {} extends CallOptions<Operation<M, P>> ? [CallOptions<Operation<M, P>>?] : [CallOptions<Operation<M, P>>]
  ): Promise<Answer<Operation<M, P>>> {
    const given: unknown = opts;
    const o = (given ?? {}) as { path?: Record<string, string | number>; query?: RequestOptions["query"] } & RequestOptions;
    // Promise<never> fits every answer type: relating the answer's union
    // to request's would make tsc expand every operation's.
    const answer: Promise<unknown> = this.request(method, path as string, { ...o, path: o.path });
    return answer as Promise<never>;
  }

  /**
   * The URL of one variant of a list cover, by file name ("marker.jpg",
   * "small.webp"; the kinds are marker, small, thumbnail, web, the formats
   * cover.urls.formats): cover.urls.marker with its file name swapped,
   * resolved against baseUrl. With presigned URLs the marker is the API
   * path /v1/media/{id}/marker.jpg, which redirects (302) to the bytes: an
   * <img> may load it as it is. Null until the cover names a marker.
   */
  coverURL(cover: components["schemas"]["Cover"], file = "marker.jpg"): string | null {
    const marker = cover.urls.marker;
    if (!marker) return null;
    return new URL(file, new URL(marker, this.baseUrl + "/")).toString();
  }

  /** fetch as this client was given it, for URLs outside the API (presigned S3 URLs). */
  fetch(input: string, init?: RequestInit): Promise<Response> {
    return this.fetchFn(input, init);
  }

  /** Ends the session here, as the server's answer said it ended. */
  async sessionEnded(reason: ApiError | undefined): Promise<never> {
    return this.end(reason);
  }

  /** An untyped call, for routes this version's document does not name yet. */
  async request<T = unknown>(
    method: string,
    template: string,
    opts: RequestOptions & { path?: Record<string, string | number> | undefined } = {},
  ): Promise<RawAnswer<T>> {
    const path = template.replace(/\{(\w+)\}/g, (_, k: string) => {
      const v = opts.path?.[k];
      if (v === undefined) throw new TypeError(`${template}: path parameter ${k} missing`);
      return encodeURIComponent(String(v));
    });
    const url = this.baseUrl + path + queryString(opts.query);
    const m = method.toUpperCase();
    const headers: Record<string, string> = { ...opts.headers };
    if (m === "POST" && keyedPosts.has(template) && !hasHeader(headers, "Idempotency-Key")) {
      headers["Idempotency-Key"] = randomId();
    }
    let body: BodyInit | undefined;
    if (opts.body !== undefined) {
      if (isRawBody(opts.body)) body = opts.body;
      else {
        body = JSON.stringify(opts.body);
        headers["Content-Type"] ??= "application/json";
      }
    }
    const bearer = opts.auth !== false && !anonymous.has(template);
    const repeatable = m === "GET" || m === "PUT" || m === "DELETE" || hasHeader(headers, "Idempotency-Key");
    const res = await this.send(m, url, { headers, body, signal: opts.signal }, bearer, repeatable);
    if (sessionRoutes.has(template) && res.status < 300) await this.keep(res.data as Session);
    return res as RawAnswer<T>;
  }

  /** The signed-in user, as the last session answer named it. */
  async user(): Promise<User | undefined> {
    return (await this.load())?.user;
  }

  async signedIn(): Promise<boolean> {
    return (await this.load()) !== null;
  }

  /**
   * An access token good for at least refreshAhead, refreshed first if
   * needed; null when signed out. For transports that send it themselves.
   */
  async accessToken(): Promise<string | null> {
    const t = await this.load();
    if (!t) return null;
    // A quarter of a short lifetime at most: a 60 s token is not refreshed on every call.
    const ahead = Math.min(this.refreshAhead, (t.access_ttl ?? Infinity) / 4);
    if (t.access_expires_at - Date.now() < ahead) await this.refresh(t.access_token);
    return (await this.load())?.access_token ?? null;
  }

  /**
   * Exchanges the refresh token. Callers that arrive while one is under
   * way wait for it; stale names the access token the caller found
   * refused, so a caller late to a finished refresh sends none.
   */
  refresh(stale?: string): Promise<void> {
    if (this.refreshing) return this.refreshing;
    if (stale !== undefined && this.tokens && this.tokens.access_token !== stale) return Promise.resolve();
    this.refreshing = this.rotate().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Forgets the session here (POST /v1/auth/logout ends it on the server). */
  async signOut(): Promise<void> {
    const t = await this.load();
    if (t) {
      try {
        await this.request("post", "/v1/auth/logout");
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 401) && !(e instanceof SessionEndedError)) throw e;
      }
    }
    await this.forget();
  }

  private async rotate(): Promise<void> {
    const t = await this.load();
    if (!t) throw new SessionEndedError(undefined);
    this.refreshCount++;
    const res = await this.send(
      "POST",
      this.baseUrl + "/v1/auth/refresh",
      { headers: { "Content-Type": "application/json" }, body: JSON.stringify({ refresh_token: t.refresh_token }) },
      false,
      true,
    ).catch(async (e: unknown) => {
      if (e instanceof ApiError && e.status === 401) await this.end(e);
      throw e;
    });
    await this.keep(res.data as Session);
  }

  private async keep(s: Session): Promise<void> {
    this.tokens = {
      access_token: s.access_token,
      refresh_token: s.refresh_token,
      access_expires_at: Date.now() + s.expires_in * 1000,
      access_ttl: s.expires_in * 1000,
      user: s.user,
    };
    await this.store.save(this.tokens);
  }

  private async forget(): Promise<void> {
    this.tokens = null;
    await this.store.save(null);
  }

  private async end(reason: ApiError | undefined): Promise<never> {
    const had = this.tokens;
    await this.forget();
    if (had) this.onSessionEnded?.(reason);
    throw new SessionEndedError(reason);
  }

  private async load(): Promise<Tokens | null> {
    if (this.tokens === undefined) this.tokens = (await this.store.load()) ?? null;
    return this.tokens;
  }

  private async send(
    method: string,
    url: string,
    init: { headers: Record<string, string>; body?: BodyInit | undefined; signal?: AbortSignal | undefined },
    bearer: boolean,
    repeatable: boolean,
  ): Promise<RawAnswer> {
    const key = method === "GET" && this.etags ? url : undefined;
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(init.headers);
      const token = bearer ? await this.accessToken() : null;
      if (token) headers.set("Authorization", `Bearer ${token}`);
      const cached = key && !token ? await this.etags!.get(key) : undefined;
      if (cached && !headers.has("If-None-Match")) headers.set("If-None-Match", cached.etag);
      let res: Response;
      try {
        res = await this.fetchFn(url, { method, headers, body: init.body ?? null, signal: init.signal ?? null });
      } catch (e) {
        if (init.signal?.aborted) throw init.signal.reason ?? e;
        if (repeatable && attempt < this.retries) {
          await sleep(backoff(attempt), init.signal);
          continue;
        }
        throw new NetworkError(`${method} ${url}: no answer`, e);
      }
      if (res.status === 304 && cached) {
        return { status: cached.status, data: cached.data, headers: res.headers, fromCache: true };
      }
      if (res.status === 401 && token) {
        const problem = await readProblem(res);
        const err = new ApiError(401, problem, res.headers);
        if (err.type === "token_expired" && !refreshed) {
          refreshed = true;
          await this.refresh(token);
          attempt--;
          continue;
        }
        if (err.type === "unauthorized") await this.end(err);
        throw err;
      }
      if (res.status === 503 && repeatable && attempt < this.retries) {
        const wait = Number(res.headers.get("Retry-After") ?? "1");
        await res.body?.cancel().catch(() => {});
        await sleep(Math.min(Number.isFinite(wait) ? wait * 1000 : 1000, 5000), init.signal);
        continue;
      }
      if (!res.ok) throw new ApiError(res.status, await readProblem(res), res.headers);
      const data = await readBody(res);
      const etag = res.headers.get("ETag");
      if (key && !token && etag) await this.etags!.set(key, { etag, status: res.status, data });
      return { status: res.status, data, headers: res.headers, fromCache: false };
    }
  }
}

function backoff(attempt: number): number {
  return Math.min(250 * 2 ** attempt, 4000) * (0.5 + Math.random() / 2);
}

async function readBody(res: Response): Promise<unknown> {
  if (res.status === 204 || res.status === 202 && res.headers.get("Content-Length") === "0") return undefined;
  const type = res.headers.get("Content-Type") ?? "";
  if (/[/+]json\b/.test(type)) return res.json();
  if (type.startsWith("text/")) return res.text();
  const b = await res.blob();
  return b.size === 0 && !type ? undefined : b;
}

function queryString(q: RequestOptions["query"]): string {
  if (!q) return "";
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null) s.append(k, String(v));
  const t = s.toString();
  return t ? `?${t}` : "";
}

function hasHeader(h: Record<string, string>, name: string): boolean {
  const n = name.toLowerCase();
  return Object.keys(h).some((k) => k.toLowerCase() === n);
}

function isRawBody(b: unknown): b is BodyInit {
  return (
    typeof b === "string" ||
    (typeof FormData !== "undefined" && b instanceof FormData) ||
    (typeof Blob !== "undefined" && b instanceof Blob) ||
    b instanceof ArrayBuffer ||
    ArrayBuffer.isView(b)
  );
}
