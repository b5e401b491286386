/** An answer kept with its ETag, to be used again when the server says 304. */
export interface CachedAnswer {
  etag: string;
  status: number;
  data: unknown;
}

/**
 * Where answers with an ETag are kept: memory by default; an app may give
 * one over its own storage. Methods may return promises.
 */
export interface EtagStore {
  get(key: string): CachedAnswer | undefined | Promise<CachedAnswer | undefined>;
  set(key: string, value: CachedAnswer): void | Promise<void>;
}

/** The last `max` answers, least recently used dropped first. */
export class MemoryEtagStore implements EtagStore {
  private readonly entries = new Map<string, CachedAnswer>();
  constructor(private readonly max = 256) {}

  get(key: string): CachedAnswer | undefined {
    const v = this.entries.get(key);
    if (v !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  set(key: string, value: CachedAnswer): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
