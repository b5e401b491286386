// Just enough of XMLHttpRequest for xhrTransport, over node:http, since
// Node has none: the request headers, upload progress events as the body
// is handed to the network (in 256 KiB pieces), load, error and abort.
// It talks to the real S3 server; only the browser API is stood in for.
import http from "node:http";
import https from "node:https";

type ProgressHandler = ((e: { loaded: number; total: number; lengthComputable: boolean }) => void) | null;

export class NodeXMLHttpRequest {
  status = 0;
  readonly upload: { onprogress: ProgressHandler } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  ontimeout: (() => void) | null = null;
  onabort: (() => void) | null = null;
  private method = "GET";
  private url = "";
  private readonly headers: Record<string, string> = {};
  private req: http.ClientRequest | undefined;
  private done = false;

  open(method: string, url: string): void {
    this.method = method;
    this.url = url;
  }

  setRequestHeader(name: string, value: string): void {
    this.headers[name] = value;
  }

  abort(): void {
    if (this.finish()) {
      this.req?.destroy();
      this.onabort?.();
    }
  }

  send(body: Blob): void {
    void this.sendBody(body);
  }

  /** Marks the request settled; false when it already was. */
  private finish(): boolean {
    if (this.done) return false;
    this.done = true;
    return true;
  }

  private async sendBody(body: Blob): Promise<void> {
    const bytes = new Uint8Array(await body.arrayBuffer());
    if (this.done) return;
    const u = new URL(this.url);
    const req = (u.protocol === "https:" ? https : http).request(u, {
      method: this.method,
      headers: { ...this.headers, "Content-Length": bytes.length },
    });
    this.req = req;
    req.on("response", (res) => {
      this.status = res.statusCode ?? 0;
      res.resume();
      res.on("end", () => this.finish() && this.onload?.());
    });
    req.on("error", () => this.finish() && this.onerror?.());
    const piece = 256 << 10;
    for (let off = 0; off < bytes.length && !this.done && !req.destroyed; off += piece) {
      const chunk = bytes.subarray(off, off + piece);
      await new Promise<void>((resolve) => req.write(chunk, () => resolve()));
      if (!this.done) this.upload.onprogress?.({ loaded: off + chunk.length, total: bytes.length, lengthComputable: true });
    }
    if (!this.done && !req.destroyed) req.end();
  }
}
