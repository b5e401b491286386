-- +goose Up
-- The exact bounds and the newest guide of every tile. Clusters built from
-- per-tile sums need them to say at which zoom they split (expansion_zoom,
-- from the bounds of their guides) and which guide to show when none is
-- liked (the newest), without reading the guides of a whole country.
-- Bounds are the stored float8 coordinates themselves, so a zoom computed
-- from them agrees with one computed from the guides to the last bit.
ALTER TABLE guide_tiles
    ADD COLUMN min_lat float8, ADD COLUMN min_lng float8,
    ADD COLUMN max_lat float8, ADD COLUMN max_lng float8,
    ADD COLUMN newest  uuid;

-- guide_tiles_refresh recomputes bounds and newest of the given tiles from
-- their guides (NULL once a tile is empty). The trigger calls it after
-- guide_tiles_apply has locked the tiles' rows, in a statement of its own:
-- under READ COMMITTED that statement's snapshot sees every transaction
-- that held the lock before, so the last writer of a tile always leaves
-- exact values.
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

-- Tiles that held guides before this migration.
UPDATE guide_tiles t
SET min_lat = s.min_lat, min_lng = s.min_lng, max_lat = s.max_lat, max_lng = s.max_lng, newest = s.newest
FROM (
    SELECT guide_tile(location) AS tile,
           min(ST_Y(location::geometry)) AS min_lat, min(ST_X(location::geometry)) AS min_lng,
           max(ST_Y(location::geometry)) AS max_lat, max(ST_X(location::geometry)) AS max_lng,
           (array_agg(id ORDER BY id DESC))[1] AS newest
    FROM guides GROUP BY 1
) s
WHERE t.tile = s.tile;

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION guide_tiles_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed integer;
    payload text;
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        UPDATE guide_tiles SET version = version + 1, guides = 0, sum_lat_e7 = 0, sum_lng_e7 = 0;
        PERFORM pg_notify('guide_tiles', '*');
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, 1) FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, -1) FROM old_rows));
    ELSE
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, -1) FROM old_rows
                                     UNION ALL SELECT guide_tile_delta_of(location, 1) FROM new_rows));
    END IF;
    IF changed > 0 THEN
        IF length(payload) > 7000 THEN
            payload := '*';
        END IF;
        PERFORM pg_notify('guide_tiles', payload);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP FUNCTION guide_tiles_refresh(bigint[]);
ALTER TABLE guide_tiles DROP COLUMN min_lat, DROP COLUMN min_lng, DROP COLUMN max_lat, DROP COLUMN max_lng, DROP COLUMN newest;
