import type { GuidepostClient } from "./client.js";
import { ApiError, NetworkError } from "./errors.js";
import { md5Hex, sha256Hex } from "./md5.js";
import { randomId } from "./random.js";
import { fetchTransport, type PartTransport } from "./transport.js";
import type { Media, Schemas, Upload } from "./types.js";

/**
 * Key-value storage that outlives the app: localStorage and React
 * Native's AsyncStorage both fit (methods may return promises).
 */
export interface KeyValueStorage {
  getItem(key: string): string | null | Promise<string | null>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
}

export class MemoryStorage implements KeyValueStorage {
  private readonly items = new Map<string, string>();
  getItem(k: string) {
    return this.items.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.items.set(k, v);
  }
  removeItem(k: string) {
    this.items.delete(k);
  }
}

export type UploadRoute = "multipart" | "direct";

/** What is kept of an upload under way, so that a restarted app can finish it. */
export interface SavedUpload {
  key: string;
  route: UploadRoute;
  bytes: number;
  /** The Idempotency-Key of the request that starts it: sent again, it replays the first answer. */
  idempotency_key: string;
  sha256?: string;
  content_type?: string;
  /** Direct uploads, once the server opened one. */
  upload_id?: string;
}

export interface UploadProgress {
  phase: "hashing" | "sending" | "completing" | "done";
  /**
   * Bytes the server or S3 holds, and, with a transport that reports it
   * (xhrTransport), those of the part on its way. After a cut connection
   * it may step back to what S3 holds.
   */
  sent: number;
  total: number;
}

export interface SendOptions {
  /** Names the upload in storage (a file URI, an asset id); default: the file's SHA-256. */
  key?: string;
  /** Default: direct (resumable) above 5 MiB, multipart below. */
  route?: UploadRoute;
  signal?: AbortSignal;
  onProgress?: (p: UploadProgress) => void;
}

type PhotoType = Schemas["PhotoType"];
type Part = Upload["parts"][number];

/** Most rounds of "send what is missing, complete" before giving up. */
const maxRounds = 5;

/** S3's smallest part but the last, and the server's default part size. */
const minPartSize = 5 << 20;

export interface UploadManagerOptions {
  storage?: KeyValueStorage;
  prefix?: string;
  /** How parts go to S3: fetchTransport (the client's fetch) by default, or xhrTransport() for upload progress. */
  partTransport?: PartTransport;
  /** Bytes of every part but the last of a direct upload; at least 5 MiB (the default). */
  partSize?: number;
  /**
   * Declare each part's SHA-256 (true by default), so that S3 refuses a
   * part cut off or altered on the way. Turn off only for a bucket whose
   * CORS rules do not allow the x-amz-checksum-sha256 header.
   */
  partChecksums?: boolean;
}

/**
 * Uploads photos by either route, resumably: the state of each upload is
 * saved before every request that could be cut off, so that after a
 * dropped connection, a cancel or an app killed, send() with the same
 * file (or resume()) carries on where the server says it stopped.
 * Cancelling (the signal) keeps the state; abort() ends the upload.
 */
export class UploadManager {
  private readonly storage: KeyValueStorage;
  private readonly prefix: string;
  private readonly transport: PartTransport;
  private readonly partSize: number;
  private readonly partChecksums: boolean;

  constructor(
    private readonly client: GuidepostClient,
    opts: UploadManagerOptions = {},
  ) {
    this.storage = opts.storage ?? new MemoryStorage();
    this.prefix = opts.prefix ?? "guidepost.upload.";
    this.transport = opts.partTransport ?? fetchTransport((url, init) => client.fetch(url, init));
    this.partSize = Math.max(opts.partSize ?? minPartSize, minPartSize);
    this.partChecksums = opts.partChecksums ?? true;
  }

  /** Sends a photo and returns it as the server accepted it (pending, or an earlier copy). */
  async send(file: Blob, opts: SendOptions = {}): Promise<Media> {
    const route = opts.route ?? (file.size > 5 << 20 ? "direct" : "multipart");
    const progress = (phase: UploadProgress["phase"], sent: number) =>
      opts.onProgress?.({ phase, sent, total: file.size });
    let saved = opts.key !== undefined ? await this.load(opts.key) : undefined;
    if (saved && (saved.bytes !== file.size || saved.route !== route)) saved = undefined;
    if (!saved || !saved.sha256) {
      progress("hashing", 0);
      const sha256 = await sha256Hex(file);
      saved = saved ?? (opts.key === undefined ? await this.load(sha256) : undefined);
      saved = { ...(saved ?? { key: opts.key ?? sha256, route, bytes: file.size, idempotency_key: randomId() }), sha256 };
    }
    await this.save(saved);
    const media =
      route === "multipart" ? await this.multipart(file, saved, opts, progress) : await this.direct(file, saved, opts, progress);
    await this.forget(saved.key);
    progress("done", file.size);
    return media;
  }

  /** The uploads saved and not finished, to offer resuming them. */
  async pending(): Promise<SavedUpload[]> {
    const keys = await this.index();
    const out: SavedUpload[] = [];
    for (const k of keys) {
      const s = await this.load(k);
      if (s) out.push(s);
    }
    return out;
  }

  /** Ends an upload: the server deletes its parts, and its state is forgotten. */
  async abort(key: string): Promise<void> {
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

  private async multipart(
    file: Blob,
    saved: SavedUpload,
    opts: SendOptions,
    progress: (phase: UploadProgress["phase"], sent: number) => void,
  ): Promise<Media> {
    progress("sending", 0);
    const form = new FormData();
    form.append("file", file, "photo");
    const res = await this.client.call("post", "/v1/media", {
      body: form,
      headers: { "Idempotency-Key": saved.idempotency_key },
      signal: opts.signal,
    });
    progress("completing", file.size);
    return res.data;
  }

  private async direct(
    file: Blob,
    saved: SavedUpload,
    opts: SendOptions,
    progress: (phase: UploadProgress["phase"], sent: number) => void,
  ): Promise<Media> {
    const signal = opts.signal;
    let upload = saved.upload_id ? await this.current(saved.upload_id, signal) : undefined;
    if (upload?.state === "completed" && upload.media) return upload.media;
    if (saved.upload_id && (!upload || upload.state === "aborted")) {
      // Expired or aborted elsewhere: start again under a new key.
      saved.upload_id = undefined;
      saved.idempotency_key = randomId();
      await this.save(saved);
      upload = undefined;
    }
    if (!upload) {
      saved.content_type ??= await photoType(file);
      const body: Schemas["UploadDeclaration"] = { bytes: file.size, sha256: saved.sha256!, content_type: saved.content_type as PhotoType };
      if (this.partChecksums) {
        // The whole declaration goes again under the same Idempotency-Key
        // after a restart: the same file hashes to the same parts.
        body.part_size = this.partSize;
        body.part_sha256 = await partSums(file, this.partSize);
      }
      const res = await this.client.call("post", "/v1/uploads", {
        body,
        headers: { "Idempotency-Key": saved.idempotency_key },
        signal,
      });
      if (res.data.object === "media") return res.data; // you have this photo already
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
            onProgress: (n) => progress("sending", base + Math.min(n, part.bytes)),
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
      // Cut off, or the server misses parts: ask it what it holds.
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
  private async missing(file: Blob, u: Upload): Promise<Part[]> {
    const out = [...u.parts];
    for (const p of u.received) {
      if (p.headers && Object.keys(p.headers).length > 0) continue;
      const bytes = new Uint8Array(await slice(file, u, p).arrayBuffer());
      if (p.etag?.replace(/"/g, "") !== md5Hex(bytes) || p.bytes !== bytes.length) out.push(p);
    }
    return out.sort((a, b) => a.number - b.number);
  }

  private async current(id: string, signal?: AbortSignal): Promise<Upload | undefined> {
    try {
      return (await this.client.call("get", "/v1/uploads/{id}", { path: { id }, signal })).data;
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return undefined;
      throw e;
    }
  }

  private async load(key: string): Promise<SavedUpload | undefined> {
    const v = await this.storage.getItem(this.prefix + key);
    if (!v) return undefined;
    try {
      return JSON.parse(v) as SavedUpload;
    } catch {
      return undefined;
    }
  }

  private async save(s: SavedUpload): Promise<void> {
    await this.storage.setItem(this.prefix + s.key, JSON.stringify(s));
    const keys = await this.index();
    if (!keys.includes(s.key)) await this.storage.setItem(this.prefix + "index", JSON.stringify([...keys, s.key]));
  }

  private async forget(key: string): Promise<void> {
    await this.storage.removeItem(this.prefix + key);
    const keys = await this.index();
    await this.storage.setItem(this.prefix + "index", JSON.stringify(keys.filter((k) => k !== key)));
  }

  private async index(): Promise<string[]> {
    try {
      return JSON.parse((await this.storage.getItem(this.prefix + "index")) ?? "[]") as string[];
    } catch {
      return [];
    }
  }
}

function slice(file: Blob, u: Upload, p: { number: number; bytes: number }): Blob {
  const start = (p.number - 1) * u.part_size;
  return file.slice(start, start + p.bytes);
}

/** Each part's SHA-256 (hex), in parts of partSize, with WebCrypto. */
async function partSums(file: Blob, partSize: number): Promise<string[]> {
  const sums: string[] = [];
  for (let off = 0; off < file.size; off += partSize) sums.push(await sha256Hex(file.slice(off, off + partSize)));
  return sums;
}

/** A cut connection, an S3 refusal, or 409 for parts missing: worth asking the server what it holds. */
function retryable(e: unknown): boolean {
  if (e instanceof NetworkError) return true;
  return e instanceof ApiError && e.status === 409 && e.fields.some((f) => f.field === "parts" || f.field.startsWith("parts["));
}

/** The photo's type from its first bytes, as the server will judge it. */
export async function photoType(file: Blob): Promise<string> {
  const b = new Uint8Array(await file.slice(0, 12).arrayBuffer());
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b[0] === 0x89 && ascii(1, 4) === "PNG") return "image/png";
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  if (ascii(4, 8) === "ftyp" && /^(heic|heix|heim|heis|hevc|hevx|mif1|msf1)$/.test(ascii(8, 12))) return "image/heic";
  return file.type || "application/octet-stream";
}
