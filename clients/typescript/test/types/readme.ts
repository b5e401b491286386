// The README's example, compiled (never run) so that it stays true.
import { ApiError, EventClient, GuidepostClient, UploadManager, type TokenStore } from "../../src/index.js";

declare const myTokenStore: TokenStore;
declare const file: Blob;
declare function show(url: string): void;
declare function askForAPin(): void;

export async function example() {
  const api = new GuidepostClient({ baseUrl: "http://127.0.0.1:8080", tokens: myTokenStore });
  await api.call("post", "/v1/auth/guest");                      // tokens kept, refreshed when they expire
  const photo = await new UploadManager(api, { storage: localStorage }).send(file); // hashed, resumable
  new EventClient(api, { onEvent: (e) => e.data.status === "ready" && show(e.data.urls.web) }).start();
  const { data } = await api.call("get", "/v1/guides/nearby", { query: { lat: 37.5665, lng: 126.978 } });
  try { await api.call("post", "/v1/guides", { body: { title: "Cafe", location_from_media_id: photo.id } }); }
  catch (e) { if (e instanceof ApiError && e.matches({ field: "location_from_media_id", code: "no_location" })) askForAPin(); }
  return data;
}
