-- +goose Up
-- Direct uploads: a client PUTs a photo's parts straight to S3 with
-- presigned URLs, then asks the API to complete it. The upload's state lives
-- here, not in a process, so any API process can answer for it.
CREATE TABLE uploads (
    id            uuid        PRIMARY KEY,
    owner_id      uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    media_id      uuid        NOT NULL, -- the photo it becomes (or, with retry, replaces the original of)
    retry         boolean     NOT NULL DEFAULT false,
    object_key    text        NOT NULL, -- where S3 assembles it: the photo's original
    s3_upload_id  text        NOT NULL,
    bytes         bigint      NOT NULL CHECK (bytes > 0),
    sha256        text        NOT NULL, -- declared by the client; the worker checks it
    content_type  text        NOT NULL, -- declared; completion checks it against the bytes
    part_size     bigint      NOT NULL CHECK (part_size > 0),
    state         text        NOT NULL CHECK (state IN ('open', 'completing', 'completed', 'aborted')),
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL
);
-- Per-owner limits: uploads open, bytes declared in the last day.
CREATE INDEX uploads_owner_idx ON uploads (owner_id, created_at);
-- The sweeper finds uploads abandoned past their expiry.
CREATE INDEX uploads_unfinished_idx ON uploads (expires_at) WHERE state IN ('open', 'completing');

-- +goose Down
DROP TABLE uploads;
