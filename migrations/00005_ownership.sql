-- +goose Up
-- Sessions: an access token names its session (claim sid), and a request is
-- served only while that session is live. Refresh tokens rotate: each use
-- marks the token used and issues the next one of the same session; a used
-- token presented again means it leaked, and revokes the session.
CREATE TABLE sessions (
    id         uuid PRIMARY KEY,
    user_id    uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL, -- of its refresh tokens: the session ends then
    revoked_at timestamptz
);
CREATE INDEX sessions_user_idx ON sessions (user_id);

-- Only a SHA-256 of each refresh token is kept: a copy of the table
-- cannot be replayed.
CREATE TABLE refresh_tokens (
    hash       bytea PRIMARY KEY,
    session_id uuid        NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id);

-- A deleted account is marked at once (its sessions revoked in the same
-- transaction) and removed by a background job; the sweeper finishes what
-- a crash interrupted.
ALTER TABLE users ADD COLUMN deleted_at timestamptz;
CREATE INDEX users_deleted_idx ON users (deleted_at) WHERE deleted_at IS NOT NULL;

-- A deleted photo likewise: hidden at once, its objects and row removed
-- by a retried job.
ALTER TABLE media ADD COLUMN deleted_at timestamptz;
CREATE INDEX media_deleted_idx ON media (deleted_at) WHERE deleted_at IS NOT NULL;
-- A photo uploaded again after its owner deleted it is a new photo, even
-- while the deleted one waits for its purge.
ALTER TABLE media DROP CONSTRAINT media_owner_id_sha256_key;
CREATE UNIQUE INDEX media_owner_sha256_key ON media (owner_id, sha256) WHERE deleted_at IS NULL;

-- Where and when the photo was taken, from the original's EXIF; shown to
-- its owner only.
ALTER TABLE media ADD COLUMN taken_at timestamptz;
ALTER TABLE media ADD COLUMN taken_lat double precision;
ALTER TABLE media ADD COLUMN taken_lng double precision;

-- +goose Down
ALTER TABLE media DROP COLUMN taken_lng;
ALTER TABLE media DROP COLUMN taken_lat;
ALTER TABLE media DROP COLUMN taken_at;
DROP INDEX media_owner_sha256_key;
ALTER TABLE media ADD CONSTRAINT media_owner_id_sha256_key UNIQUE (owner_id, sha256);
DROP INDEX media_deleted_idx;
ALTER TABLE media DROP COLUMN deleted_at;
DROP INDEX users_deleted_idx;
ALTER TABLE users DROP COLUMN deleted_at;
DROP TABLE refresh_tokens;
DROP TABLE sessions;
