import { NetworkError } from "./errors.js";

/** One part PUT to its presigned S3 URL. */
export interface PartRequest {
  /** The part's number, for error messages. */
  part: number;
  url: string;
  body: Blob;
  /** The headers signed into the URL (the part's SHA-256): sent as they are. */
  headers: Record<string, string>;
  signal?: AbortSignal;
  /** Called with the bytes of this part sent so far, by transports that can tell. */
  onProgress?: (sent: number) => void;
}

/**
 * Sends one part and resolves once S3 answered 2xx. It rejects with a
 * NetworkError for a cut connection or a refusal, and with the signal's
 * reason when cancelled.
 */
export type PartTransport = (req: PartRequest) => Promise<void>;

/**
 * Parts through fetch (the default). fetch cannot report upload progress
 * in browsers, so onProgress is never called: progress moves part by part.
 */
export function fetchTransport(fetchFn: (input: string, init?: RequestInit) => Promise<Response>): PartTransport {
  return async (req) => {
    let res: Response;
    try {
      res = await fetchFn(req.url, { method: "PUT", body: req.body, headers: req.headers, signal: req.signal ?? null });
    } catch (e) {
      if (req.signal?.aborted) throw req.signal.reason ?? e;
      throw new NetworkError(`part ${req.part}: no answer`, e);
    }
    await res.body?.cancel().catch(() => {});
    if (!res.ok) throw new NetworkError(`part ${req.part}: S3 answered ${res.status}`, undefined);
  };
}

/**
 * Parts through XMLHttpRequest, whose upload events report the bytes sent
 * while a part is on its way (browsers, React Native). make builds each
 * request; the default is the global XMLHttpRequest.
 */
export function xhrTransport(make: () => XMLHttpRequest = () => new XMLHttpRequest()): PartTransport {
  return (req) =>
    new Promise<void>((resolve, reject) => {
      const signal = req.signal;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const xhr = make();
      const cancel = () => xhr.abort();
      const settle = (err?: unknown) => {
        signal?.removeEventListener("abort", cancel);
        if (err === undefined) resolve();
        else reject(err);
      };
      xhr.open("PUT", req.url);
      for (const [name, value] of Object.entries(req.headers)) xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (e) => req.onProgress?.(e.loaded);
      xhr.onload = () =>
        settle(xhr.status >= 200 && xhr.status < 300 ? undefined : new NetworkError(`part ${req.part}: S3 answered ${xhr.status}`, undefined));
      xhr.onerror = () => settle(new NetworkError(`part ${req.part}: no answer`, undefined));
      xhr.ontimeout = xhr.onerror;
      xhr.onabort = () => settle(signal?.reason ?? new NetworkError(`part ${req.part}: aborted`, undefined));
      signal?.addEventListener("abort", cancel, { once: true });
      xhr.send(req.body);
    });
}
