-- +goose Up
-- The rows of 00007 per tile and tag, so that clusters filtered by a tag
-- add up tile rows too instead of reading every guide carrying a common
-- tag (a third of a million in a country at 1 M guides). Only (tag, tile)
-- pairs that hold a guide have a row. No versions here: a tile's version
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

-- New guides only widen bounds and may be the newest: guide_tiles_grow
-- adds them without reading anything else. A guide that leaves a tile
-- (deleted, moved, retagged) may have been its bound or its newest:
-- guide_tiles_refresh recomputes the tiles it left from their guides
-- (bounds NULL once a tile is empty). The trigger calls either after
-- guide_tiles_apply has locked the tiles' rows, so one writer at a time
-- changes a tile; each statement of a volatile function takes a fresh
-- snapshot under READ COMMITTED, so a refresh sees every transaction that
-- held the lock before, and the last writer of a tile leaves exact values.
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

-- A guide as the per-tile rows see it.
CREATE TYPE guide_tile_point AS (id uuid, tile bigint, lat float8, lng float8, tags text[]);

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
        -- Only guides whose place or tags changed touch the rows (an edit
        -- of the text, or a new cover, leaves them as they are).
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
        -- A NOTIFY payload must stay under 8000 bytes; "*" tells listeners
        -- to reload every version (a bulk load).
        IF length(payload) > 7000 THEN
            payload := '*';
        END IF;
        PERFORM pg_notify('guide_tiles', payload);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Guides stored before this migration.
SELECT guide_tiles_refresh(ARRAY(SELECT tile FROM guide_tiles));

-- +goose Down
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
    WHERE t.tile = s.tile
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
        PERFORM pg_notify('guide_tiles', '*');
        RETURN NULL;
    END IF;
    -- Each branch reads only the transition tables its trigger has.
    IF TG_OP = 'INSERT' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, 1) FROM new_rows));
        PERFORM guide_tiles_refresh(ARRAY(SELECT DISTINCT guide_tile(location) FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, -1) FROM old_rows));
        PERFORM guide_tiles_refresh(ARRAY(SELECT DISTINCT guide_tile(location) FROM old_rows));
    ELSE
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, -1) FROM old_rows
                                     UNION ALL SELECT guide_tile_delta_of(location, 1) FROM new_rows));
        PERFORM guide_tiles_refresh(ARRAY(SELECT guide_tile(location) FROM old_rows
                                          UNION SELECT guide_tile(location) FROM new_rows));
    END IF;
    IF changed > 0 THEN
        -- A NOTIFY payload must stay under 8000 bytes; "*" tells listeners
        -- to reload every version (a bulk load).
        IF length(payload) > 7000 THEN
            payload := '*';
        END IF;
        PERFORM pg_notify('guide_tiles', payload);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP FUNCTION guide_tiles_grow(guide_tile_point[]);
DROP TYPE guide_tile_point;
DROP TABLE guide_tile_tags;
