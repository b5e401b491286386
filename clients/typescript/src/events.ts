import type { GuidepostClient } from "./client.js";
import { ApiError, readProblem } from "./errors.js";
import { sleep } from "./random.js";
import type { MediaEvent } from "./types.js";

/** One server-sent event as it came: its id, name and data (parsed JSON). */
export interface StreamEvent {
  id?: string;
  event: string;
  data: unknown;
}

/** Why a stream ended, when the server said (`event: end`). */
export interface EndEvent {
  event: "end";
  data: { reason: string };
}

/** fetch, or any function like it whose answers' bodies stream (expo/fetch in React Native). */
export type Transport = (url: string, init: RequestInit) => Promise<Response>;

export interface EventClientOptions {
  /** A photo of the caller's turned ready or failed. */
  onEvent: (ev: MediaEvent) => void;
  /** Events may have been missed: reload what the screen shows. */
  onResync?: () => void;
  /** The stream ended for a reason (the server's `event: end`); the client reconnects unless stopped. */
  onEnd?: (reason: string) => void;
  /** The client stopped for good: signed out, or an answer no retry can change. */
  onStop?: (err: unknown) => void;
  /** Default: the client's fetch. */
  transport?: Transport;
  /**
   * header: the bearer in Authorization (default). ticket: a single-use
   * ticket from POST /v1/events/ticket in the query, for transports that
   * cannot send headers (EventSource).
   */
  auth?: "header" | "ticket";
  /** Resume after this event (saved from lastEventId by an earlier run). */
  lastEventId?: string;
  /** Wait before reconnecting when the server gave no `retry:`, ms. */
  retry?: number;
}

/**
 * Reads GET /v1/events and keeps reading: it reconnects with Last-Event-ID
 * after a cut, refreshes the token when the server says it expired,
 * renews its ticket on every connection, and waits out 429 and 503.
 */
export class EventClient {
  lastEventId: string | undefined;
  /** Streams opened so far. */
  connects = 0;
  private retryMs: number;
  private readonly transport: Transport;
  private controller: AbortController | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: GuidepostClient,
    private readonly opts: EventClientOptions,
  ) {
    this.lastEventId = opts.lastEventId;
    this.retryMs = opts.retry ?? 1000;
    this.transport = opts.transport ?? ((url, init) => client.fetch(url, init));
  }

  start(): void {
    if (this.running) return;
    this.controller = new AbortController();
    const signal = this.controller.signal;
    this.running = this.loop(signal).catch((e: unknown) => {
      if (!signal.aborted) this.opts.onStop?.(e);
    });
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    await this.running;
    this.running = undefined;
  }

  private async loop(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      let wait = this.retryMs;
      try {
        const ended = await this.once(signal);
        failures = 0;
        if (ended === "token_expired") wait = 0; // the next connect refreshes first
      } catch (e) {
        if (signal.aborted) return;
        if (e instanceof ApiError) {
          if (e.status === 401 && e.type === "token_expired") {
            // Refreshed in once(): straight back, unless the new token is refused too.
            wait = failures++ === 0 ? 0 : Math.min(this.retryMs * 2 ** failures, 30_000);
          } else if (e.status !== 429 && e.status < 500) throw e;
          else wait = (e.retryAfter ?? 1) * 1000;
        } else if (!(e instanceof TypeError || (e as Error)?.name === "NetworkError")) {
          throw e;
        } else {
          wait = Math.min(this.retryMs * 2 ** failures++, 30_000);
        }
      }
      await sleep(wait * (0.8 + Math.random() * 0.4), signal).catch(() => {});
    }
  }

  /** One connection, read to its end; the reason the server gave, if any. */
  private async once(signal: AbortSignal): Promise<string | undefined> {
    const token = await this.client.accessToken();
    if (token === null) throw new ApiError(401, { type: "/problems/unauthorized", title: "Not signed in", status: 401, detail: "signed out" }, new Headers());
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (this.lastEventId) headers["Last-Event-ID"] = this.lastEventId;
    let url = this.client.baseUrl + "/v1/events";
    if (this.opts.auth === "ticket") {
      const t = await this.client.request<{ ticket: string }>("post", "/v1/events/ticket", { signal });
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
    let reason: string | undefined;
    for await (const ev of parseEvents(res.body, (ms) => (this.retryMs = ms))) {
      if (ev.id !== undefined) this.lastEventId = ev.id;
      if (ev.event === "end") {
        reason = (ev.data as EndEvent["data"] | undefined)?.reason ?? "";
        this.opts.onEnd?.(reason);
      } else if (ev.event === "resync") this.opts.onResync?.();
      else if (ev.event === "media.ready" || ev.event === "media.failed") this.opts.onEvent(ev as MediaEvent);
    }
    if (reason === "token_expired") await this.client.refresh(token);
    if (reason === "session_revoked") await this.client.sessionEnded(undefined);
    return reason;
  }
}

/** The events of a text/event-stream body, as the HTML standard parses them. */
export async function* parseEvents(
  body: ReadableStream<Uint8Array>,
  onRetry: (ms: number) => void = () => {},
): AsyncGenerator<StreamEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  let id: string | undefined, event = "", data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buf += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let nl: number;
      // A \r that ends the chunk may be the first half of a \r\n: wait for the next.
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0 && (done || nl < buf.length - 1 || buf[nl] !== "\r")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (data.length > 0) {
            const text = data.join("\n");
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // not JSON: handed on as text
            }
            yield { ...(id !== undefined ? { id } : {}), event: event || "message", data: parsed };
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
