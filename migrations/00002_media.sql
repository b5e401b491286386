-- +goose Up
-- Idempotency-Key records for POST requests. They live in PostgreSQL, not
-- Redis, so that an upload never depends on Redis being up: Redis only
-- carries the job, and a lost job is found again by the sweeper.
CREATE TABLE idempotency_keys (
    owner_id    uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    scope       text        NOT NULL, -- the operation, e.g. 'POST /v1/media'
    key         text        NOT NULL,
    fingerprint text        NOT NULL, -- what "the same body" means for the scope
    state       text        NOT NULL CHECK (state IN ('in_flight', 'done')),
    outcome     text,                 -- set when done: how the first answer ended
    resource_id uuid,                 -- set when done: what it answered with
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (owner_id, scope, key)
);
-- The sweeper deletes expired keys by age.
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
