// The whole flow of an app, through the client, against the real binary.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ApiError, MemoryTokenStore, SessionEndedError, describeError, type Tokens } from "../src/index.js";
import { client, email, eventually, photo, ready, signedUp, tokenTTL } from "./helpers.js";

describe("accounts", () => {
  test("a guest upgrades in place and keeps its id", async () => {
    const c = client();
    const guest = await c.call("post", "/v1/auth/guest");
    assert.equal(guest.status, 201);
    assert.equal(guest.data.user.guest, true);
    assert.equal(await c.signedIn(), true);
    const addr = email();
    const up = await c.call("post", "/v1/auth/upgrade", { body: { email: addr, password: "correct horse battery", display_name: "Min" } });
    assert.equal(up.data.user.id, guest.data.user.id);
    const me = await c.call("get", "/v1/me");
    assert.equal(me.data.email, addr);
    assert.equal(me.data.guest, false);
  });

  test("an expired access token is refreshed, and the call goes through", async () => {
    assert.ok(tokenTTL > 0 && tokenTTL <= 10, "the binary runs with a short TOKEN_TTL");
    const c = await signedUp({ refreshAhead: 0 }); // only the server's token_expired triggers it
    await new Promise((r) => setTimeout(r, tokenTTL * 1000 + 1500));
    const before = c.refreshCount;
    const me = await c.call("get", "/v1/me");
    assert.ok(me.data.id);
    assert.equal(c.refreshCount, before + 1);
  });

  test("two refreshes at once are one: every caller waits on the same rotation", async () => {
    const c = await signedUp({ refreshAhead: 0 });
    await new Promise((r) => setTimeout(r, tokenTTL * 1000 + 1500));
    const before = c.refreshCount;
    const [a, b, ...rest] = await Promise.all([
      c.refresh(),
      c.refresh(),
      c.call("get", "/v1/me"),
      c.call("get", "/v1/me/guides"),
      c.call("get", "/v1/me/media"),
    ]);
    assert.equal(a, undefined);
    assert.equal(b, undefined);
    assert.equal(rest.length, 3);
    assert.equal(c.refreshCount, before + 1, "one refresh for five callers");
    // And the rotated tokens work: no reuse of a used refresh token revoked the session.
    assert.ok((await c.call("get", "/v1/me")).data.id);
  });

  test("the auth routes get no bearer: a stale one in storage cannot make log-in fail", async () => {
    const addr = email();
    await client().call("post", "/v1/auth/signup", { body: { email: addr, password: "correct horse battery", display_name: "S" } });
    const store = new MemoryTokenStore();
    const stale: Tokens = { access_token: "forged.token.here", refresh_token: "used", access_expires_at: Date.now() - 1000 };
    store.save(stale);
    const c = client({ tokens: store, fetch: (input, init) => {
      assert.equal(new Headers(init?.headers).get("Authorization"), null, `${String(input)} carried a bearer`);
      return fetch(input, init);
    } });
    const s = await c.call("post", "/v1/auth/login", { body: { email: addr, password: "correct horse battery" } });
    assert.equal(s.status, 200);
    assert.notEqual((store.load() as Tokens).access_token, stale.access_token);
  });

  test("errors are told apart by type, field and code", async () => {
    const c = await signedUp();
    const err = await c.call("post", "/v1/guides", { body: { title: "", lat: 91, lng: 0 } }).catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 400);
    assert.equal(err.type, "invalid");
    assert.ok(err.matches({ type: "invalid", field: "lat", code: "out_of_range" }));
    assert.ok(err.matches({ field: "title", code: "required" }));
    assert.ok(!err.matches({ type: "invalid", field: "lng" }));
    const rules = [
      { type: "invalid", field: "title", code: "too_long" as const, then: "shorter please" },
      { type: "invalid", field: "lat", code: "out_of_range" as const, then: "not on Earth" },
    ];
    assert.equal(describeError(err, rules, "?"), "not on Earth");
    const missing = await c.call("get", "/v1/guides/{id}", { path: { id: "019be961-e7b5-71fc-b723-d1d3a0f0c268" } }).catch((e: unknown) => e);
    assert.ok(missing instanceof ApiError && missing.type === "not_found" && missing.status === 404);
  });
});

describe("guides, lists, likes, search, clusters, tiles", () => {
  test("a guide with a photo is found every way a map looks for it", async () => {
    const c = await signedUp();
    const up = await c.call("post", "/v1/media", { body: form(photo()) });
    assert.equal(up.status, 202);
    const shot = await ready(c, up.data.id);
    assert.match(shot.urls.web, /^http/); // typed string: ready has URLs
    assert.ok(shot.width > 0 && shot.height > 0);

    const lat = 33 + Math.random(), lng = 126 + Math.random(); // somewhere of its own
    const word = `tsflow${process.pid}x${Date.now() % 100000}`;
    const g = await c.call("post", "/v1/guides", {
      body: { title: `Cafe ${word}`, body: "coffee", lat, lng, media_ids: [shot.id], tags: ["cafe"] },
    });
    assert.equal(g.status, 201);
    assert.equal(g.data.media[0]?.status, "ready");
    const changed = await c.call("patch", "/v1/guides/{id}", { path: { id: g.data.id }, body: { tags: ["cafe", "night"] } });
    assert.deepEqual(changed.data.tags, ["cafe", "night"]);

    const mine = await c.call("get", "/v1/me/guides", { query: { limit: 5 } });
    assert.equal(mine.data.items[0]?.id, g.data.id);

    const near = await c.call("get", "/v1/guides/nearby", { query: { lat, lng, radius_m: 100 } });
    assert.equal(near.data.items[0]?.id, g.data.id);
    // The cover's marker is a short API path with presigned URLs; it and
    // every variant built from it redirect to the bytes.
    const cover = near.data.items[0]?.cover;
    assert.ok(cover);
    assert.equal(cover.urls.marker, `/v1/media/${shot.id}/marker.jpg`);
    assert.deepEqual(cover.urls.formats, ["jpeg", "webp"]);
    for (const file of ["marker.jpg", "small.webp"]) {
      const img = await c.fetch(c.coverURL(cover, file) ?? "");
      assert.equal(img.status, 200, file);
      assert.equal(img.headers.get("Content-Type"), file.endsWith(".jpg") ? "image/jpeg" : "image/webp");
      assert.ok((await img.arrayBuffer()).byteLength > 100);
    }
    const found = await c.call("get", "/v1/guides/nearby", { query: { lat, lng, radius_m: 100, q: word } });
    assert.deepEqual(found.data.items.map((i) => i.id), [g.data.id]);
    const none = await c.call("get", "/v1/guides/nearby", { query: { lat, lng, radius_m: 100, q: "zzzunmatched" } });
    assert.equal(none.data.items.length, 0);

    const liked = await c.call("put", "/v1/guides/{id}/like", { path: { id: g.data.id } });
    assert.deepEqual(liked.data, { liked_by_me: true, like_count: 1 });
    const again = await c.call("put", "/v1/guides/{id}/like", { path: { id: g.data.id } });
    assert.equal(again.data.like_count, 1, "liking twice is one like");

    // Anonymous map reads: cached copies are used on 304.
    const anon = client();
    const bbox = `${lng - 0.01},${lat - 0.01},${lng + 0.01},${lat + 0.01}`;
    const first = await eventually("a viewport answer with an ETag", 10_000, async () => {
      const r = await anon.call("get", "/v1/guides", { query: { bbox } });
      return r.headers.get("ETag") && r.data.items.length === 1 ? r : undefined;
    });
    assert.equal(first.data.truncated, false);
    const second = await anon.call("get", "/v1/guides", { query: { bbox } });
    assert.equal(second.fromCache, true, "a 304 answered from the ETag store");
    assert.deepEqual(second.data, first.data);

    const cl = await anon.call("get", "/v1/guides/clusters", { query: { bbox, zoom: 10 } });
    const cell = cl.data.clusters.find((k) => k.guide_id === g.data.id);
    assert.ok(cell, "the guide's cell");
    assert.equal(cell.bounds.length, 4);
    const [minLng, minLat, maxLng, maxLat] = cell.bounds;
    assert.ok(minLng <= lng && lng <= maxLng && minLat <= lat && lat <= maxLat);

    const z = 14, [x, y] = tileOf(lat, lng, z);
    const tile = await eventually("the guide's tile", 10_000, async () => {
      const t = await anon.call("get", "/v1/tiles/{z}/{x}/{y}.mvt", { path: { z, x, y } });
      return t.status === 200 && t.headers.get("ETag") ? t : undefined;
    });
    assert.ok(tile.status === 200 && tile.data.size > 0);
    const cachedTile = await anon.call("get", "/v1/tiles/{z}/{x}/{y}.mvt", { path: { z, x, y } });
    assert.equal(cachedTile.fromCache, true);

    const unliked = await c.call("delete", "/v1/guides/{id}/like", { path: { id: g.data.id } });
    assert.deepEqual(unliked.data, { liked_by_me: false, like_count: 0 });

    // Deletion: the guide, the photo, then the account and its session.
    const del = await c.call("delete", "/v1/guides/{id}", { path: { id: g.data.id } });
    assert.equal(del.status, 204);
    await assert.rejects(c.call("get", "/v1/guides/{id}", { path: { id: g.data.id } }), (e: unknown) => e instanceof ApiError && e.status === 404);
    assert.equal((await c.call("delete", "/v1/media/{id}", { path: { id: shot.id } })).status, 204);
    let ended = 0;
    const d = await signedUp({ onSessionEnded: () => ended++ });
    assert.equal((await d.call("delete", "/v1/me")).status, 202);
    await assert.rejects(d.call("get", "/v1/me"), (e: unknown) => e instanceof SessionEndedError);
    assert.equal(ended, 1);
    assert.equal(await d.signedIn(), false);
  });
});

function form(file: Blob): FormData {
  const f = new FormData();
  f.append("file", file, "photo.jpg");
  return f;
}

function tileOf(lat: number, lng: number, z: number): [number, number] {
  const n = 2 ** z;
  const x = Math.floor(((lng + 180) / 360) * n);
  const r = (lat * Math.PI) / 180;
  const y = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);
  return [x, y];
}
