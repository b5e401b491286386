// Both upload routes through the UploadManager, against the real binary
// and the S3 server we ship: a connection dropped mid-part, a cancel, and
// a restart that resumes from saved state.
import assert from "node:assert/strict";
import http from "node:http";
import { test } from "node:test";
import { ApiError, MemoryStorage, UploadManager, type UploadProgress } from "../src/index.js";
import { paddedJPEG, photo, ready, signedUp } from "./helpers.js";

const MiB = 1 << 20;

test("multipart: a photo sent, the same one again is the same photo", async () => {
  const c = await signedUp();
  const uploads = new UploadManager(c);
  const seen: UploadProgress[] = [];
  const m = await uploads.send(photo(), { route: "multipart", onProgress: (p) => seen.push(p) });
  assert.equal(m.object, "media");
  assert.ok(m.status === "pending" || m.status === "processing" || m.status === "ready");
  assert.deepEqual(seen.map((p) => p.phase), ["hashing", "sending", "completing", "done"]);
  const done = await ready(c, m.id);
  const again = await uploads.send(photo(), { route: "multipart" });
  assert.equal(again.id, done.id);
  assert.deepEqual(await uploads.pending(), []);
});

test("direct: a connection dropped mid-part is resumed, the cut part sent again", async () => {
  let puts = 0, cut = false;
  const c = await signedUp({
    fetch: async (input, init) => {
      if (init?.method === "PUT") {
        puts++;
        if (!cut) {
          cut = true;
          await dropMidBody(String(input), init.body as Blob, 0.4);
          throw new TypeError("fetch failed"); // what fetch throws for a reset connection
        }
      }
      return fetch(input, init);
    },
  });
  const file = paddedJPEG(6 * MiB); // two parts: 5 MiB and 1 MiB
  const seen: UploadProgress[] = [];
  const uploads = new UploadManager(c);
  const m = await uploads.send(file, { route: "direct", onProgress: (p) => seen.push(p) });
  assert.ok(cut);
  assert.ok(puts >= 3, `${puts} PUTs: the cut part went again`);
  const sent = seen.filter((p) => p.phase === "sending").map((p) => p.sent);
  assert.deepEqual(sent, [...sent].sort((a, b) => a - b).filter(() => true), "progress never goes back within a round");
  assert.equal(seen.at(-1)?.phase, "done");
  assert.equal(seen.at(-1)?.sent, file.size);
  const shot = await ready(c, m.id);
  assert.equal(shot.bytes, file.size);
});

test("direct: cancelled after a part, resumed by a new manager from saved state", async () => {
  const storage = new MemoryStorage();
  const controller = new AbortController();
  const sentParts: string[] = [];
  const c = await signedUp({
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === "PUT") {
        sentParts.push(new URL(String(input)).searchParams.get("partNumber") ?? "?");
        controller.abort(new Error("the user cancelled"));
      }
      return res;
    },
  });
  const file = paddedJPEG(11 * MiB); // three parts
  await assert.rejects(
    new UploadManager(c, { storage }).send(file, { key: "asset-1", route: "direct", signal: controller.signal }),
    /cancelled/,
  );
  const later = new UploadManager(c, { storage });
  const pending = await later.pending();
  assert.equal(pending.length, 1);
  assert.equal(pending[0]?.key, "asset-1");
  assert.ok(pending[0]?.upload_id);
  const m = await later.send(file, { key: "asset-1", route: "direct" });
  assert.deepEqual(sentParts, ["1", "2", "3"], "part 1 was not sent again");
  assert.deepEqual(await later.pending(), []);
  assert.equal((await ready(c, m.id)).bytes, file.size);
});

test("direct: an upload aborted is forgotten, and its slot freed", async () => {
  const storage = new MemoryStorage();
  const controller = new AbortController();
  const c = await signedUp({
    fetch: async (input, init) => {
      if (init?.method === "PUT") controller.abort(new Error("stop"));
      return fetch(input, init);
    },
  });
  const m = new UploadManager(c, { storage });
  await assert.rejects(m.send(paddedJPEG(6 * MiB), { key: "a", route: "direct", signal: controller.signal }));
  const id = (await m.pending())[0]?.upload_id;
  assert.ok(id);
  await m.abort("a");
  assert.deepEqual(await m.pending(), []);
  const state = await c.call("get", "/v1/uploads/{id}", { path: { id } }).then(
    (u) => u.data.state,
    (e: unknown) => (e instanceof ApiError ? e.status : e),
  );
  assert.ok(state === "aborted" || state === 404, `after abort: ${String(state)}`);
});

/** PUTs the first fraction of body to url and resets the connection. */
async function dropMidBody(url: string, body: Blob, fraction: number): Promise<void> {
  const bytes = new Uint8Array(await body.arrayBuffer());
  await new Promise<void>((resolve) => {
    const req = http.request(url, { method: "PUT", headers: { "Content-Length": bytes.length } });
    req.on("error", () => resolve());
    req.write(bytes.subarray(0, Math.floor(bytes.length * fraction)), () => {
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 200);
    });
  });
}
