// The guidepost TypeScript client (clients/typescript), bundled by `npm run bundle`; do not edit.

// src/errors.ts
var ApiError = class extends Error {
  constructor(status, problem, headers) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.problem = problem;
    this.headers = headers;
  }
  /** The problem type without /problems/: "invalid", "rate_limited"… */
  get type() {
    return this.problem.type.replace(/^\/problems\//, "");
  }
  get fields() {
    return this.problem.errors ?? [];
  }
  /** Seconds from Retry-After, when the answer carries it. */
  get retryAfter() {
    const v = this.headers.get("Retry-After");
    if (v === null) return void 0;
    const n = Number(v);
    return Number.isFinite(n) ? n : void 0;
  }
  /** Whether the problem is of m.type and has a field error with m's field and code. */
  matches(m) {
    if (m.type !== void 0 && m.type !== this.type) return false;
    if (m.field === void 0 && m.code === void 0) return true;
    return this.fields.some(
      (f) => (m.field === void 0 || f.field === m.field) && (m.code === void 0 || f.code === m.code)
    );
  }
  /** The field error for field, if any. */
  field(name) {
    return this.fields.find((f) => f.field === name);
  }
  /** The session is over: sign in again (a refresh cannot help). */
  get signedOut() {
    return this.status === 401 && this.type === "unauthorized";
  }
};
var NetworkError = class extends Error {
  constructor(message, cause) {
    super(message);
    this.name = "NetworkError";
    this.cause = cause;
  }
};
var SessionEndedError = class extends Error {
  constructor(reason) {
    super("the session has ended; sign in again");
    this.reason = reason;
    this.name = "SessionEndedError";
  }
};
function describeError(err, rules, fallback) {
  if (!(err instanceof ApiError)) return fallback;
  for (const r of rules) if (err.matches(r)) return r.then;
  return fallback;
}
async function readProblem(res) {
  const text = await res.text().catch(() => "");
  try {
    const p = JSON.parse(text);
    if (p && typeof p.type === "string") return p;
  } catch {
  }
  return { type: "/problems/internal", title: res.statusText || `HTTP ${res.status}`, status: res.status, detail: text.slice(0, 200) };
}

// src/etags.ts
var MemoryEtagStore = class {
  constructor(max = 256) {
    this.max = max;
    this.entries = /* @__PURE__ */ new Map();
  }
  get(key) {
    const v = this.entries.get(key);
    if (v !== void 0) {
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }
  set(key, value) {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest === void 0) break;
      this.entries.delete(oldest);
    }
  }
};

// src/random.ts
function randomId() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  const b = new Uint8Array(16);
  if (c && typeof c.getRandomValues === "function") c.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256);
  b[6] = b[6] & 15 | 64;
  b[8] = b[8] & 63 | 128;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

// src/client.ts
var MemoryTokenStore = class {
  constructor() {
    this.tokens = null;
  }
  load() {
    return this.tokens;
  }
  save(t) {
    this.tokens = t;
  }
};
var noBearer = /* @__PURE__ */ new Set(["/v1/auth/signup", "/v1/auth/login", "/v1/auth/guest", "/v1/auth/refresh"]);
var anonymous = /* @__PURE__ */ new Set(["/v1/guides/clusters", "/v1/tiles/{z}/{x}/{y}.mvt", ...noBearer]);
var sessionRoutes = /* @__PURE__ */ new Set([...noBearer, "/v1/auth/password", "/v1/auth/upgrade"]);
var keyedPosts = /* @__PURE__ */ new Set(["/v1/media", "/v1/uploads", "/v1/guides"]);
var GuidepostClient = class {
  constructor(opts) {
    /** How many refreshes this client has sent (one per rotation, however many callers waited on it). */
    this.refreshCount = 0;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.fetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.store = opts.tokens ?? new MemoryTokenStore();
    this.etags = opts.etags === false ? void 0 : opts.etags ?? new MemoryEtagStore();
    this.retries = opts.retries ?? 2;
    this.refreshAhead = opts.refreshAhead ?? 3e4;
    this.onSessionEnded = opts.onSessionEnded;
  }
  /**
   * A typed call of the operation at (method, path); throws ApiError for
   * an error answer, NetworkError when none came.
   *
   *   const { data } = await api.call("get", "/v1/guides/nearby", { query: { lat, lng } });
   */
  call(method, path, ...[opts]) {
    const given = opts;
    const o = given ?? {};
    const answer = this.request(method, path, { ...o, path: o.path });
    return answer;
  }
  /**
   * The URL of one variant of a list cover, by file name ("marker.jpg",
   * "small.webp"; the kinds are marker, small, thumbnail, web, the formats
   * cover.urls.formats): cover.urls.marker with its file name swapped,
   * resolved against baseUrl. With presigned URLs the marker is the API
   * path /v1/media/{id}/marker.jpg, which redirects (302) to the bytes: an
   * <img> may load it as it is. Null until the cover names a marker.
   */
  coverURL(cover, file = "marker.jpg") {
    const marker = cover.urls.marker;
    if (!marker) return null;
    return new URL(file, new URL(marker, this.baseUrl + "/")).toString();
  }
  /** fetch as this client was given it, for URLs outside the API (presigned S3 URLs). */
  fetch(input, init) {
    return this.fetchFn(input, init);
  }
  /** Ends the session here, as the server's answer said it ended. */
  async sessionEnded(reason) {
    return this.end(reason);
  }
  /** An untyped call, for routes this version's document does not name yet. */
  async request(method, template, opts = {}) {
    const path = template.replace(/\{(\w+)\}/g, (_, k) => {
      const v = opts.path?.[k];
      if (v === void 0) throw new TypeError(`${template}: path parameter ${k} missing`);
      return encodeURIComponent(String(v));
    });
    const url = this.baseUrl + path + queryString(opts.query);
    const m = method.toUpperCase();
    const headers = { ...opts.headers };
    if (m === "POST" && keyedPosts.has(template) && !hasHeader(headers, "Idempotency-Key")) {
      headers["Idempotency-Key"] = randomId();
    }
    let body;
    if (opts.body !== void 0) {
      if (isRawBody(opts.body)) body = opts.body;
      else {
        body = JSON.stringify(opts.body);
        headers["Content-Type"] ?? (headers["Content-Type"] = "application/json");
      }
    }
    const bearer = opts.auth !== false && !anonymous.has(template);
    const repeatable = m === "GET" || m === "PUT" || m === "DELETE" || hasHeader(headers, "Idempotency-Key");
    const res = await this.send(m, url, { headers, body, signal: opts.signal }, bearer, repeatable);
    if (sessionRoutes.has(template) && res.status < 300) await this.keep(res.data);
    return res;
  }
  /** The signed-in user, as the last session answer named it. */
  async user() {
    return (await this.load())?.user;
  }
  async signedIn() {
    return await this.load() !== null;
  }
  /**
   * An access token good for at least refreshAhead, refreshed first if
   * needed; null when signed out. For transports that send it themselves.
   */
  async accessToken() {
    const t = await this.load();
    if (!t) return null;
    const ahead = Math.min(this.refreshAhead, (t.access_ttl ?? Infinity) / 4);
    if (t.access_expires_at - Date.now() < ahead) await this.refresh(t.access_token);
    return (await this.load())?.access_token ?? null;
  }
  /**
   * Exchanges the refresh token. Callers that arrive while one is under
   * way wait for it; stale names the access token the caller found
   * refused, so a caller late to a finished refresh sends none.
   */
  refresh(stale) {
    if (this.refreshing) return this.refreshing;
    if (stale !== void 0 && this.tokens && this.tokens.access_token !== stale) return Promise.resolve();
    this.refreshing = this.rotate().finally(() => {
      this.refreshing = void 0;
    });
    return this.refreshing;
  }
  /** Forgets the session here (POST /v1/auth/logout ends it on the server). */
  async signOut() {
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
  async rotate() {
    const t = await this.load();
    if (!t) throw new SessionEndedError(void 0);
    this.refreshCount++;
    const res = await this.send(
      "POST",
      this.baseUrl + "/v1/auth/refresh",
      { headers: { "Content-Type": "application/json" }, body: JSON.stringify({ refresh_token: t.refresh_token }) },
      false,
      true
    ).catch(async (e) => {
      if (e instanceof ApiError && e.status === 401) await this.end(e);
      throw e;
    });
    await this.keep(res.data);
  }
  async keep(s) {
    this.tokens = {
      access_token: s.access_token,
      refresh_token: s.refresh_token,
      access_expires_at: Date.now() + s.expires_in * 1e3,
      access_ttl: s.expires_in * 1e3,
      user: s.user
    };
    await this.store.save(this.tokens);
  }
  async forget() {
    this.tokens = null;
    await this.store.save(null);
  }
  async end(reason) {
    const had = this.tokens;
    await this.forget();
    if (had) this.onSessionEnded?.(reason);
    throw new SessionEndedError(reason);
  }
  async load() {
    if (this.tokens === void 0) this.tokens = await this.store.load() ?? null;
    return this.tokens;
  }
  async send(method, url, init, bearer, repeatable) {
    const key = method === "GET" && this.etags ? url : void 0;
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(init.headers);
      const token = bearer ? await this.accessToken() : null;
      if (token) headers.set("Authorization", `Bearer ${token}`);
      const cached = key && !token ? await this.etags.get(key) : void 0;
      if (cached && !headers.has("If-None-Match")) headers.set("If-None-Match", cached.etag);
      let res;
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
        await res.body?.cancel().catch(() => {
        });
        await sleep(Math.min(Number.isFinite(wait) ? wait * 1e3 : 1e3, 5e3), init.signal);
        continue;
      }
      if (!res.ok) throw new ApiError(res.status, await readProblem(res), res.headers);
      const data = await readBody(res);
      const etag = res.headers.get("ETag");
      if (key && !token && etag) await this.etags.set(key, { etag, status: res.status, data });
      return { status: res.status, data, headers: res.headers, fromCache: false };
    }
  }
};
function backoff(attempt) {
  return Math.min(250 * 2 ** attempt, 4e3) * (0.5 + Math.random() / 2);
}
async function readBody(res) {
  if (res.status === 204 || res.status === 202 && res.headers.get("Content-Length") === "0") return void 0;
  const type = res.headers.get("Content-Type") ?? "";
  if (/[/+]json\b/.test(type)) return res.json();
  if (type.startsWith("text/")) return res.text();
  const b = await res.blob();
  return b.size === 0 && !type ? void 0 : b;
}
function queryString(q) {
  if (!q) return "";
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== void 0 && v !== null) s.append(k, String(v));
  const t = s.toString();
  return t ? `?${t}` : "";
}
function hasHeader(h, name) {
  const n = name.toLowerCase();
  return Object.keys(h).some((k) => k.toLowerCase() === n);
}
function isRawBody(b) {
  return typeof b === "string" || typeof FormData !== "undefined" && b instanceof FormData || typeof Blob !== "undefined" && b instanceof Blob || b instanceof ArrayBuffer || ArrayBuffer.isView(b);
}

// src/events.ts
var EventClient = class {
  constructor(client, opts) {
    this.client = client;
    this.opts = opts;
    /** Streams opened so far. */
    this.connects = 0;
    this.lastEventId = opts.lastEventId;
    this.retryMs = opts.retry ?? 1e3;
    this.transport = opts.transport ?? ((url, init) => client.fetch(url, init));
  }
  start() {
    if (this.running) return;
    this.controller = new AbortController();
    const signal = this.controller.signal;
    this.running = this.loop(signal).catch((e) => {
      if (!signal.aborted) this.opts.onStop?.(e);
    });
  }
  async stop() {
    this.controller?.abort();
    await this.running;
    this.running = void 0;
  }
  async loop(signal) {
    let failures = 0;
    while (!signal.aborted) {
      let wait = this.retryMs;
      try {
        const ended = await this.once(signal);
        failures = 0;
        if (ended === "token_expired") wait = 0;
      } catch (e) {
        if (signal.aborted) return;
        if (e instanceof ApiError) {
          if (e.status === 401 && e.type === "token_expired") {
            wait = failures++ === 0 ? 0 : Math.min(this.retryMs * 2 ** failures, 3e4);
          } else if (e.status !== 429 && e.status < 500) throw e;
          else wait = (e.retryAfter ?? 1) * 1e3;
        } else if (!(e instanceof TypeError || e?.name === "NetworkError")) {
          throw e;
        } else {
          wait = Math.min(this.retryMs * 2 ** failures++, 3e4);
        }
      }
      await sleep(wait * (0.8 + Math.random() * 0.4), signal).catch(() => {
      });
    }
  }
  /** One connection, read to its end; the reason the server gave, if any. */
  async once(signal) {
    const token = await this.client.accessToken();
    if (token === null) throw new ApiError(401, { type: "/problems/unauthorized", title: "Not signed in", status: 401, detail: "signed out" }, new Headers());
    const headers = { Accept: "text/event-stream" };
    if (this.lastEventId) headers["Last-Event-ID"] = this.lastEventId;
    let url = this.client.baseUrl + "/v1/events";
    if (this.opts.auth === "ticket") {
      const t = await this.client.request("post", "/v1/events/ticket", { signal });
      url += "?ticket=" + encodeURIComponent(t.data.ticket);
    } else {
      headers["Authorization"] = `Bearer ${token}`;
    }
    const res = await this.transport(url, { headers, signal, cache: "no-store" });
    if (!res.ok) {
      const err = new ApiError(res.status, await readProblem(res), res.headers);
      if (err.status === 401 && err.type === "token_expired") await this.client.refresh(token);
      else if (err.status === 401 && err.type === "unauthorized") await this.client.sessionEnded(err);
      throw err;
    }
    if (!res.body) throw new Error("the transport gives no streaming body: pass one that does (expo/fetch)");
    this.connects++;
    let reason;
    for await (const ev of parseEvents(res.body, (ms) => this.retryMs = ms)) {
      if (ev.id !== void 0) this.lastEventId = ev.id;
      if (ev.event === "end") {
        reason = ev.data?.reason ?? "";
        this.opts.onEnd?.(reason);
      } else if (ev.event === "resync") this.opts.onResync?.();
      else if (ev.event === "media.ready" || ev.event === "media.failed") this.opts.onEvent(ev);
    }
    if (reason === "token_expired") await this.client.refresh(token);
    if (reason === "session_revoked") await this.client.sessionEnded(void 0);
    return reason;
  }
};
async function* parseEvents(body, onRetry = () => {
}) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  let id, event = "", data = [];
  try {
    for (; ; ) {
      const { value, done } = await reader.read();
      buf += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let nl;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0 && (done || nl < buf.length - 1 || buf[nl] !== "\r")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (data.length > 0) {
            const text = data.join("\n");
            let parsed = text;
            try {
              parsed = JSON.parse(text);
            } catch {
            }
            yield { ...id !== void 0 ? { id } : {}, event: event || "message", data: parsed };
          }
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let v = colon < 0 ? "" : line.slice(colon + 1);
        if (v.startsWith(" ")) v = v.slice(1);
        if (field === "data") data.push(v);
        else if (field === "event") event = v;
        else if (field === "id" && !v.includes("\0")) id = v;
        else if (field === "retry" && /^\d+$/.test(v)) onRetry(Number(v));
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}

// src/md5.ts
var S = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
var K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) >>> 0);
function md5Hex(bytes) {
  const n = bytes.length;
  const padded = new Uint8Array((n + 8 >>> 6) + 1 << 6);
  padded.set(bytes);
  padded[n] = 128;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, n << 3 >>> 0, true);
  view.setUint32(padded.length - 4, Math.floor(n / 2 ** 29), true);
  let a0 = 1732584193, b0 = 4023233417, c0 = 2562383102, d0 = 271733878;
  const m = new Uint32Array(16);
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) m[i] = view.getUint32(off + i * 4, true);
    let a = a0, b = b0, c = c0, d = d0;
    for (let i = 0; i < 64; i++) {
      let f, g;
      if (i < 16) [f, g] = [b & c | ~b & d, i];
      else if (i < 32) [f, g] = [d & b | ~d & c, (5 * i + 1) % 16];
      else if (i < 48) [f, g] = [b ^ c ^ d, (3 * i + 5) % 16];
      else [f, g] = [c ^ (b | ~d), 7 * i % 16];
      const t = d;
      d = c;
      c = b;
      const x = a + f + K[i] + m[g] >>> 0;
      const s = S[(i >>> 4) * 4 + i % 4];
      b = b + (x << s | x >>> 32 - s) >>> 0;
      a = t;
    }
    a0 = a0 + a >>> 0;
    b0 = b0 + b >>> 0;
    c0 = c0 + c >>> 0;
    d0 = d0 + d >>> 0;
  }
  const out = new DataView(new ArrayBuffer(16));
  [a0, b0, c0, d0].forEach((w, i) => out.setUint32(i * 4, w, true));
  return hex(new Uint8Array(out.buffer));
}
function hex(b) {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}
async function sha256Hex(file) {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error("WebCrypto (crypto.subtle) is not available: a secure context is needed");
  return hex(new Uint8Array(await subtle.digest("SHA-256", await file.arrayBuffer())));
}

// src/transport.ts
function fetchTransport(fetchFn) {
  return async (req) => {
    let res;
    try {
      res = await fetchFn(req.url, { method: "PUT", body: req.body, headers: req.headers, signal: req.signal ?? null });
    } catch (e) {
      if (req.signal?.aborted) throw req.signal.reason ?? e;
      throw new NetworkError(`part ${req.part}: no answer`, e);
    }
    await res.body?.cancel().catch(() => {
    });
    if (!res.ok) throw new NetworkError(`part ${req.part}: S3 answered ${res.status}`, void 0);
  };
}
function xhrTransport(make = () => new XMLHttpRequest()) {
  return (req) => new Promise((resolve, reject) => {
    const signal = req.signal;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const xhr = make();
    const cancel = () => xhr.abort();
    const settle = (err) => {
      signal?.removeEventListener("abort", cancel);
      if (err === void 0) resolve();
      else reject(err);
    };
    xhr.open("PUT", req.url);
    for (const [name, value] of Object.entries(req.headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => req.onProgress?.(e.loaded);
    xhr.onload = () => settle(xhr.status >= 200 && xhr.status < 300 ? void 0 : new NetworkError(`part ${req.part}: S3 answered ${xhr.status}`, void 0));
    xhr.onerror = () => settle(new NetworkError(`part ${req.part}: no answer`, void 0));
    xhr.ontimeout = xhr.onerror;
    xhr.onabort = () => settle(signal?.reason ?? new NetworkError(`part ${req.part}: aborted`, void 0));
    signal?.addEventListener("abort", cancel, { once: true });
    xhr.send(req.body);
  });
}

// src/uploads.ts
var MemoryStorage = class {
  constructor() {
    this.items = /* @__PURE__ */ new Map();
  }
  getItem(k) {
    return this.items.get(k) ?? null;
  }
  setItem(k, v) {
    this.items.set(k, v);
  }
  removeItem(k) {
    this.items.delete(k);
  }
};
var maxRounds = 5;
var minPartSize = 5 << 20;
var UploadManager = class {
  constructor(client, opts = {}) {
    this.client = client;
    this.storage = opts.storage ?? new MemoryStorage();
    this.prefix = opts.prefix ?? "guidepost.upload.";
    this.transport = opts.partTransport ?? fetchTransport((url, init) => client.fetch(url, init));
    this.partSize = Math.max(opts.partSize ?? minPartSize, minPartSize);
    this.partChecksums = opts.partChecksums ?? true;
  }
  /** Sends a photo and returns it as the server accepted it (pending, or an earlier copy). */
  async send(file, opts = {}) {
    const route = opts.route ?? (file.size > 5 << 20 ? "direct" : "multipart");
    const progress = (phase, sent) => opts.onProgress?.({ phase, sent, total: file.size });
    let saved = opts.key !== void 0 ? await this.load(opts.key) : void 0;
    if (saved && (saved.bytes !== file.size || saved.route !== route)) saved = void 0;
    if (!saved || !saved.sha256) {
      progress("hashing", 0);
      const sha256 = await sha256Hex(file);
      saved = saved ?? (opts.key === void 0 ? await this.load(sha256) : void 0);
      saved = { ...saved ?? { key: opts.key ?? sha256, route, bytes: file.size, idempotency_key: randomId() }, sha256 };
    }
    await this.save(saved);
    const media = route === "multipart" ? await this.multipart(file, saved, opts, progress) : await this.direct(file, saved, opts, progress);
    await this.forget(saved.key);
    progress("done", file.size);
    return media;
  }
  /** The uploads saved and not finished, to offer resuming them. */
  async pending() {
    const keys = await this.index();
    const out = [];
    for (const k of keys) {
      const s = await this.load(k);
      if (s) out.push(s);
    }
    return out;
  }
  /** Ends an upload: the server deletes its parts, and its state is forgotten. */
  async abort(key) {
    const s = await this.load(key);
    if (s?.upload_id) {
      try {
        await this.client.call("delete", "/v1/uploads/{id}", { path: { id: s.upload_id } });
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 404)) throw e;
      }
    }
    await this.forget(key);
  }
  async multipart(file, saved, opts, progress) {
    progress("sending", 0);
    const form = new FormData();
    form.append("file", file, "photo");
    const res = await this.client.call("post", "/v1/media", {
      body: form,
      headers: { "Idempotency-Key": saved.idempotency_key },
      signal: opts.signal
    });
    progress("completing", file.size);
    return res.data;
  }
  async direct(file, saved, opts, progress) {
    const signal = opts.signal;
    let upload = saved.upload_id ? await this.current(saved.upload_id, signal) : void 0;
    if (upload?.state === "completed" && upload.media) return upload.media;
    if (saved.upload_id && (!upload || upload.state === "aborted")) {
      saved.upload_id = void 0;
      saved.idempotency_key = randomId();
      await this.save(saved);
      upload = void 0;
    }
    if (!upload) {
      saved.content_type ?? (saved.content_type = await photoType(file));
      const body = { bytes: file.size, sha256: saved.sha256, content_type: saved.content_type };
      if (this.partChecksums) {
        body.part_size = this.partSize;
        body.part_sha256 = await partSums(file, this.partSize);
      }
      const res = await this.client.call("post", "/v1/uploads", {
        body,
        headers: { "Idempotency-Key": saved.idempotency_key },
        signal
      });
      if (res.data.object === "media") return res.data;
      upload = res.data;
      saved.upload_id = upload.id;
      await this.save(saved);
    }
    for (let round = 0; ; round++) {
      const todo = await this.missing(file, upload);
      let held = file.size - todo.reduce((n, p) => n + p.bytes, 0);
      progress("sending", held);
      try {
        for (const part of todo) {
          const base = held;
          await this.transport({
            part: part.number,
            url: part.url,
            body: slice(file, upload, part),
            headers: part.headers ?? {},
            signal,
            onProgress: (n) => progress("sending", base + Math.min(n, part.bytes))
          });
          held += part.bytes;
          progress("sending", held);
        }
        progress("completing", held);
        const res = await this.client.call("post", "/v1/uploads/{id}/complete", { path: { id: upload.id }, signal });
        return res.data;
      } catch (e) {
        if (signal?.aborted || round + 1 >= maxRounds || !retryable(e)) throw e;
      }
      const again = await this.current(upload.id, signal);
      if (!again) throw new Error(`upload ${upload.id} is gone`);
      if (again.state === "completed" && again.media) return again.media;
      upload = again;
    }
  }
  /**
   * The parts to send: those the server lists as missing, and those it
   * holds with other bytes than ours. A part whose URL signs its checksum
   * (headers) was verified by S3 as it arrived: no need to check its MD5.
   */
  async missing(file, u) {
    const out = [...u.parts];
    for (const p of u.received) {
      if (p.headers && Object.keys(p.headers).length > 0) continue;
      const bytes = new Uint8Array(await slice(file, u, p).arrayBuffer());
      if (p.etag?.replace(/"/g, "") !== md5Hex(bytes) || p.bytes !== bytes.length) out.push(p);
    }
    return out.sort((a, b) => a.number - b.number);
  }
  async current(id, signal) {
    try {
      return (await this.client.call("get", "/v1/uploads/{id}", { path: { id }, signal })).data;
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return void 0;
      throw e;
    }
  }
  async load(key) {
    const v = await this.storage.getItem(this.prefix + key);
    if (!v) return void 0;
    try {
      return JSON.parse(v);
    } catch {
      return void 0;
    }
  }
  async save(s) {
    await this.storage.setItem(this.prefix + s.key, JSON.stringify(s));
    const keys = await this.index();
    if (!keys.includes(s.key)) await this.storage.setItem(this.prefix + "index", JSON.stringify([...keys, s.key]));
  }
  async forget(key) {
    await this.storage.removeItem(this.prefix + key);
    const keys = await this.index();
    await this.storage.setItem(this.prefix + "index", JSON.stringify(keys.filter((k) => k !== key)));
  }
  async index() {
    try {
      return JSON.parse(await this.storage.getItem(this.prefix + "index") ?? "[]");
    } catch {
      return [];
    }
  }
};
function slice(file, u, p) {
  const start = (p.number - 1) * u.part_size;
  return file.slice(start, start + p.bytes);
}
async function partSums(file, partSize) {
  const sums = [];
  for (let off = 0; off < file.size; off += partSize) sums.push(await sha256Hex(file.slice(off, off + partSize)));
  return sums;
}
function retryable(e) {
  if (e instanceof NetworkError) return true;
  return e instanceof ApiError && e.status === 409 && e.fields.some((f) => f.field === "parts" || f.field.startsWith("parts["));
}
async function photoType(file) {
  const b = new Uint8Array(await file.slice(0, 12).arrayBuffer());
  const ascii = (from, to) => String.fromCharCode(...b.subarray(from, to));
  if (b[0] === 255 && b[1] === 216 && b[2] === 255) return "image/jpeg";
  if (b[0] === 137 && ascii(1, 4) === "PNG") return "image/png";
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  if (ascii(4, 8) === "ftyp" && /^(heic|heix|heim|heis|hevc|hevx|mif1|msf1)$/.test(ascii(8, 12))) return "image/heic";
  return file.type || "application/octet-stream";
}
export {
  ApiError,
  EventClient,
  GuidepostClient,
  MemoryEtagStore,
  MemoryStorage,
  MemoryTokenStore,
  NetworkError,
  SessionEndedError,
  UploadManager,
  describeError,
  fetchTransport,
  md5Hex,
  parseEvents,
  photoType,
  sha256Hex,
  xhrTransport
};
