// What the tests against the real binary share. The Go test
// (e2e/tsclient_test.go) starts the binary and sets GUIDEPOST_URL; Node
// APIs are fine here, never in src/.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { GuidepostClient, type ClientOptions, type MediaReady } from "../src/index.js";

export const baseUrl = process.env.GUIDEPOST_URL ?? "";
if (!baseUrl) throw new Error("GUIDEPOST_URL is not set: these tests run against the binary (go test ./e2e -run TestTypeScriptClient)");
/** The server's TOKEN_TTL in seconds. */
export const tokenTTL = Number(process.env.GUIDEPOST_TOKEN_TTL ?? "0");
const photos = process.env.GUIDEPOST_PHOTOS ?? "";

export function client(opts: Partial<ClientOptions> = {}): GuidepostClient {
  return new GuidepostClient({ baseUrl, ...opts });
}

let n = 0;
/** A fresh email, unique to this run. */
export function email(): string {
  return `ts-${process.pid}-${Date.now()}-${n++}@example.com`;
}

export async function signedUp(opts: Partial<ClientOptions> = {}): Promise<GuidepostClient> {
  const c = client(opts);
  await c.call("post", "/v1/auth/signup", { body: { email: email(), password: "correct horse battery", display_name: "TS" } });
  return c;
}

export function photo(name = "photo.jpg"): Blob {
  return new Blob([fs.readFileSync(path.join(photos, name))], { type: "image/jpeg" });
}

/** A real JPEG grown to size with bytes after its end, as the Go tests make them. */
export function paddedJPEG(size: number): Blob {
  const head = fs.readFileSync(path.join(photos, "photo.jpg"));
  const out = new Uint8Array(size);
  out.set(head);
  for (let i = head.length; i < size; i++) out[i] = (i * 13) & 0xff;
  return new Blob([out], { type: "image/jpeg" });
}

/** Polls until cond holds, up to limit ms. */
export async function eventually<T>(what: string, limit: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + limit;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${limit} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Waits for the photo to be rendered and returns it, narrowed to its ready shape. */
export async function ready(c: GuidepostClient, id: string): Promise<MediaReady> {
  return eventually(`photo ${id} ready`, 90_000, async () => {
    const { data } = await c.call("get", "/v1/media/{id}", { path: { id } });
    assert.notEqual(data.status, "failed", `photo ${id} failed: ${data.status === "failed" ? data.failure : ""}`);
    return data.status === "ready" ? data : undefined;
  });
}
