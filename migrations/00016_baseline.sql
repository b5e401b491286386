-- The baseline: the whole schema as of version 16, in one file. It replaces
-- the migrations 00001–00016 that built it step by step, and carries their
-- last version so that a database migrated before the squash (versions
-- 1–16 recorded) and one migrated from it agree on what comes next. From
-- here on migrations are only appended (00017_…), never edited; the live
-- schema, generated, is in schema.sql.
--
-- Columns stand in the order the history added them (PostgreSQL appends a
-- new column), so that this file and the migrations it replaces make the
-- same tables, column for column.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS postgis;

-- ---------------------------------------------------------------------------
-- Accounts
-- ---------------------------------------------------------------------------

-- A deleted account is marked at once (deleted_at; its sessions revoked in
-- the same transaction) and removed by a background job; the sweeper
-- finishes what a crash interrupted. A suspended account's sessions are
-- revoked when it is suspended, and no new one is created until it is
-- unsuspended.
CREATE TABLE users (
    id            uuid PRIMARY KEY,
    email         text,
    display_name  text        NOT NULL,
    password_hash text,
    guest         boolean     NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL,
    deleted_at    timestamptz,
    moderator     boolean     NOT NULL DEFAULT false,
    suspended_at  timestamptz
);
-- Emails compare case-insensitively; guests have none.
CREATE UNIQUE INDEX users_email_key ON users (lower(email)) WHERE email IS NOT NULL;
CREATE INDEX users_deleted_idx ON users (deleted_at) WHERE deleted_at IS NOT NULL;
-- The sweeper deletes idle guests that own nothing.
CREATE INDEX users_guest_idx ON users (created_at) WHERE guest AND deleted_at IS NULL;

-- Sessions: an access token names its session (claim sid), and a request is
-- served only while that session is live. Sessions slide: each refresh
-- moves expires_at to REFRESH_TTL from then (up to SESSION_MAX_AGE from
-- created_at) and records when, so an idle guest can be told from one in
-- use; a session never refreshed has no last_used_at, and its created_at
-- stands in.
CREATE TABLE sessions (
    id           uuid PRIMARY KEY,
    user_id      uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL, -- of its refresh tokens: the session ends then
    revoked_at   timestamptz,
    last_used_at timestamptz
);
CREATE INDEX sessions_user_idx ON sessions (user_id);
-- The sweeper deletes dead sessions (their refresh tokens go with them), a
-- batch at a time, by index.
CREATE INDEX sessions_expires_idx ON sessions (expires_at);
CREATE INDEX sessions_revoked_idx ON sessions (revoked_at) WHERE revoked_at IS NOT NULL;

-- Refresh tokens rotate: each use marks the token used and issues the next
-- one of the same session; a used token presented again means it leaked,
-- and revokes the session. Only a SHA-256 of each token is kept: a copy of
-- the table cannot be replayed.
CREATE TABLE refresh_tokens (
    hash       bytea PRIMARY KEY,
    session_id uuid        NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id);
-- The sweeper deletes used tokens past their retention.
CREATE INDEX refresh_tokens_used_idx ON refresh_tokens (used_at) WHERE used_at IS NOT NULL;

-- ---------------------------------------------------------------------------
-- Photos
-- ---------------------------------------------------------------------------

-- failure_reason is why a photo failed, as the metrics label (corrupt,
-- gave_up, …), beside the words its owner reads (failure). An upload of the
-- same bytes retries a photo that failed for a reason outside the photo
-- (the worker gave up during an outage, the original was lost) and answers
-- with the failure of one that would only fail again (corrupt, unsupported,
-- too many pixels).
--
-- A deleted photo is hidden at once (deleted_at), its objects and row
-- removed by a retried job. taken_* come from the original's EXIF and are
-- shown to its owner only. marker says whether the photo's square marker
-- image is stored. variants lists the derivatives in every width and
-- format (a JSON array of kind, format, size, bytes and object key); NULL
-- until a worker has rendered them. hidden_* are a moderation hold (see
-- Moderation).
CREATE TABLE media (
    id             uuid PRIMARY KEY,
    owner_id       uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status         text        NOT NULL CHECK (status IN ('pending', 'processing', 'ready', 'failed')),
    content_type   text        NOT NULL,
    bytes          bigint      NOT NULL CHECK (bytes > 0),
    width          integer     NOT NULL,
    height         integer     NOT NULL,
    sha256         text        NOT NULL,
    thumbhash      text,
    failure        text,
    attempts       integer     NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    processed_at   timestamptz,
    failure_reason text,
    deleted_at     timestamptz,
    taken_at       timestamptz,
    taken_lat      double precision,
    taken_lng      double precision,
    marker         boolean     NOT NULL DEFAULT false,
    hidden_at      timestamptz,
    hidden_reason  text,
    hidden_cause   text CHECK (hidden_cause IN ('moderator', 'reports', 'suspension')),
    variants       jsonb
);
-- The sweeper scans only unfinished rows, by age.
CREATE INDEX media_unfinished_idx ON media (updated_at) WHERE status IN ('pending', 'processing');
CREATE INDEX media_deleted_idx ON media (deleted_at) WHERE deleted_at IS NOT NULL;
-- The same user uploading the same bytes gets the existing photo back; one
-- uploaded again after its owner deleted it is a new photo, even while the
-- deleted one waits for its purge.
CREATE UNIQUE INDEX media_owner_sha256_key ON media (owner_id, sha256) WHERE deleted_at IS NULL;
-- "Mine" lists, newest first (ids are UUIDv7: their order is creation order).
CREATE INDEX media_owner_newest_idx ON media (owner_id, id DESC) WHERE deleted_at IS NULL;
-- Ready photos without a marker or without variants, for the sweeper to
-- queue.
CREATE INDEX media_markerless_idx ON media (id) WHERE status = 'ready' AND NOT marker AND deleted_at IS NULL;
CREATE INDEX media_unvaried_idx ON media (id) WHERE status = 'ready' AND variants IS NULL AND deleted_at IS NULL;

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

-- ---------------------------------------------------------------------------
-- Guides
-- ---------------------------------------------------------------------------

-- guide_tile numbers the 0.01° grid cell (a "tile", ~1.1 km × 0.9 km in
-- Korea) that holds a location: row = floor(lat*100)+9000, column =
-- floor(lng*100)+18000, tile = row*40000 + column. cache/grid.go computes the
-- same number with the same float64 arithmetic (IEEE multiply, then floor),
-- so Go and SQL always agree on which tile a guide is in.
-- +goose StatementBegin
CREATE FUNCTION guide_tile(loc geography) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (floor(ST_Y(loc::geometry) * 100)::bigint + 9000) * 40000
         + (floor(ST_X(loc::geometry) * 100)::bigint + 18000)
$$;
-- +goose StatementEnd

-- Text search. PostgreSQL 15 has no Korean configuration, and its parser
-- reads a run of Hangul as one word, so "카페" would never find
-- "서울카페에서" (Korean glues particles and compounds to nouns). The
-- document is therefore indexed with the `simple` configuration (lower
-- case, no stemming, no stop words: right for place names in any
-- language) over a text where every Hangul syllable is doubled: "서울카페"
-- becomes "서 서울 울카 카페 페", the run's overlapping syllable pairs
-- (bigrams) between its first and last syllable. A query turns each Hangul
-- run of two or more syllables into the phrase of its bigrams ("서울카페":
-- '서울' <-> '울카' <-> '카페'), which matches wherever those syllables
-- stand together, so a word is found inside compounds and before any
-- particle; one syllable matches a run that starts or ends with it (집 in
-- 우리집, 역 in 서울역). Other words match as words, and as prefixes from
-- three letters on (palace finds palaces). Title, body and tags are one
-- document.
-- +goose StatementBegin
CREATE FUNCTION guide_search_document(title text, body text, tags text[]) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(
        title || ' ' || body || ' ' || array_to_string(tags, ' '),
        -- a space where Hangul meets another script, then every syllable doubled
        '([^가-힣[:space:]])([가-힣])|([가-힣])([^가-힣[:space:]])', '\1\3 \2\4', 'g'),
        '([가-힣])', '\1 \1', 'g'))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION guide_search_query(q text) RETURNS tsquery
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(string_agg('(' || p || ')', ' & ' ORDER BY n), '')::tsquery
    FROM (
        SELECT r.n, CASE
            WHEN r.run ~ '^[가-힣]$' THEN phraseto_tsquery('simple'::regconfig, r.run)::text
            WHEN r.run ~ '^[가-힣]' THEN phraseto_tsquery('simple'::regconfig,
                (SELECT string_agg(substr(r.run, i, 2), ' ' ORDER BY i) FROM generate_series(1, length(r.run) - 1) i))::text
            ELSE phraseto_tsquery('simple'::regconfig, r.run)::text
                 || CASE WHEN r.run ~ '[^[:punct:]]{3}[[:punct:]]*$' THEN ':*' ELSE '' END
        END AS p
        FROM regexp_matches(q, '[가-힣]+|[^가-힣[:space:]]+', 'g') WITH ORDINALITY AS m(run, n),
             LATERAL (SELECT m.run[1] AS run, m.n) r
    ) parts
    WHERE p NOT IN ('', ':*')
$$;
-- +goose StatementEnd

-- like_count is a base, 0 unless shards are folded in (see
-- guide_like_shards). hidden_* are a moderation hold (see Moderation).
CREATE TABLE guides (
    id            uuid                   PRIMARY KEY,
    author_id     uuid                   NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title         text                   NOT NULL,
    body          text                   NOT NULL DEFAULT '',
    location      geography(Point, 4326) NOT NULL,
    tags          text[]                 NOT NULL DEFAULT '{}',
    like_count    bigint                 NOT NULL DEFAULT 0,
    created_at    timestamptz            NOT NULL,
    updated_at    timestamptz            NOT NULL,
    search        tsvector GENERATED ALWAYS AS (guide_search_document(title, body, tags)) STORED,
    hidden_at     timestamptz,
    hidden_reason text,
    hidden_cause  text CHECK (hidden_cause IN ('moderator', 'reports', 'suspension'))
);
CREATE INDEX guides_location_idx ON guides USING gist (location);
CREATE INDEX guides_tags_idx ON guides USING gin (tags);
CREATE INDEX guides_search_idx ON guides USING gin (search);
-- Exact tile membership for cache loads (WHERE guide_tile(location) = ANY(…)).
CREATE INDEX guides_tile_idx ON guides (guide_tile(location));
-- Planar lat/lng rectangles for viewports and fine clusters: a geography
-- "box" has great-circle edges, a map viewport does not.
CREATE INDEX guides_geom_idx ON guides USING gist ((location::geometry));
-- "Mine" lists, newest first; it also serves lookups by author.
CREATE INDEX guides_author_newest_idx ON guides (author_id, id DESC);

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

-- Like counters split in shards: a like increments one of 16 rows chosen at
-- random, so a hot guide's likes do not queue on one row lock. The exact
-- count is guides.like_count (a base, 0 unless folded in) plus the sum of
-- the shards.
-- updated_at lets every API process poll, once a second, the counts of the
-- guides liked or unliked lately, so lists show likes within about a second
-- without re-reading whole tiles.
CREATE TABLE guide_like_shards (
    guide_id   uuid        NOT NULL REFERENCES guides (id) ON DELETE CASCADE,
    shard      smallint    NOT NULL,
    n          bigint      NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (guide_id, shard)
);
CREATE INDEX guide_like_shards_updated_idx ON guide_like_shards (updated_at);

-- ---------------------------------------------------------------------------
-- Tile rows: what the nearby/viewport cache and the clusters are built on
-- ---------------------------------------------------------------------------

-- One row per tile that has ever held a guide. version only grows: it is
-- bumped by the statement that creates, moves, edits, hides or deletes a
-- guide in the tile, in the same transaction, and every API process hears
-- of it through NOTIFY guide_tiles after the commit. guides and the
-- coordinate sums (in 1e-7 degrees, integers so that they never drift)
-- feed the low-zoom clusters. The exact bounds and the newest guide let
-- clusters built from per-tile sums say at which zoom they split
-- (expansion_zoom, from the bounds of their guides) and which guide to
-- show when none is liked (the newest), without reading the guides of a
-- whole country. Bounds are the stored float8 coordinates themselves, so a
-- zoom computed from them agrees with one computed from the guides to the
-- last bit; they are NULL once a tile is empty. Hidden guides count as
-- absent: a tile counts, sums, bounds and lists only visible guides.
CREATE TABLE guide_tiles (
    tile       bigint PRIMARY KEY,
    version    bigint NOT NULL,
    guides     integer NOT NULL,
    sum_lat_e7 bigint NOT NULL,
    sum_lng_e7 bigint NOT NULL,
    min_lat    float8,
    min_lng    float8,
    max_lat    float8,
    max_lng    float8,
    newest     uuid
);

-- The same per tile and tag, so that clusters filtered by a tag add up tile
-- rows too instead of reading every guide carrying a common tag (a third
-- of a million in a country at 1 M guides). Only (tag, tile) pairs that
-- hold a visible guide have a row. No versions here: a tile's version
-- covers every guide in it, tags included.
CREATE TABLE guide_tile_tags (
    tag        text    NOT NULL,
    tile       bigint  NOT NULL,
    guides     integer NOT NULL,
    sum_lat_e7 bigint  NOT NULL,
    sum_lng_e7 bigint  NOT NULL,
    min_lat    float8  NOT NULL,
    min_lng    float8  NOT NULL,
    max_lat    float8  NOT NULL,
    max_lng    float8  NOT NULL,
    newest     uuid    NOT NULL,
    PRIMARY KEY (tag, tile)
);
CREATE INDEX guide_tile_tags_tile_idx ON guide_tile_tags (tile);

-- A guide's contribution to its tile: +1 guide and its coordinates when it
-- arrives, -1 and minus them when it leaves (a move is both).
CREATE TYPE guide_tile_delta AS (tile bigint, n integer, lat bigint, lng bigint);

-- A guide as the per-tile rows see it.
CREATE TYPE guide_tile_point AS (id uuid, tile bigint, lat float8, lng float8, tags text[]);

-- +goose StatementBegin
CREATE FUNCTION guide_tile_delta_of(loc geography, sign integer) RETURNS guide_tile_delta
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ROW(guide_tile(loc), sign,
               sign * round(ST_Y(loc::geometry) * 1e7)::bigint,
               sign * round(ST_X(loc::geometry) * 1e7)::bigint)::guide_tile_delta
$$;
-- +goose StatementEnd

-- guide_tile_shown is a guide's contribution: sign for a visible guide, 0
-- (its tile still bumped: a delta of 0 still bumps the version, so every
-- cache drops what it held) for a hidden one.
-- +goose StatementBegin
CREATE FUNCTION guide_tile_shown(loc geography, hidden timestamptz, sign integer) RETURNS guide_tile_delta
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT guide_tile_delta_of(loc, CASE WHEN hidden IS NULL THEN sign ELSE 0 END)
$$;
-- +goose StatementEnd

-- guide_tiles_apply adds the deltas to their tiles, bumping each touched
-- tile's version once, and returns how many tiles changed and the
-- 'tile:version:guides,…' list to notify. Tiles are locked in tile order so
-- concurrent writers never deadlock.
-- +goose StatementBegin
CREATE FUNCTION guide_tiles_apply(deltas guide_tile_delta[], OUT changed integer, OUT payload text)
LANGUAGE sql AS $$
    WITH d AS (
        SELECT tile, sum(n)::integer AS n, sum(lat)::bigint AS lat, sum(lng)::bigint AS lng
        FROM unnest(deltas) GROUP BY tile
    ), up AS (
        INSERT INTO guide_tiles AS t (tile, version, guides, sum_lat_e7, sum_lng_e7)
        SELECT tile, 1, n, lat, lng FROM d ORDER BY tile
        ON CONFLICT (tile) DO UPDATE
            SET version = t.version + 1,
                guides = t.guides + excluded.guides,
                sum_lat_e7 = t.sum_lat_e7 + excluded.sum_lat_e7,
                sum_lng_e7 = t.sum_lng_e7 + excluded.sum_lng_e7
        RETURNING t.tile, t.version, t.guides
    )
    SELECT count(*)::integer, string_agg(tile::text || ':' || version::text || ':' || guides::text, ',') FROM up
$$;
-- +goose StatementEnd

-- New guides only widen bounds and may be the newest: guide_tiles_grow
-- adds them without reading anything else. A guide that leaves a tile
-- (deleted, moved, retagged, hidden) may have been its bound or its
-- newest: guide_tiles_refresh recomputes the tiles it left from their
-- visible guides (bounds NULL once a tile is empty). The trigger calls
-- either after guide_tiles_apply has locked the tiles' rows, so one writer
-- at a time changes a tile; each statement of a volatile function takes a
-- fresh snapshot under READ COMMITTED, so a refresh sees every transaction
-- that held the lock before, and the last writer of a tile leaves exact
-- values.
-- +goose StatementBegin
CREATE FUNCTION guide_tiles_grow(guides guide_tile_point[]) RETURNS void
LANGUAGE sql AS $$
    UPDATE guide_tiles t
    SET min_lat = least(t.min_lat, s.min_lat), min_lng = least(t.min_lng, s.min_lng),
        max_lat = greatest(t.max_lat, s.max_lat), max_lng = greatest(t.max_lng, s.max_lng),
        newest = greatest(t.newest, s.newest)
    FROM (
        SELECT tile, min(lat) AS min_lat, min(lng) AS min_lng, max(lat) AS max_lat, max(lng) AS max_lng,
               (array_agg(id ORDER BY id DESC))[1] AS newest
        FROM unnest(guides) GROUP BY tile
    ) s
    WHERE t.tile = s.tile;
    INSERT INTO guide_tile_tags AS t (tag, tile, guides, sum_lat_e7, sum_lng_e7, min_lat, min_lng, max_lat, max_lng, newest)
    SELECT x.tag, g.tile, count(*), sum(round(g.lat * 1e7))::bigint, sum(round(g.lng * 1e7))::bigint,
           min(g.lat), min(g.lng), max(g.lat), max(g.lng), (array_agg(g.id ORDER BY g.id DESC))[1]
    FROM unnest(guides) AS g, unnest(g.tags) AS x(tag)
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (tag, tile) DO UPDATE
        SET guides = t.guides + excluded.guides,
            sum_lat_e7 = t.sum_lat_e7 + excluded.sum_lat_e7, sum_lng_e7 = t.sum_lng_e7 + excluded.sum_lng_e7,
            min_lat = least(t.min_lat, excluded.min_lat), min_lng = least(t.min_lng, excluded.min_lng),
            max_lat = greatest(t.max_lat, excluded.max_lat), max_lng = greatest(t.max_lng, excluded.max_lng),
            newest = greatest(t.newest, excluded.newest);
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION guide_tiles_refresh(tiles bigint[]) RETURNS void
LANGUAGE sql AS $$
    UPDATE guide_tiles t
    SET min_lat = s.min_lat, min_lng = s.min_lng, max_lat = s.max_lat, max_lng = s.max_lng, newest = s.newest
    FROM (
        SELECT u.tile,
               min(ST_Y(g.location::geometry)) AS min_lat, min(ST_X(g.location::geometry)) AS min_lng,
               max(ST_Y(g.location::geometry)) AS max_lat, max(ST_X(g.location::geometry)) AS max_lng,
               (array_agg(g.id ORDER BY g.id DESC))[1] AS newest
        FROM unnest(tiles) AS u(tile)
        LEFT JOIN guides g ON guide_tile(g.location) = u.tile AND g.hidden_at IS NULL
        GROUP BY u.tile
    ) s
    WHERE t.tile = s.tile;
    DELETE FROM guide_tile_tags WHERE tile = ANY(tiles);
    INSERT INTO guide_tile_tags (tag, tile, guides, sum_lat_e7, sum_lng_e7, min_lat, min_lng, max_lat, max_lng, newest)
    SELECT t.tag, guide_tile(g.location), count(*),
           sum(round(ST_Y(g.location::geometry) * 1e7))::bigint, sum(round(ST_X(g.location::geometry) * 1e7))::bigint,
           min(ST_Y(g.location::geometry)), min(ST_X(g.location::geometry)),
           max(ST_Y(g.location::geometry)), max(ST_X(g.location::geometry)),
           (array_agg(g.id ORDER BY g.id DESC))[1]
    FROM guides g, unnest(g.tags) AS t(tag)
    WHERE guide_tile(g.location) = ANY(tiles) AND g.hidden_at IS NULL
    GROUP BY 1, 2;
$$;
-- +goose StatementEnd

-- Tile versions reach every API process in notifications of any length: a
-- payload past one NOTIFY's 8000 bytes (about 470 tiles: an author with
-- guides in that many renaming, an account deleted, a bulk load) is cut at
-- item boundaries into notifications of at most 7000 bytes, delivered
-- together after the commit, so a write costs each listener the tiles it
-- touched, not a re-read of all of guide_tiles (148k rows at 1 M guides).
-- Only TRUNCATE notifies "*".
-- +goose StatementBegin
CREATE FUNCTION guide_tiles_notify(payload text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    cut integer;
BEGIN
    WHILE length(payload) > 7000 LOOP
        -- the last comma within the first 7001 characters ends a chunk
        cut := 7002 - strpos(reverse(substr(payload, 1, 7001)), ',');
        PERFORM pg_notify('guide_tiles', substr(payload, 1, cut - 1));
        payload := substr(payload, cut + 1);
    END LOOP;
    IF payload <> '' THEN
        PERFORM pg_notify('guide_tiles', payload);
    END IF;
END
$$;
-- +goose StatementEnd

-- guide_tiles_bump keeps the tile rows in step with every statement that
-- writes guides, and notifies 'tile:version:guides,…'.
-- +goose StatementBegin
CREATE FUNCTION guide_tiles_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed integer;
    payload text;
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        UPDATE guide_tiles SET version = version + 1, guides = 0, sum_lat_e7 = 0, sum_lng_e7 = 0,
            min_lat = NULL, min_lng = NULL, max_lat = NULL, max_lng = NULL, newest = NULL;
        DELETE FROM guide_tile_tags;
        PERFORM pg_notify('guide_tiles', '*');
        RETURN NULL;
    END IF;
    -- Each branch reads only the transition tables its trigger has.
    IF TG_OP = 'INSERT' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_shown(location, hidden_at, 1) FROM new_rows));
        PERFORM guide_tiles_grow(ARRAY(SELECT ROW(id, guide_tile(location), ST_Y(location::geometry),
            ST_X(location::geometry), tags)::guide_tile_point FROM new_rows WHERE hidden_at IS NULL));
    ELSIF TG_OP = 'DELETE' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_shown(location, hidden_at, -1) FROM old_rows));
        PERFORM guide_tiles_refresh(ARRAY(SELECT DISTINCT guide_tile(location) FROM old_rows));
    ELSE
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_shown(location, hidden_at, -1) FROM old_rows
                                     UNION ALL SELECT guide_tile_shown(location, hidden_at, 1) FROM new_rows));
        -- Only guides whose place, tags or visibility changed touch the
        -- rows (an edit of the text, or a new cover, leaves them as they are).
        PERFORM guide_tiles_refresh(ARRAY(
            SELECT guide_tile(o.location) FROM old_rows o JOIN new_rows n USING (id)
            WHERE (ST_Y(o.location::geometry), ST_X(o.location::geometry), o.tags, o.hidden_at IS NULL)
                  IS DISTINCT FROM (ST_Y(n.location::geometry), ST_X(n.location::geometry), n.tags, n.hidden_at IS NULL)
            UNION
            SELECT guide_tile(n.location) FROM old_rows o JOIN new_rows n USING (id)
            WHERE (ST_Y(o.location::geometry), ST_X(o.location::geometry), o.tags, o.hidden_at IS NULL)
                  IS DISTINCT FROM (ST_Y(n.location::geometry), ST_X(n.location::geometry), n.tags, n.hidden_at IS NULL)));
    END IF;
    IF changed > 0 THEN
        PERFORM guide_tiles_notify(payload);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER guides_tiles_insert AFTER INSERT ON guides
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION guide_tiles_bump();
CREATE TRIGGER guides_tiles_update AFTER UPDATE ON guides
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION guide_tiles_bump();
CREATE TRIGGER guides_tiles_delete AFTER DELETE ON guides
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION guide_tiles_bump();
CREATE TRIGGER guides_tiles_truncate AFTER TRUNCATE ON guides
    FOR EACH STATEMENT EXECUTE FUNCTION guide_tiles_bump();

-- A photo that becomes ready (or fails) changes the cover that lists show
-- for the guides it opens: touch those guides, so their tiles' versions
-- are bumped like any other edit.
-- +goose StatementBegin
CREATE FUNCTION guide_cover_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE guides SET updated_at = updated_at
    WHERE id IN (SELECT guide_id FROM guide_media WHERE media_id = NEW.id AND position = 0);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER media_guide_cover AFTER UPDATE OF status, thumbhash ON media
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.thumbhash IS DISTINCT FROM NEW.thumbhash)
    EXECUTE FUNCTION guide_cover_changed();

-- Lists carry the author's display name. A rename bumps the tiles of the
-- author's guides (no guide row changes), in the renaming transaction, so
-- a cached list shows the new name as soon as a new guide would show.
-- +goose StatementBegin
CREATE FUNCTION guide_author_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed integer;
    payload text;
BEGIN
    SELECT * INTO changed, payload FROM guide_tiles_apply(ARRAY(
        SELECT DISTINCT ROW(guide_tile(location), 0, 0, 0)::guide_tile_delta FROM guides WHERE author_id = NEW.id));
    IF changed > 0 THEN
        PERFORM guide_tiles_notify(payload);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER users_guide_author AFTER UPDATE OF display_name ON users
    FOR EACH ROW WHEN (OLD.display_name IS DISTINCT FROM NEW.display_name)
    EXECUTE FUNCTION guide_author_renamed();

-- ---------------------------------------------------------------------------
-- Moderation: reports from users, moderators who act on them, an audit log
-- of every action, and the holds that take a guide or a photo off every
-- public surface while its row (and its author's view of it) stays.
-- ---------------------------------------------------------------------------

-- A hold (guides.hidden_at, media.hidden_at) is set while the guide or
-- photo is off every public surface; hidden_cause says who put it there,
-- so that lifting a suspension restores only what the suspension hid.

-- target_id has no foreign key: a report outlives its target (a removed
-- guide's reporters still read the outcome).
CREATE TABLE reports (
    id          uuid PRIMARY KEY,
    reporter_id uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    target_type text        NOT NULL CHECK (target_type IN ('guide', 'photo', 'user')),
    target_id   uuid        NOT NULL,
    reason      text        NOT NULL CHECK (reason IN ('spam', 'sexual', 'violence', 'harassment', 'illegal', 'privacy', 'other')),
    note        text        NOT NULL DEFAULT '',
    status      text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    outcome     text,       -- once closed: the action that closed it
    created_at  timestamptz NOT NULL,
    closed_at   timestamptz
);
-- One open report per reporter and target.
CREATE UNIQUE INDEX reports_open_key ON reports (reporter_id, target_type, target_id) WHERE status = 'open';
-- The queue: open reports by target, oldest first.
CREATE INDEX reports_open_target_idx ON reports (target_type, target_id, created_at) WHERE status = 'open';
CREATE INDEX reports_reporter_idx ON reports (reporter_id, id DESC);

-- The audit log. moderator_id is NULL for an automatic hold; target_author
-- is who the outcome is told to.
CREATE TABLE moderation_actions (
    id            uuid PRIMARY KEY,
    moderator_id  uuid REFERENCES users (id) ON DELETE SET NULL,
    action        text        NOT NULL CHECK (action IN ('hide', 'restore', 'remove', 'suspend', 'unsuspend', 'dismiss')),
    target_type   text        NOT NULL CHECK (target_type IN ('guide', 'photo', 'user')),
    target_id     uuid        NOT NULL,
    target_author uuid,
    reason        text        NOT NULL,
    reports       integer     NOT NULL, -- open reports it closed
    created_at    timestamptz NOT NULL
);
CREATE INDEX moderation_actions_target_idx ON moderation_actions (target_type, target_id, id DESC);

-- A photo hidden or restored changes the covers and photo counts of every
-- guide that shows it: touch those guides, so their tiles are bumped like
-- any other edit.
-- +goose StatementBegin
CREATE FUNCTION guide_photo_hidden() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE guides SET updated_at = updated_at
    WHERE id IN (SELECT guide_id FROM guide_media WHERE media_id = NEW.id);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER media_guide_hidden AFTER UPDATE OF hidden_at ON media
    FOR EACH ROW WHEN ((OLD.hidden_at IS NULL) IS DISTINCT FROM (NEW.hidden_at IS NULL))
    EXECUTE FUNCTION guide_photo_hidden();

-- ---------------------------------------------------------------------------
-- Blocks
-- ---------------------------------------------------------------------------

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
-- Everything above but the PostGIS extension, which other schemas may use.
DROP TABLE user_blocks, moderation_actions, reports, guide_tile_tags, guide_tiles, guide_like_shards,
    guide_likes, guide_media, guides, uploads, idempotency_keys, media, refresh_tokens, sessions, users;
DROP FUNCTION user_blocks_notify(), guide_photo_hidden(), guide_author_renamed(), guide_cover_changed(),
    guide_tiles_bump(), guide_tiles_notify(text), guide_tiles_refresh(bigint[]),
    guide_tiles_grow(guide_tile_point[]), guide_tiles_apply(guide_tile_delta[]),
    guide_tile_shown(geography, timestamptz, integer), guide_tile_delta_of(geography, integer),
    guide_search_query(text), guide_search_document(text, text, text[]), guide_tile(geography);
DROP TYPE guide_tile_point, guide_tile_delta;
