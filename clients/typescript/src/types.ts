import type { components, paths } from "./schema.js";

export type Schemas = components["schemas"];
export type Media = Schemas["Media"];
export type MediaReady = Schemas["MediaReady"];
export type Upload = Schemas["Upload"];
export type Session = Schemas["Session"];
export type User = Schemas["User"];
export type Guide = Schemas["Guide"];
export type GuideItem = Schemas["GuideItem"];
export type GuidePage = Schemas["GuidePage"];
export type ViewportPage = Schemas["ViewportPage"];
export type ClusterList = Schemas["ClusterList"];
export type Cluster = Schemas["Cluster"];
export type Bounds = Schemas["Bounds"];
export type MediaEvent = Schemas["MediaEvent"];
export type TileGuideProperties = Schemas["TileGuideProperties"];
export type TileClusterProperties = Schemas["TileClusterProperties"];

export type Method = "get" | "put" | "post" | "delete" | "patch";

/** The document's paths that take method M. */
export type PathsFor<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends undefined ? never : P;
}[keyof paths];

/** The operation at (M, P). */
export type Operation<M extends Method, P extends PathsFor<M>> = NonNullable<paths[P][M]>;

type SuccessStatus = 200 | 201 | 202 | 204;

type ContentOf<R> = R extends { content: infer C }
  ? C extends { "application/json": infer T }
    ? T
    : C extends { [type: string]: infer T }
      ? T
      : undefined
  : undefined;

/**
 * A success answer of operation O, one member per documented status, so
 * that `status` tells which body came (POST /v1/uploads: 201 an Upload, 200
 * a photo). fromCache: a 304 answered it from the ETag store.
 */
export type Answer<O> = O extends { responses: infer R }
  ? {
      [S in keyof R & SuccessStatus]: { status: S; data: ContentOf<R[S]>; headers: Headers; fromCache: boolean };
    }[keyof R & SuccessStatus]
  : never;

type PathPart<O> = O extends { parameters: { path: infer X } } ? { path: X } : { path?: undefined };
type QueryPart<O> = O extends { parameters: { query: infer X } }
  ? { query: X }
  : O extends { parameters: { query?: infer X } }
    ? { query?: X }
    : { query?: undefined };
type BodyOf<C> = C extends { "application/json": infer B } ? B : C extends { "multipart/form-data": unknown } ? FormData : never;
type BodyPart<O> = O extends { requestBody: { content: infer C } }
  ? { body: BodyOf<C> }
  : O extends { requestBody?: { content: infer C } }
    ? { body?: BodyOf<C> }
    : { body?: undefined };

/** What a call sends besides its path: parameters, body, headers, signal. */
export type CallOptions<O> = PathPart<O> &
  QueryPart<O> &
  BodyPart<O> & {
    headers?: Record<string, string>;
    signal?: AbortSignal;
    /** false: no bearer even when signed in (a public read that caches for everyone). */
    auth?: boolean;
  };
