// Both upload routes through the UploadManager, against the real binary
// and the S3 server we ship: a connection dropped mid-part, a cancel, and
// a restart that resumes from saved state.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import http from "node:http";
import { test } from "node:test";
import {
  ApiError,
  MemoryStorage,
  NetworkError,
  UploadManager,
  xhrTransport,
  type Upload,
  type UploadProgress,
} from "../src/index.js";
import { baseUrl, paddedJPEG, photo, ready, signedUp } from "./helpers.js";
import { NodeXMLHttpRequest } from "./xhr.js";

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
          await dropMidBody(String(input), init.body as Blob, 0.4, init.headers);
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

/** PUTs the first fraction of body to url, with the part's signed headers, and resets the connection. */
async function dropMidBody(url: string, body: Blob, fraction: number, headers?: HeadersInit): Promise<void> {
  const bytes = new Uint8Array(await body.arrayBuffer());
  await new Promise<void>((resolve) => {
    const signed = Object.fromEntries(new Headers(headers).entries());
    const req = http.request(url, { method: "PUT", headers: { ...signed, "Content-Length": bytes.length } });
    req.on("error", () => resolve());
    req.write(bytes.subarray(0, Math.floor(bytes.length * fraction)), () => {
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 200);
    });
  });
}

/** Each part's hex SHA-256, in parts of partSize, with node:crypto (not the client's WebCrypto). */
async function partSums(file: Blob, partSize: number): Promise<string[]> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const out: string[] = [];
  for (let off = 0; off < bytes.length; off += partSize) {
    out.push(createHash("sha256").update(bytes.subarray(off, off + partSize)).digest("hex"));
  }
  return out;
}

/** The SHA-256 that S3 checks, as the x-amz-checksum-sha256 header carries it. */
function base64Sum(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("base64");
}

const partOf = (url: string) => Number(new URL(url).searchParams.get("partNumber"));

test("direct: parts declared with their SHA-256; one cut mid-body is not kept, listed missing, and sent again", async () => {
  const file = paddedJPEG(11 * MiB); // three parts
  const bytes = new Uint8Array(await file.arrayBuffer());
  let declared: { part_size?: number; part_sha256?: string[] } | undefined;
  const signed = new Map<number, string | null>();
  const listed: { parts: number[]; received: number[] }[] = [];
  let cut = false;
  const c = await signedUp({
    fetch: async (input, init) => {
      const url = String(input);
      const path = new URL(url).pathname;
      if (init?.method === "POST" && path === "/v1/uploads") declared = JSON.parse(String(init.body));
      if (init?.method === "PUT") {
        signed.set(partOf(url), new Headers(init.headers).get("x-amz-checksum-sha256"));
        if (!cut && partOf(url) === 2) {
          cut = true;
          await dropMidBody(url, init.body as Blob, 0.4, init.headers);
          throw new TypeError("fetch failed");
        }
      }
      const res = await fetch(input, init);
      if (init?.method === "GET" && /^\/v1\/uploads\/[^/]+$/.test(path)) {
        const u = (await res.clone().json()) as Upload;
        listed.push({ parts: u.parts.map((p) => p.number), received: u.received.map((p) => p.number) });
      }
      return res;
    },
  });
  const m = await new UploadManager(c).send(file, { route: "direct" });
  assert.ok(cut);
  assert.equal(declared?.part_size, 5 * MiB);
  assert.deepEqual(declared?.part_sha256, await partSums(file, 5 * MiB));
  for (const n of [1, 2, 3]) {
    const part = bytes.subarray((n - 1) * 5 * MiB, n * 5 * MiB);
    assert.equal(signed.get(n), base64Sum(part), `part ${n} carried its signed checksum`);
  }
  assert.deepEqual(listed[0], { parts: [2, 3], received: [1] }, "the part cut at 40 % is listed missing, not received");
  const shot = await ready(c, m.id);
  assert.equal(shot.bytes, file.size);
  assert.equal(shot.sha256, createHash("sha256").update(bytes).digest("hex"));
});

test("direct: a part of wrong bytes is refused by S3 and sent again right", async () => {
  const file = paddedJPEG(6 * MiB); // two parts
  let refused: number | "reset" | undefined;
  const c = await signedUp({
    fetch: async (input, init) => {
      if (init?.method === "PUT" && refused === undefined && partOf(String(input)) === 2) {
        const wrong = new Uint8Array(await (init.body as Blob).arrayBuffer());
        wrong[10] = (wrong[10] ?? 0) ^ 1;
        try {
          const res = await fetch(input, { ...init, body: new Blob([wrong]) });
          refused = res.status;
          return res;
        } catch (e) {
          refused = "reset"; // S3 may refuse before the body ends
          throw e;
        }
      }
      return fetch(input, init);
    },
  });
  const m = await new UploadManager(c).send(file, { route: "direct" });
  assert.ok(refused === 400 || refused === "reset", `a part with a byte changed: ${String(refused)}`);
  const shot = await ready(c, m.id);
  assert.equal(shot.sha256, createHash("sha256").update(new Uint8Array(await file.arrayBuffer())).digest("hex"));
});

test("direct: the XHR transport reports bytes on their way; a cancel mid-part resumes from what S3 holds", async () => {
  const c = await signedUp();
  const file = paddedJPEG(11 * MiB);
  const storage = new MemoryStorage();
  const transport = xhrTransport(() => new NodeXMLHttpRequest() as unknown as XMLHttpRequest);
  const controller = new AbortController();
  const before: number[] = [];
  await assert.rejects(
    new UploadManager(c, { storage, partTransport: transport }).send(file, {
      key: "xhr",
      route: "direct",
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase !== "sending") return;
        before.push(p.sent);
        if (p.sent > 7 * MiB) controller.abort(new Error("the user cancelled"));
      },
    }),
    /cancelled/,
  );
  assert.ok(before.some((n) => n > 0 && n < 5 * MiB), `progress within part 1: ${before.join(" ")}`);
  assert.ok(before.some((n) => n > 5 * MiB && n < 10 * MiB), `progress within part 2: ${before.join(" ")}`);
  assert.deepEqual(before, [...before].sort((a, b) => a - b), "progress never goes back within a round");
  const after: number[] = [];
  const m = await new UploadManager(c, { storage, partTransport: transport }).send(file, {
    key: "xhr",
    route: "direct",
    onProgress: (p) => p.phase === "sending" && after.push(p.sent),
  });
  assert.equal(after[0], 5 * MiB, "resumed from part 1, the one S3 holds: the cut part 2 was not kept");
  assert.equal(after.at(-1), file.size);
  assert.equal((await ready(c, m.id)).bytes, file.size);
  // A refusal is a NetworkError naming the part and the status.
  await assert.rejects(
    transport({ part: 7, url: `${baseUrl}/v1/no-such-part`, body: new Blob(["x"]), headers: {} }),
    (e: unknown) => e instanceof NetworkError && /part 7: S3 answered 404/.test(e.message),
  );
});
