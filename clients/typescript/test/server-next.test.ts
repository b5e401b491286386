// What the client relies on from the routes and answers of issue #25's
// server side: events tickets, `event: end`, GET /v1/uploads, a wrong
// password apart from a dead session, auth routes that ignore a bearer,
// and 429s that name their limit. Run by the Go test only with
// GUIDEPOST_TS_NEXT set, until the server has them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError, EventClient, UploadManager, sha256Hex, type MediaEvent } from "../src/index.js";
import { baseUrl, email, eventually, paddedJPEG, photo, signedUp, tokenTTL } from "./helpers.js";

test("a wrong password is its own problem: nothing is signed out", async () => {
  let ended = 0;
  const c = await signedUp({ onSessionEnded: () => ended++ });
  const err = await c.call("post", "/v1/auth/login", { body: { email: email(), password: "wrong password!" } }).catch((e: unknown) => e);
  assert.ok(err instanceof ApiError);
  assert.equal(err.status, 401);
  assert.equal(err.type, "credentials");
  assert.equal(err.signedOut, false);
  assert.equal(ended, 0);
  assert.equal(await c.signedIn(), true);
});

test("the auth routes ignore an expired bearer", async () => {
  const c = await signedUp({ refreshAhead: 0 });
  const stale = (await c.accessToken())!;
  await new Promise((r) => setTimeout(r, tokenTTL * 1000 + 1500));
  const res = await fetch(baseUrl + "/v1/auth/guest", { method: "POST", headers: { Authorization: `Bearer ${stale}` } });
  assert.equal(res.status, 201);
});

test("events by ticket: a single-use ticket per connection, renewed on reconnect", async () => {
  const c = await signedUp();
  const t = await c.request<{ ticket: string; expires_at: string }>("post", "/v1/events/ticket");
  assert.equal(t.status, 201);
  assert.ok(Date.parse(t.data.expires_at) - Date.now() <= 61_000);
  const once = await fetch(`${baseUrl}/v1/events?ticket=${encodeURIComponent(t.data.ticket)}`);
  assert.equal(once.status, 200);
  await once.body?.cancel();
  const twice = await fetch(`${baseUrl}/v1/events?ticket=${encodeURIComponent(t.data.ticket)}`);
  assert.equal(twice.status, 401, "a ticket works once");

  const events: MediaEvent[] = [];
  const ec = new EventClient(c, { auth: "ticket", onEvent: (e) => events.push(e) });
  ec.start();
  await eventually("the stream open", 10_000, async () => ec.connects > 0);
  const m = await new UploadManager(c).send(photo("orient-8.jpg"));
  await eventually("media.ready by ticket", 90_000, async () => events.find((e) => e.data.id === m.id));
  await ec.stop();
});

test("a stream whose token expires ends with event: end, token_expired", { timeout: 180_000 }, async () => {
  const c = await signedUp({ refreshAhead: 0 });
  const reasons: string[] = [];
  const ec = new EventClient(c, { onEvent: () => {}, onEnd: (r) => reasons.push(r) });
  ec.start();
  await eventually("the end event", 150_000, async () => reasons.includes("token_expired"));
  await eventually("reconnected", 20_000, async () => ec.connects >= 2);
  await ec.stop();
});

test("GET /v1/uploads lists the open uploads; declaring the same file again is the same upload", async () => {
  const c = await signedUp();
  const file = paddedJPEG(6 << 20);
  const sha256 = await sha256Hex(file);
  const a = await c.call("post", "/v1/uploads", { body: { bytes: file.size, sha256, content_type: "image/jpeg" } });
  const b = await c.call("post", "/v1/uploads", { body: { bytes: file.size, sha256, content_type: "image/jpeg" } });
  assert.ok(a.data.object === "upload" && b.data.object === "upload", "an open upload, not a photo");
  assert.equal(b.data.id, a.data.id);
  assert.ok(b.data.parts.length > 0, "with fresh URLs");
  const list = await c.request<{ items: { id: string }[] }>("get", "/v1/uploads");
  assert.deepEqual(list.data.items.map((u) => u.id), [a.data.id]);
});

test("every 429 has Retry-After and names its limit", async () => {
  const c = await signedUp();
  const token = (await c.accessToken())!;
  const open: Response[] = [];
  let refused: Response | undefined;
  for (let i = 0; i < 20 && !refused; i++) {
    const r = await fetch(baseUrl + "/v1/events", { headers: { Authorization: `Bearer ${token}` } });
    if (r.status === 429) refused = r;
    else open.push(r);
  }
  assert.ok(refused, "a stream cap");
  assert.ok(Number(refused.headers.get("Retry-After")) > 0);
  const p = (await refused.json()) as { errors?: { limit?: string }[] };
  assert.ok(p.errors?.some((e) => e.limit === "event_streams_per_user"), JSON.stringify(p));
  for (const r of open) await r.body?.cancel();
});
