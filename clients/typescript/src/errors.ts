import type { components } from "./schema.js";

export type Problem = components["schemas"]["Problem"];
export type ProblemType = components["schemas"]["ProblemType"];
export type FieldError = components["schemas"]["FieldError"];
export type FieldErrorCode = components["schemas"]["FieldErrorCode"];

/** A problem's type without its /problems/ prefix: "invalid", "token_expired"… */
export type ProblemCode = ProblemType extends `/problems/${infer C}` ? C : never;

/** What an ErrorRule matches: any of type, field and code it names. */
export interface ErrorMatch {
  type?: ProblemCode | (string & {});
  field?: string;
  code?: FieldErrorCode;
}

/** An answer of 4xx or 5xx, with its problem+json body. */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;
  readonly headers: Headers;

  constructor(status: number, problem: Problem, headers: Headers) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.problem = problem;
    this.headers = headers;
  }

  /** The problem type without /problems/: "invalid", "rate_limited"… */
  get type(): string {
    return this.problem.type.replace(/^\/problems\//, "");
  }

  get fields(): FieldError[] {
    return this.problem.errors ?? [];
  }

  /** Seconds from Retry-After, when the answer carries it. */
  get retryAfter(): number | undefined {
    const v = this.headers.get("Retry-After");
    if (v === null) return undefined;
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }

  /** Whether the problem is of m.type and has a field error with m's field and code. */
  matches(m: ErrorMatch): boolean {
    if (m.type !== undefined && m.type !== this.type) return false;
    if (m.field === undefined && m.code === undefined) return true;
    return this.fields.some(
      (f) => (m.field === undefined || f.field === m.field) && (m.code === undefined || f.code === m.code),
    );
  }

  /** The field error for field, if any. */
  field(name: string): FieldError | undefined {
    return this.fields.find((f) => f.field === name);
  }

  /** The session is over: sign in again (a refresh cannot help). */
  get signedOut(): boolean {
    return this.status === 401 && this.type === "unauthorized";
  }
}

/** A request that got no answer: offline, DNS, a connection cut. */
export class NetworkError extends Error {
  readonly cause: unknown;
  constructor(message: string, cause: unknown) {
    super(message);
    this.name = "NetworkError";
    this.cause = cause;
  }
}

/** The session has ended (revoked, expired, refresh refused): sign in again. */
export class SessionEndedError extends Error {
  constructor(readonly reason: ApiError | undefined) {
    super("the session has ended; sign in again");
    this.name = "SessionEndedError";
  }
}

export interface ErrorRule<T> extends ErrorMatch {
  then: T;
}

/**
 * The first rule that err matches, by (type, field, code), else fallback:
 * one table from errors to what a screen shows.
 *
 *   describeError(err, [
 *     { type: "invalid", field: "email", code: "invalid_format", then: "Not an email address" },
 *     { type: "rate_limited", then: "Slow down" },
 *   ], "Something went wrong")
 */
export function describeError<T>(err: unknown, rules: ErrorRule<T>[], fallback: T): T {
  if (!(err instanceof ApiError)) return fallback;
  for (const r of rules) if (err.matches(r)) return r.then;
  return fallback;
}

/** Parses a problem+json body, or makes one up from the status for any other body. */
export async function readProblem(res: Response): Promise<Problem> {
  const text = await res.text().catch(() => "");
  try {
    const p = JSON.parse(text) as Problem;
    if (p && typeof p.type === "string") return p;
  } catch {
    // not JSON: a proxy's page, Go's plain-text 431
  }
  return { type: "/problems/internal", title: res.statusText || `HTTP ${res.status}`, status: res.status, detail: text.slice(0, 200) };
}
