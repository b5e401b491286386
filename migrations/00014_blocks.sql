-- +goose Up
-- One user blocking another: the blocked user's guides and photos leave
-- the blocker's answers, and the blocked user cannot like the blocker's
-- guides. A block has its own UUIDv7 id so that GET /v1/me/blocks pages
-- newest first by id, like every other "mine" list.
CREATE TABLE user_blocks (
    blocker_id uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    blocked_id uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    id         uuid        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (blocker_id, blocked_id),
    CHECK (blocker_id <> blocked_id)
);
CREATE UNIQUE INDEX user_blocks_page_idx ON user_blocks (blocker_id, id DESC);
-- Whether anyone blocks a user (is a like of theirs to be checked?), and
-- the cascade of an account's purge.
CREATE INDEX user_blocks_blocked_idx ON user_blocks (blocked_id);

-- Every API process keeps the block sets it has read in memory: each
-- insert or delete, a purge's cascade included, is announced after its
-- commit as "blocker:blocked", and a process that hears it drops both
-- users' sets.
-- +goose StatementBegin
CREATE FUNCTION user_blocks_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    IF TG_OP = 'DELETE' THEN
        r := OLD;
    ELSE
        r := NEW;
    END IF;
    PERFORM pg_notify('user_blocks', r.blocker_id::text || ':' || r.blocked_id::text);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER user_blocks_notify AFTER INSERT OR DELETE ON user_blocks
    FOR EACH ROW EXECUTE FUNCTION user_blocks_notify();

-- +goose Down
DROP TRIGGER user_blocks_notify ON user_blocks;
DROP FUNCTION user_blocks_notify();
DROP TABLE user_blocks;
