// The event client over fetch streaming, against the real binary.
import assert from "node:assert/strict";
import { test } from "node:test";
import { EventClient, UploadManager, type MediaEvent } from "../src/index.js";
import { eventually, photo, signedUp, tokenTTL } from "./helpers.js";

function collect(c: Awaited<ReturnType<typeof signedUp>>, opts: { lastEventId?: string } = {}) {
  const events: MediaEvent[] = [];
  let resyncs = 0;
  const stops: unknown[] = [];
  const ec = new EventClient(c, {
    ...opts,
    onEvent: (e) => events.push(e),
    onResync: () => resyncs++,
    onStop: (e) => stops.push(e),
  });
  ec.start();
  return { ec, events, stops, resyncs: () => resyncs };
}

test("events: a photo's ready event, then the ones missed while away, by Last-Event-ID", async () => {
  const c = await signedUp();
  const uploads = new UploadManager(c);
  const s = collect(c);
  await eventually("the stream open", 10_000, async () => s.ec.connects > 0);
  const first = await uploads.send(photo("orient-1.jpg"));
  const ev = await eventually("media.ready", 90_000, async () => s.events.find((e) => e.data.id === first.id));
  assert.equal(ev.event, "media.ready");
  assert.equal(ev.data.status, "ready");
  if (ev.data.status === "ready") assert.match(ev.data.urls.thumbnail, /^http/);
  await s.ec.stop();
  const last = s.ec.lastEventId;
  assert.ok(last);

  // Away: a photo finishes meanwhile; back with the last id, it comes first.
  const second = await uploads.send(photo("orient-3.jpg"));
  await eventually("the second photo done", 90_000, async () => {
    const { data } = await c.call("get", "/v1/media/{id}", { path: { id: second.id } });
    return data.status === "ready";
  });
  const back = collect(c, { lastEventId: last });
  const missed = await eventually("the missed event", 20_000, async () => back.events.find((e) => e.data.id === second.id));
  assert.equal(missed.event, "media.ready");
  assert.equal(back.resyncs(), 0);
  await back.ec.stop();
  assert.deepEqual(back.stops, []);
});

test("events: an id the server does not know gets resync", async () => {
  const c = await signedUp();
  const s = collect(c, { lastEventId: "1-0" });
  await eventually("resync", 20_000, async () => s.resyncs() > 0);
  await s.ec.stop();
});

test("events: the token expires mid-stream; the client refreshes and reads on", { timeout: 180_000 }, async () => {
  assert.ok(tokenTTL > 0);
  const c = await signedUp({ refreshAhead: 0 });
  const s = collect(c);
  await eventually("the stream open", 10_000, async () => s.ec.connects > 0);
  const refreshes = c.refreshCount;
  // The server ends a stream whose token expired at its next check (a
  // minute at most); the client comes back with a fresh token.
  await eventually("a second stream after the token expired", 150_000, async () => s.ec.connects >= 2);
  assert.ok(c.refreshCount > refreshes, "refreshed to reconnect");
  const m = await new UploadManager(c).send(photo("orient-6.jpg"));
  const ev = await eventually("the event on the new stream", 90_000, async () => s.events.find((e) => e.data.id === m.id));
  assert.equal(ev.event, "media.ready");
  await s.ec.stop();
  assert.deepEqual(s.stops, []);
});
