// Compiled, never run, by `npm run typecheck` (and so by the Go test that
// runs npm test): each @ts-expect-error names a mistake the types
// generated from api/openapi.yaml must refuse. Loosen the document (a
// plain string, a nullable URL, an untyped array) and the line below it
// compiles, so its @ts-expect-error is unused and tsc fails.
import type { components, operations } from "../../src/schema.js";
import { GuidepostClient, type Answer, type Operation } from "../../src/index.js";

type S = components["schemas"];
declare const media: S["Media"];
declare const problem: S["Problem"];
declare const cluster: S["Cluster"];
declare const api: GuidepostClient;

// Problem.type is an enum of the problem types.
const knownType: S["Problem"]["type"] = "/problems/token_expired";
// @ts-expect-error a problem type the server never sends
const unknownType: S["Problem"]["type"] = "/problems/oops";
// Each field error's code is an enum.
const code: S["FieldError"]["code"] = "not_ready";
// @ts-expect-error a field code the server never sends
const badCode: S["FieldErrorCode"] = "nope";
if (problem.errors) {
  // @ts-expect-error code is not any string
  const s: "x" = problem.errors[0]!.code;
}

// Media is discriminated by status: ready has non-null URLs, width and height.
if (media.status === "ready") {
  const web: string = media.urls.web;
  const thumb: string = media.urls.thumbnail;
  const hash: string = media.thumbhash;
  const w: number = media.width + media.height;
  const at: string = media.processed_at;
} else {
  // @ts-expect-error not ready: no web URL
  const web: string = media.urls.web;
  // @ts-expect-error not ready: no thumbhash
  const hash: string = media.thumbhash;
}
if (media.status === "failed") {
  const why: string | undefined = media.failure;
}
// @ts-expect-error a status the server never sends
if (media.status === "done") {
}

// POST /v1/uploads answers an Upload (201) or a photo (200): told apart by status and by object.
declare const started: Answer<Operation<"post", "/v1/uploads">>;
if (started.status === 201) {
  const parts: S["UploadPart"][] = started.data.parts;
} else {
  // @ts-expect-error a 200 is a photo: it has no parts
  const parts = started.data.parts;
}
declare const either: S["Upload"] | S["Media"];
if (either.object === "upload") {
  const n: number = either.part_size;
} else {
  const st: S["Media"]["status"] = either.status;
  // @ts-expect-error a photo has no parts
  const parts = either.parts;
}

// The multipart file is binary (a Blob), not a string.
type UploadForm = NonNullable<operations["uploadMedia"]["requestBody"]>["content"]["multipart/form-data"];
const form: UploadForm = { file: new Blob([]) };
// @ts-expect-error a string is not a file
const notAFile: UploadForm = { file: "bytes" };

// Every answer has a named schema.
const page: S["ViewportPage"] = { items: [], next_cursor: null, truncated: false };
const clusters: S["ClusterList"] = { clusters: [cluster] };
const batch: S["MediaBatch"] = { items: [media], not_found: [] };
// bounds is a tuple of four numbers.
const [minLng, minLat, maxLng, maxLat] = cluster.bounds;
const sum: number = minLng + minLat + maxLng + maxLat;
// @ts-expect-error a fifth member does not exist
const fifth = cluster.bounds[4];
// @ts-expect-error three numbers are not bounds
const three: S["Bounds"] = [1, 2, 3];

// The vector tile's layers are described.
declare const tileGuide: S["TileGuideProperties"];
const tags: string = tileGuide.tags;
declare const tileCluster: S["TileClusterProperties"];
const top: string = tileCluster.top_guide_id;
// @ts-expect-error clusters carry no title
const title = tileCluster.title;

// Typed calls: a path, its parameters and its body are checked.
async function calls() {
  const nearby = await api.call("get", "/v1/guides/nearby", { query: { lat: 37.5, lng: 127 } });
  const first: S["GuideItem"] | undefined = nearby.data.items[0];
  // @ts-expect-error lat and lng are required
  await api.call("get", "/v1/guides/nearby", { query: { radius_m: 10 } });
  // @ts-expect-error no such path
  await api.call("get", "/v1/guide");
  // @ts-expect-error the id is a path parameter
  await api.call("get", "/v1/guides/{id}");
  // @ts-expect-error a guide needs a title
  await api.call("post", "/v1/guides", { body: { lat: 1, lng: 2 } });
  const viewport = await api.call("get", "/v1/guides", { query: { bbox: "1,2,3,4" } });
  const truncated: boolean = viewport.data.truncated;
  const tile = await api.call("get", "/v1/tiles/{z}/{x}/{y}.mvt", { path: { z: 1, x: 0, y: 0 } });
  if (tile.status === 200) {
    const blob: Blob = tile.data;
  }
  const me = await api.call("get", "/v1/me");
  // @ts-expect-error a user has no password
  me.data.password;
  return [first, truncated];
}

export { knownType, unknownType, code, badCode, form, notAFile, page, clusters, batch, sum, fifth, three, tags, top, title, calls };
