-- +goose Up
CREATE EXTENSION IF NOT EXISTS postgis;

CREATE TABLE users (
    id            uuid PRIMARY KEY,
    email         text,
    display_name  text        NOT NULL,
    password_hash text,
    guest         boolean     NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL
);
-- Emails compare case-insensitively; guests have none.
CREATE UNIQUE INDEX users_email_key ON users (lower(email)) WHERE email IS NOT NULL;

CREATE TABLE media (
    id           uuid PRIMARY KEY,
    owner_id     uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status       text        NOT NULL CHECK (status IN ('pending', 'processing', 'ready', 'failed')),
    content_type text        NOT NULL,
    bytes        bigint      NOT NULL CHECK (bytes > 0),
    width        integer     NOT NULL,
    height       integer     NOT NULL,
    sha256       text        NOT NULL,
    thumbhash    text,
    failure      text,
    attempts     integer     NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    processed_at timestamptz,
    -- The same user uploading the same bytes gets the existing media back.
    UNIQUE (owner_id, sha256)
);
-- The sweeper scans only unfinished rows, by age.
CREATE INDEX media_unfinished_idx ON media (updated_at) WHERE status IN ('pending', 'processing');

CREATE TABLE guides (
    id         uuid PRIMARY KEY,
    author_id  uuid                   NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title      text                   NOT NULL,
    body       text                   NOT NULL DEFAULT '',
    location   geography(Point, 4326) NOT NULL,
    tags       text[]                 NOT NULL DEFAULT '{}',
    like_count bigint                 NOT NULL DEFAULT 0,
    created_at timestamptz            NOT NULL,
    updated_at timestamptz            NOT NULL
);
CREATE INDEX guides_location_idx ON guides USING gist (location);
CREATE INDEX guides_tags_idx ON guides USING gin (tags);
CREATE INDEX guides_author_idx ON guides (author_id);

CREATE TABLE guide_media (
    guide_id uuid     NOT NULL REFERENCES guides (id) ON DELETE CASCADE,
    media_id uuid     NOT NULL REFERENCES media (id) ON DELETE RESTRICT,
    position smallint NOT NULL,
    PRIMARY KEY (guide_id, position),
    UNIQUE (guide_id, media_id)
);
CREATE INDEX guide_media_media_idx ON guide_media (media_id);

CREATE TABLE guide_likes (
    guide_id   uuid        NOT NULL REFERENCES guides (id) ON DELETE CASCADE,
    user_id    uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (guide_id, user_id)
);
CREATE INDEX guide_likes_user_idx ON guide_likes (user_id);

-- +goose Down
DROP TABLE guide_likes;
DROP TABLE guide_media;
DROP TABLE guides;
DROP TABLE media;
DROP TABLE users;
