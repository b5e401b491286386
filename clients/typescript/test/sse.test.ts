// The event-stream parser on its own: events split anywhere across chunks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseEvents, type StreamEvent } from "../src/index.js";

function stream(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const s of chunks) c.enqueue(enc.encode(s));
      c.close();
    },
  });
}

async function all(chunks: string[]): Promise<{ events: StreamEvent[]; retry: number[] }> {
  const events: StreamEvent[] = [], retry: number[] = [];
  for await (const e of parseEvents(stream(chunks), (ms) => retry.push(ms))) events.push(e);
  return { events, retry };
}

const text = 'retry: 1000\n: keep-alive\n\nid: 1-0\nevent: media.ready\ndata: {"id":"m"}\n\r\nevent: end\ndata: {"reason":\ndata: "token_expired"}\r\n\r\n';
const want: StreamEvent[] = [
  { id: "1-0", event: "media.ready", data: { id: "m" } },
  { id: "1-0", event: "end", data: { reason: "token_expired" } }, // the id carries over, as in the standard
];

test("one chunk", async () => {
  const { events, retry } = await all([text]);
  assert.deepEqual(events, want);
  assert.deepEqual(retry, [1000]);
});

test("every split point, a \\r\\n cut in two included", async () => {
  for (let i = 1; i < text.length; i++) {
    const { events } = await all([text.slice(0, i), text.slice(i)]);
    assert.deepEqual(events, want, `split at ${i}`);
  }
});

test("byte by byte, a multi-byte character split", async () => {
  const enc = new TextEncoder();
  const bytes = enc.encode('data: {"title":"서울카페"}\n\n');
  const s = new ReadableStream<Uint8Array>({
    start(c) {
      for (const b of bytes) c.enqueue(new Uint8Array([b]));
      c.close();
    },
  });
  const out: StreamEvent[] = [];
  for await (const e of parseEvents(s)) out.push(e);
  assert.deepEqual(out, [{ event: "message", data: { title: "서울카페" } }]);
});

test("an event cut off before its blank line is not dispatched", async () => {
  const { events } = await all(['event: media.ready\ndata: {"id":"m"}\n']);
  assert.deepEqual(events, []);
});
