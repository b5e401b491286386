-- Moderation: reports from users, moderators who act on them, an audit
-- log of every action, and the holds that take a guide or a photo off
-- every public surface while its row (and its author's view of it) stays.

-- +goose Up
ALTER TABLE users ADD COLUMN moderator boolean NOT NULL DEFAULT false;
-- A suspended account's sessions are revoked when it is suspended, and no
-- new one is created until it is unsuspended.
ALTER TABLE users ADD COLUMN suspended_at timestamptz;

-- A hold: hidden_at is set while the guide or photo is off every public
-- surface; hidden_cause says who put it there, so that lifting a
-- suspension restores only what the suspension hid.
ALTER TABLE guides ADD COLUMN hidden_at timestamptz;
ALTER TABLE guides ADD COLUMN hidden_reason text;
ALTER TABLE guides ADD COLUMN hidden_cause text CHECK (hidden_cause IN ('moderator', 'reports', 'suspension'));
ALTER TABLE media ADD COLUMN hidden_at timestamptz;
ALTER TABLE media ADD COLUMN hidden_reason text;
ALTER TABLE media ADD COLUMN hidden_cause text CHECK (hidden_cause IN ('moderator', 'reports', 'suspension'));

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

-- Hidden guides leave the per-tile rows like deleted ones: their tiles
-- count, sum, bound and list only visible guides, so clusters and tag
-- clusters never show them. A guide hidden or restored bumps its tile (a
-- delta of 0 still bumps the version), so every cache on every process
-- drops what it held.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION guide_tiles_refresh(tiles bigint[]) RETURNS void
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

-- guide_tile_shown is a guide's contribution: sign for a visible guide, 0
-- (its tile still bumped) for a hidden one.
-- +goose StatementBegin
CREATE FUNCTION guide_tile_shown(loc geography, hidden timestamptz, sign integer) RETURNS guide_tile_delta
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT guide_tile_delta_of(loc, CASE WHEN hidden IS NULL THEN sign ELSE 0 END)
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION guide_tiles_bump() RETURNS trigger LANGUAGE plpgsql AS $$
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

-- +goose Down
DROP TRIGGER media_guide_hidden ON media;
DROP FUNCTION guide_photo_hidden();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION guide_tiles_bump() RETURNS trigger LANGUAGE plpgsql AS $$
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
    IF TG_OP = 'INSERT' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, 1) FROM new_rows));
        PERFORM guide_tiles_grow(ARRAY(SELECT ROW(id, guide_tile(location), ST_Y(location::geometry),
            ST_X(location::geometry), tags)::guide_tile_point FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, -1) FROM old_rows));
        PERFORM guide_tiles_refresh(ARRAY(SELECT DISTINCT guide_tile(location) FROM old_rows));
    ELSE
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, -1) FROM old_rows
                                     UNION ALL SELECT guide_tile_delta_of(location, 1) FROM new_rows));
        PERFORM guide_tiles_refresh(ARRAY(
            SELECT guide_tile(o.location) FROM old_rows o JOIN new_rows n USING (id)
            WHERE (ST_Y(o.location::geometry), ST_X(o.location::geometry), o.tags)
                  IS DISTINCT FROM (ST_Y(n.location::geometry), ST_X(n.location::geometry), n.tags)
            UNION
            SELECT guide_tile(n.location) FROM old_rows o JOIN new_rows n USING (id)
            WHERE (ST_Y(o.location::geometry), ST_X(o.location::geometry), o.tags)
                  IS DISTINCT FROM (ST_Y(n.location::geometry), ST_X(n.location::geometry), n.tags)));
    END IF;
    IF changed > 0 THEN
        PERFORM guide_tiles_notify(payload);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP FUNCTION guide_tile_shown(geography, timestamptz, integer);
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION guide_tiles_refresh(tiles bigint[]) RETURNS void
LANGUAGE sql AS $$
    UPDATE guide_tiles t
    SET min_lat = s.min_lat, min_lng = s.min_lng, max_lat = s.max_lat, max_lng = s.max_lng, newest = s.newest
    FROM (
        SELECT u.tile,
               min(ST_Y(g.location::geometry)) AS min_lat, min(ST_X(g.location::geometry)) AS min_lng,
               max(ST_Y(g.location::geometry)) AS max_lat, max(ST_X(g.location::geometry)) AS max_lng,
               (array_agg(g.id ORDER BY g.id DESC))[1] AS newest
        FROM unnest(tiles) AS u(tile)
        LEFT JOIN guides g ON guide_tile(g.location) = u.tile
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
    WHERE guide_tile(g.location) = ANY(tiles)
    GROUP BY 1, 2;
$$;
-- +goose StatementEnd
DROP TABLE moderation_actions;
DROP TABLE reports;
ALTER TABLE media DROP COLUMN hidden_cause;
ALTER TABLE media DROP COLUMN hidden_reason;
ALTER TABLE media DROP COLUMN hidden_at;
ALTER TABLE guides DROP COLUMN hidden_cause;
ALTER TABLE guides DROP COLUMN hidden_reason;
ALTER TABLE guides DROP COLUMN hidden_at;
ALTER TABLE users DROP COLUMN suspended_at;
ALTER TABLE users DROP COLUMN moderator;
