// The API calls the page makes, through the official TypeScript client
// (clients/typescript, bundled as /map/guidepost-client.js). Writes go out
// as a guest account created on first use and kept for this tab
// (sessionStorage): a refresh token works once, so two tabs sharing one
// would revoke each other's session.

import { GuidepostClient, UploadManager, SessionEndedError } from '/map/guidepost-client.js';

const KEY = 'guidepost.session';

const tokens = {
  load: () => JSON.parse(sessionStorage.getItem(KEY) || 'null'),
  save: (t) => (t ? sessionStorage.setItem(KEY, JSON.stringify(t)) : sessionStorage.removeItem(KEY)),
};

const client = new GuidepostClient({ baseUrl: location.origin, tokens });
const uploads = new UploadManager(client, { storage: sessionStorage, prefix: 'guidepost.upload.' });

// signedIn makes sure writes have an account: the kept session, or a new
// guest's when there is none or it ended (revoked, or the server's secret
// changed).
async function signedIn(call) {
  if (!(await client.signedIn())) await client.call('post', '/v1/auth/guest');
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof SessionEndedError)) throw err;
    await client.call('post', '/v1/auth/guest');
    return call();
  }
}

// report sends the guest's report of a guide to the moderators; a repeat
// answers the open report already sent.
export async function report(targetType, targetId, reason, note) {
  const body = { target_type: targetType, target_id: targetId, reason, note };
  return (await signedIn(() => client.call('post', '/v1/reports', { body }))).data;
}

export async function getGuide(id) {
  return (await client.call('get', '/v1/guides/{id}', { path: { id }, auth: false })).data;
}

export function uploadPhoto(file) {
  return signedIn(() => uploads.send(file));
}

// waitReady polls the photo until the worker has rendered it, backing off
// from 300 ms to 2 s; a failed photo throws with its reason.
export async function waitReady(id, timeoutMs = 120e3) {
  const until = Date.now() + timeoutMs;
  for (let wait = 300; ; wait = Math.min(wait * 1.5, 2000)) {
    const { data: m } = await signedIn(() => client.call('get', '/v1/media/{id}', { path: { id } }));
    if (m.status === 'ready') return m;
    if (m.status === 'failed') throw new Error(m.failure || 'the photo could not be processed');
    if (Date.now() > until) throw new Error('the photo is still being processed; try again later');
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

export async function createGuide(guide) {
  return (await signedIn(() => client.call('post', '/v1/guides', { body: guide }))).data;
}

// me is the signed-in user's id, or null before the page has a session.
export function me() {
  return tokens.load()?.user?.id || null;
}

// blockedIDs lists every user the signed-in user blocks, a page at a time;
// without a session nobody is blocked, and none is made to ask.
export async function blockedIDs() {
  if (!me()) return [];
  const ids = [];
  for (let cursor; ;) {
    const query = cursor ? { limit: 100, cursor } : { limit: 100 };
    const { data: page } = await signedIn(() => client.call('get', '/v1/me/blocks', { query }));
    ids.push(...page.items.map((b) => b.user.id));
    if (!page.next_cursor) return ids;
    cursor = page.next_cursor;
  }
}

export async function block(userID) {
  return (await signedIn(() => client.call('put', '/v1/me/blocks/{user_id}', { path: { user_id: userID } }))).data;
}
