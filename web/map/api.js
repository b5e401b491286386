// The API calls the page makes. Writes go out as a guest account created on
// first use and kept for this tab (sessionStorage): a refresh token works
// once, so two tabs sharing one would revoke each other's session.

const KEY = 'guidepost.session';

export class Problem extends Error {
  constructor(status, body) {
    super(body?.detail || body?.title || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function answer(r) {
  const text = await r.text();
  const body = text ? JSON.parse(text) : null;
  if (!r.ok) throw new Problem(r.status, body);
  return body;
}

function postJSON(url, body, headers = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

let session = JSON.parse(sessionStorage.getItem(KEY) || 'null');

function keep(s) {
  const now = Date.now();
  session = {
    user: s.user?.id || session?.user,
    token: s.access_token,
    refresh: s.refresh_token,
    expiresAt: now + s.expires_in * 1000,
    refreshUntil: now + s.refresh_expires_in * 1000,
  };
  sessionStorage.setItem(KEY, JSON.stringify(session));
  return session.token;
}

// token is a live access token: the kept one, a refreshed one, or a new
// guest's. Tokens are renewed 30 s early so none expires in flight.
async function token() {
  const now = Date.now();
  if (session && now < session.expiresAt - 30e3) return session.token;
  if (session && now < session.refreshUntil - 30e3) {
    const r = await postJSON('/v1/auth/refresh', { refresh_token: session.refresh });
    if (r.ok) return keep(await r.json());
  }
  return keep(await answer(await fetch('/v1/auth/guest', { method: 'POST' })));
}

// authed sends a request with the guest's token; a 401 (the session was
// revoked, or the server's secret changed) starts a new guest once.
async function authed(url, init = {}) {
  for (let attempt = 0; ; attempt++) {
    const headers = { ...init.headers, Authorization: `Bearer ${await token()}` };
    const r = await fetch(url, { ...init, headers });
    if (r.status !== 401 || attempt > 0) return answer(r);
    session = null;
    sessionStorage.removeItem(KEY);
  }
}

export function getGuide(id) {
  return fetch(`/v1/guides/${encodeURIComponent(id)}`).then(answer);
}

export function uploadPhoto(file) {
  const form = new FormData();
  form.append('file', file);
  return authed('/v1/media', { method: 'POST', body: form });
}

// waitReady polls the photo until the worker has rendered it, backing off
// from 300 ms to 2 s; a failed photo throws with its reason.
export async function waitReady(id, timeoutMs = 120e3) {
  const until = Date.now() + timeoutMs;
  for (let wait = 300; ; wait = Math.min(wait * 1.5, 2000)) {
    const m = await authed(`/v1/media/${encodeURIComponent(id)}`);
    if (m.status === 'ready') return m;
    if (m.status === 'failed') throw new Error(m.failure || 'the photo could not be processed');
    if (Date.now() > until) throw new Error('the photo is still being processed; try again later');
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

export function createGuide(guide) {
  return authed('/v1/guides', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(guide),
  });
}

// me is the signed-in user's id, or null before the page has a session.
export function me() {
  return session && Date.now() < session.refreshUntil - 30e3 ? session.user || null : null;
}

// blockedIDs lists every user the signed-in user blocks, a page at a time;
// without a session nobody is blocked, and none is made to ask.
export async function blockedIDs() {
  if (!me()) return [];
  const ids = [];
  for (let cursor = ''; ;) {
    const q = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page = await authed(`/v1/me/blocks?limit=100${q}`);
    ids.push(...page.items.map((b) => b.user.id));
    if (!page.next_cursor) return ids;
    cursor = page.next_cursor;
  }
}

export function block(userID) {
  return authed(`/v1/me/blocks/${encodeURIComponent(userID)}`, { method: 'PUT' });
}
