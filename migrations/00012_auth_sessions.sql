-- +goose Up
-- Sessions slide: each refresh moves expires_at to REFRESH_TTL from then
-- (up to SESSION_MAX_AGE from created_at) and records when, so an idle
-- guest can be told from one in use. Rows from before have no
-- last_used_at: their created_at stands in.
ALTER TABLE sessions ADD COLUMN last_used_at timestamptz;

-- The sweeper deletes, a batch at a time, dead sessions (their refresh
-- tokens go with them), used refresh tokens past their retention, and
-- idle guests that own nothing; each finds its rows by index.
CREATE INDEX sessions_expires_idx ON sessions (expires_at);
CREATE INDEX sessions_revoked_idx ON sessions (revoked_at) WHERE revoked_at IS NOT NULL;
CREATE INDEX refresh_tokens_used_idx ON refresh_tokens (used_at) WHERE used_at IS NOT NULL;
CREATE INDEX users_guest_idx ON users (created_at) WHERE guest AND deleted_at IS NULL;

-- +goose Down
DROP INDEX users_guest_idx;
DROP INDEX refresh_tokens_used_idx;
DROP INDEX sessions_revoked_idx;
DROP INDEX sessions_expires_idx;
ALTER TABLE sessions DROP COLUMN last_used_at;
